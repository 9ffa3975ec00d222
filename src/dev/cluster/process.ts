// Child processes of the local control plane: started with their output in a log file, stopped
// by pid (SIGTERM, then SIGKILL after a grace period).
import { type ChildProcess, spawn } from "node:child_process";
import { openSync, readFileSync } from "node:fs";
import { isAlive, sleep, stopPid } from "../../process/pids.ts";

export interface ManagedProcess {
  name: string;
  pid: number;
  logFile: string;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
}

export function startProcess(
  name: string,
  command: string,
  args: string[],
  logFile: string,
  env: NodeJS.ProcessEnv = process.env,
): ManagedProcess {
  const fd = openSync(logFile, "a");
  const child = spawn(command, args, { stdio: ["ignore", fd, fd], env });
  if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { name, pid: child.pid, logFile, child, exited };
}

export { isAlive, sleep, stopPid };

/** The last lines of a component's log, for error messages that say why it failed. */
export function logTail(file: string, lines = 15): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

/** Polls `check` until it returns true; throws with `describe()` when time runs out. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  describe: () => string = () => "",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    await sleep(100);
  }
  const why = last instanceof Error ? ` (last error: ${last.message})` : "";
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}\n${describe()}`);
}
