// `devnet down`: stops the chain `up` started (by its recorded pid, waiting for it to exit) and
// removes the pid file. The deployment files and accounts stay unless `purge` is set; the chain
// is in memory, so the next `up` redeploys (to the same addresses: same deployer, same order).
import { readdirSync, rmdirSync, rmSync } from "node:fs";
import path from "node:path";
import { isAlive, isPortListening, sleep, stopPid } from "./processes.ts";
import { devnetPaths, readDevnetState, readPid, removePid } from "./state.ts";

export interface DevnetDownOptions {
  dir?: string;
  /** Also delete `deployments/devnet/` and `.devnet/` (keystores included). */
  purge?: boolean;
}

export interface DevnetDownResult {
  /** The pid stopped, when one was running. */
  stoppedPid?: number;
  purged: boolean;
}

export async function devnetDown(opts: DevnetDownOptions = {}): Promise<DevnetDownResult> {
  const paths = devnetPaths(opts.dir);
  const pid = readPid(paths);
  const state = readDevnetState(paths);
  let stoppedPid: number | undefined;
  if (pid !== undefined && isAlive(pid)) {
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
  return { stoppedPid, purged: opts.purge ?? false };
}

function removeIfEmpty(dir: string): void {
  try {
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {}
}
