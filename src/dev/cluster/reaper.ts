// A watchdog that outlives an abruptly killed parent: it polls the parent pid and, once the
// parent is gone, stops every process the parent registered and removes its temp dir. So no
// control-plane process, port or temp dir outlives an interrupted run (SIGKILL included).
// Cleanup commands (a real node's teardown) run after the processes are stopped.
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface Reaper {
  /** Registers a pid to stop if the parent dies. */
  track(pid: number): void;
  /** Forgets a pid the parent already stopped (so a reused pid is never signalled). */
  untrack(pid: number): void;
  /** Registers a command (argv) to run once the processes are stopped. */
  trackCleanup(argv: string[]): void;
  /** The parent stopped everything itself: the watchdog can go. */
  release(): void;
}

const PID_FILE = "reaper.pids";
const CLEANUP_FILE = "reaper.cleanups";

export function startReaper(dir: string, removeDir: boolean): Reaper {
  const self = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, [self, String(process.pid), dir, removeDir ? "1" : "0"], {
    detached: true,
    stdio: "ignore",
  });
  child.unref();
  return {
    track(pid) {
      appendFileSync(path.join(dir, PID_FILE), `${pid}\n`);
    },
    untrack(pid) {
      appendFileSync(path.join(dir, PID_FILE), `-${pid}\n`);
    },
    trackCleanup(argv) {
      appendFileSync(path.join(dir, CLEANUP_FILE), `${JSON.stringify(argv)}\n`);
    },
    release() {
      try {
        if (child.pid) process.kill(child.pid, "SIGTERM");
      } catch {}
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function watch(parent: number, dir: string, removeDir: boolean): Promise<void> {
  while (alive(parent)) await new Promise((r) => setTimeout(r, 500));
  const file = path.join(dir, PID_FILE);
  const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
  const forgotten = new Set(lines.filter((l) => l.startsWith("-")).map((l) => Number(l.slice(1))));
  const pids = lines
    .filter((l) => !l.startsWith("-"))
    .map(Number)
    .filter((p) => !forgotten.has(p))
    .reverse();
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {}
  }
  const deadline = Date.now() + 5_000;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const pid of pids.filter(alive)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  const cleanups = path.join(dir, CLEANUP_FILE);
  if (existsSync(cleanups)) {
    mkdirSync(path.join(dir, "logs"), { recursive: true });
    const log = openSync(path.join(dir, "logs", "reaper-cleanup.log"), "a");
    for (const line of readFileSync(cleanups, "utf8").split("\n").filter(Boolean).reverse()) {
      const [cmd, ...args] = JSON.parse(line) as string[];
      if (cmd) spawnSync(cmd, args, { stdio: ["ignore", log, log], timeout: 120_000 });
    }
  }
  // Never delete through a mount a cleanup could not remove (its log then says why).
  const mounted = readFileSync("/proc/self/mountinfo", "utf8").includes(` ${dir}/`);
  if (removeDir && !mounted) rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [parent, dir, removeDir] = process.argv.slice(2);
  process.on("SIGTERM", () => process.exit(0));
  void watch(Number(parent), dir ?? "", removeDir === "1").then(() => process.exit(0));
}
