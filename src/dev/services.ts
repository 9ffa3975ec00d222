// The operator's own processes as the embedded default runs them: the same `livepeer-operator
// controller` and `livepeer-operator api` commands a cluster runs, as child processes of this one,
// their output prefixed on stderr and kept in .dev/logs.
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { stopPid, waitFor } from "./cluster/process.ts";

// main.ts from the sources, main.js from dist/: whichever this file runs from.
const self = fileURLToPath(import.meta.url);
const entry = path.resolve(path.dirname(self), `../cli/main${path.extname(self)}`);

export interface Child {
  name: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export function startCommand(
  name: string,
  args: string[],
  logDir: string,
  log: (line: string) => void,
): Child {
  mkdirSync(logDir, { recursive: true });
  const file = createWriteStream(path.join(logDir, `${name}.log`), { flags: "a" });
  const child = spawn(process.execPath, [entry, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const forward = (chunk: Buffer) => {
    file.write(chunk);
    for (const line of chunk.toString().split("\n")) if (line.trim()) log(`[${name}] ${line}`);
  };
  child.stdout?.on("data", forward);
  child.stderr?.on("data", forward);
  return {
    name,
    process: child,
    async stop() {
      if (child.pid) await stopPid(child.pid, 15_000);
      file.end();
    },
  };
}

/** Waits until `url` answers 200, or the child exits (then says why). */
export async function waitHealthy(child: Child, url: string, timeoutMs = 60_000): Promise<void> {
  let exited: number | null | undefined;
  child.process.once("exit", (code) => {
    exited = code;
  });
  await waitFor(
    `${child.name} at ${url}`,
    async () => {
      if (exited !== undefined)
        throw new Error(`${child.name} exited with code ${exited}; see its log above`);
      return (await fetch(url)).ok;
    },
    timeoutMs,
  );
}
