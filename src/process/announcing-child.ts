// A child process that follows the readiness protocol: it prints one stdout line
// `READY {json}` once it serves. Tests and tools start one, keep its output for error messages,
// and wait for that line.
import { type ChildProcess, spawn } from "node:child_process";

export interface AnnouncingChild {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
  /** The READY line's JSON; throws with the child's stderr if it exits or times out first. */
  ready(timeoutMs?: number): Promise<Record<string, string>>;
}

export function spawnAnnouncing(argv: readonly string[], env: NodeJS.ProcessEnv): AnnouncingChild {
  const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exit,
    async ready(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const line = out.split("\n").find((l) => l.startsWith("READY "));
        if (line) return JSON.parse(line.slice(6)) as Record<string, string>;
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no READY line from ${argv.join(" ")}; stderr:\n${err}`);
    },
  };
}
