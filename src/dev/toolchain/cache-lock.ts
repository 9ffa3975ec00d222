// One builder at a time per cached thing: test files start in parallel (vitest workers) and two
// builds of the same thing would share its temp dir. The lock is a directory holding the
// builder's pid; a dead builder's lock is taken over. Used by the control-plane binaries and the
// Python SDK environment.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isAlive } from "../../process/pids.ts";

/** Runs `fn` holding the lock directory `lock` (created with its parents); `label` prefixes the wait line. */
export async function withCacheLock<T>(
  lock: string,
  label: string,
  progress: (line: string) => void,
  fn: () => Promise<T>,
): Promise<T> {
  mkdirSync(path.dirname(lock), { recursive: true });
  let waiting = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, "pid"), String(process.pid));
      break;
    } catch {
      let holder = Number.NaN;
      try {
        holder = Number(readFileSync(path.join(lock, "pid"), "utf8"));
      } catch {}
      if (Number.isInteger(holder) && !isAlive(holder)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (!waiting) progress(`[${label}] waiting for another build (pid ${holder}) to finish`);
      waiting = true;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
