// `livepeer-operator controller` as a child process, the way it runs in a pod: its log lines are
// kept for assertions and error messages, its metrics address is read from its log, and it is
// stopped by pid (tests use SIGTERM for graceful shutdown and SIGKILL for a crash).
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { isAlive, stopPid, waitFor } from "../../../src/dev/cluster/process.ts";

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../src/cli/main.ts");

export interface ControllerProcess {
  identity: string;
  pid: number;
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
  /** http://host:port of /metrics, once the process logged it. */
  metricsUrl(): Promise<string>;
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** The log so far, for failure messages. */
  log(): string;
  stop(signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
}

const running = new Set<ControllerProcess>();

/**
 * `main`: the CLI entry to run (default: the TypeScript source; the image runs compiled JS).
 * `nodeFlags`: flags for node itself, before `main` (V8 flags Node refuses in NODE_OPTIONS).
 */
export function startController(
  identity: string,
  args: string[],
  main = MAIN,
  nodeFlags: readonly string[] = [],
): ControllerProcess {
  const child = spawn(
    process.execPath,
    [...nodeFlags, main, "controller", "--identity", identity, "--metrics-addr", "127.0.0.1:0", ...args],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, KUBECONFIG: "" },
    },
  );
  if (child.pid === undefined) throw new Error(`could not start the controller ${identity}`);
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (l) => lines.push(l));
  }
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const proc: ControllerProcess = {
    identity,
    pid: child.pid,
    child,
    lines,
    exited,
    log: () => lines.join("\n"),
    async waitForLine(pattern, timeoutMs = 30_000) {
      let found: string | undefined;
      await waitFor(
        `${identity} to log ${pattern}`,
        async () => {
          found = lines.find((l) => pattern.test(l));
          if (!found && !isAlive(child.pid!)) throw new Error(`${identity} exited`);
          return found !== undefined;
        },
        timeoutMs,
        () => proc.log(),
      );
      return found!;
    },
    async metricsUrl() {
      const line = await proc.waitForLine(/serving \/metrics/);
      return /on (http:\/\/\S+)/.exec(line)![1]!;
    },
    async stop(signal = "SIGTERM") {
      running.delete(proc);
      if (signal === "SIGKILL") {
        try {
          process.kill(child.pid!, "SIGKILL");
        } catch {}
      }
      await stopPid(child.pid!, 30_000);
      await exited;
    },
  };
  running.add(proc);
  return proc;
}

/** For afterAll: stops every controller a test started and did not stop. */
export async function stopAllControllers(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop("SIGKILL")));
}

/** The value of one sample in Prometheus text format (undefined when absent). */
export function sample(
  metricsText: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of metricsText.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = /\{([^}]*)\}/.exec(line)?.[1] ?? "";
    const has = Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`));
    if (has) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

export async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  if (!res.ok) throw new Error(`GET ${url}/metrics: ${res.status}`);
  return res.text();
}
