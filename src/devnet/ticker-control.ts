// Starting and stopping the round ticker process beside a devnet's chain, recorded by pid in
// `.devnet/ticker.pid` with its log in `.devnet/ticker.log`.
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isAlive, sleep, stopPid } from "./processes.ts";
import type { DevnetPaths, RunningTicker, TickerSettings } from "./state.ts";

export type { RunningTicker, TickerSettings };

export interface StartTickerOptions extends TickerSettings {
  url: string;
  chainId: number;
  chainPid: number;
  roundsManager: string;
  detached: boolean;
}

function tickerScript(): string {
  const here = fileURLToPath(import.meta.url);
  return path.join(path.dirname(here), `ticker-process${path.extname(here)}`);
}

export function readTickerPid(paths: DevnetPaths): number | undefined {
  try {
    const pid = Number(readFileSync(paths.tickerPidFile, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

export async function startTicker(paths: DevnetPaths, opts: StartTickerOptions): Promise<RunningTicker> {
  await stopTicker(paths);
  const fd = openSync(paths.tickerLogFile, "w");
  let pid: number | undefined;
  try {
    const child = spawn(
      process.execPath,
      [
        tickerScript(),
        "--url",
        opts.url,
        "--chain-id",
        String(opts.chainId),
        "--rounds-manager",
        opts.roundsManager,
        "--block-interval-ms",
        String(opts.blockIntervalMs),
        "--chain-pid",
        String(opts.chainPid),
      ],
      { stdio: ["ignore", fd, fd], detached: opts.detached },
    );
    pid = child.pid;
    if (opts.detached) child.unref();
  } finally {
    closeSync(fd);
  }
  if (pid === undefined) throw new Error(`could not start the round ticker with ${process.execPath}`);
  writeFileSync(paths.tickerPidFile, String(pid));
  // It says so once it ticks; a bad argument or a missing file shows in its log at once.
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const log = existsSync(paths.tickerLogFile) ? readFileSync(paths.tickerLogFile, "utf8") : "";
    if (/\[ticker\] round \d+/.test(log)) {
      return {
        pid,
        logFile: paths.tickerLogFile,
        blockIntervalMs: opts.blockIntervalMs,
        roundLength: opts.roundLength,
      };
    }
    if (!isAlive(pid)) throw new Error(`the round ticker exited at start:\n${log.trim()}`);
    await sleep(50);
  }
  await stopTicker(paths);
  throw new Error(`the round ticker did not tick within 15 s: see ${paths.tickerLogFile}`);
}

export async function stopTicker(paths: DevnetPaths): Promise<number | undefined> {
  const pid = readTickerPid(paths);
  if (pid !== undefined) await stopPid(pid);
  rmSync(paths.tickerPidFile, { force: true });
  return pid;
}
