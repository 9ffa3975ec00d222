// One run at a time per cached data root: two dockerds on one data root would corrupt it (and the
// second one hangs on containerd's and dockerd's own locks). We fail with a clear message rather
// than copying 1.5 GB per run. The lock file records what the holder started, so that a run that
// was killed (SIGKILL: no cleanup) can be cleaned up by the next one.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { isAlive } from "../../process/pids.ts";

export interface LockRecord {
  /** The run (node process) holding the data root. */
  pid: number;
  runDir: string;
  netns: string;
  dockerdPid?: number;
  containerdPid?: number;
}

export type LockDecision = { take: true; stale?: LockRecord } | { take: false; why: string };

/** Pure: whether we may take the data root, given the lock file's record (if any). */
export function lockDecision(
  dataRoot: string,
  holder: LockRecord | undefined,
  alive: (pid: number) => boolean,
): LockDecision {
  if (!holder) return { take: true };
  if (alive(holder.pid)) {
    return {
      take: false,
      why:
        `the Docker data root ${dataRoot} is in use by another run (pid ${holder.pid}, dockerd pid ${holder.dockerdPid ?? "not yet started"}): ` +
        "wait for it to finish, or give this run a data root of its own with LPO_DOCKER_DATA_ROOT=<dir> (a cold one: the kind node image is built again there)",
    };
  }
  return { take: true, stale: holder };
}

/** Alive and not a zombie (a killed holder whose parent has not reaped it yet holds nothing). */
function running(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return true; // no /proc: trust kill(0)
  }
}

function readRecord(file: string): LockRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, "utf8")) as LockRecord;
    return typeof record.pid === "number" ? record : undefined;
  } catch {
    return undefined;
  }
}

export interface HeldLock {
  /** Records what this run started, for the next run should this one be killed. */
  update(change: Partial<LockRecord>): void;
  release(): void;
}

/**
 * Takes the lock (exclusive create; a stale lock is handed to `cleanStale` first, then replaced)
 * or throws why not.
 */
export async function takeLock(
  lockFile: string,
  dataRoot: string,
  record: LockRecord,
  cleanStale: (stale: LockRecord) => Promise<void>,
): Promise<HeldLock> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(lockFile, JSON.stringify(record), { flag: "wx" });
      let current = record;
      return {
        update(change) {
          current = { ...current, ...change };
          writeFileSync(lockFile, JSON.stringify(current));
        },
        release() {
          if (readRecord(lockFile)?.pid === record.pid) rmSync(lockFile, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const decision = lockDecision(dataRoot, readRecord(lockFile), running);
    if (!decision.take) throw new Error(decision.why);
    if (decision.stale) await cleanStale(decision.stale);
    rmSync(lockFile, { force: true });
  }
  throw new Error(`could not take ${lockFile}: another run keeps taking it; remove it if no run is going`);
}
