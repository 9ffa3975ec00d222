// A watchdog that outlives an abruptly killed parent: it polls the parent pid and, once the
// parent is gone, stops every process the parent registered and removes its temp dir. So no
// control-plane process, port or temp dir outlives an interrupted run (SIGKILL included).
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface Reaper {
  /** Registers a pid to stop if the parent dies. */
  track(pid: number): void;
  /** The parent stopped everything itself: the watchdog can go. */
  release(): void;
}

const PID_FILE = "reaper.pids";

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
  const pids = existsSync(file)
    ? readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number).reverse()
    : [];
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
  if (removeDir) rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [parent, dir, removeDir] = process.argv.slice(2);
  process.on("SIGTERM", () => process.exit(0));
  void watch(Number(parent), dir ?? "", removeDir === "1").then(() => process.exit(0));
}
