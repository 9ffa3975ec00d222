// `devnet down`: stops the round ticker and the chain `up` started (by their recorded pids,
// waiting for them to exit) and removes the pid files. The deployment files and accounts stay
// unless `purge` is set; the chain is in memory, so the next `up` redeploys (to the same
// addresses: same deployer, same order).
import { readdirSync, rmdirSync, rmSync } from "node:fs";
import path from "node:path";
import { isAlive, isPortListening, sleep, stopPid } from "./processes.ts";
import { devnetPaths, readDevnetState, readPid, removePid } from "./state.ts";
import { stopTicker } from "./ticker-control.ts";

export interface DevnetDownOptions {
  dir?: string;
  /** Also delete `deployments/devnet/` and `.devnet/` (keystores included). */
  purge?: boolean;
}

export interface DevnetDownResult {
  /** The pid stopped, when one was running. */
  stoppedPid?: number;
  /** The round ticker's pid, when one was running. */
  stoppedTickerPid?: number;
  purged: boolean;
}

export async function devnetDown(opts: DevnetDownOptions = {}): Promise<DevnetDownResult> {
  const paths = devnetPaths(opts.dir);
  const pid = readPid(paths);
  const state = readDevnetState(paths);
  const stoppedTickerPid = await stopTicker(paths);
  let stoppedPid: number | undefined;
  if (pid !== undefined && isAlive(pid)) {
    // A paused chain (devnet pause) takes no SIGTERM until it runs again.
    resumePid(pid);
    await stopPid(pid);
    stoppedPid = pid;
  }
  // The port is released with the process; wait until the kernel says so.
  if (state && stoppedPid !== undefined) {
    const deadline = Date.now() + 5_000;
    while ((await isPortListening(state.port)) && Date.now() < deadline) await sleep(25);
  }
  removePid(paths);
  if (opts.purge) {
    rmSync(paths.deploymentsDir, { recursive: true, force: true });
    rmSync(paths.stateDir, { recursive: true, force: true });
    removeIfEmpty(path.dirname(paths.deploymentsDir));
  }
  return { stoppedPid, stoppedTickerPid, purged: opts.purge ?? false };
}

export function resumePid(pid: number): void {
  try {
    process.kill(pid, "SIGCONT");
  } catch {}
}

function removeIfEmpty(dir: string): void {
  try {
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {}
}
