// The kind tier's commands: run to completion with their output kept for the error that says why.
import { execFile } from "node:child_process";
import path from "node:path";

export interface Ran {
  code: number;
  out: string;
}

export function run(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  timeout = 600_000,
): Promise<Ran> {
  const [cmd, ...args] = argv;
  return new Promise((resolve) =>
    execFile(cmd!, args, { env, timeout, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    ),
  );
}

export async function must(
  argv: readonly string[],
  env?: NodeJS.ProcessEnv,
  input?: string,
): Promise<string> {
  const [cmd, ...args] = argv;
  const r = await new Promise<Ran>((resolve) => {
    const child = execFile(
      cmd!,
      args,
      { env, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
  if (r.code !== 0) {
    throw new Error(`${path.basename(cmd!)} ${args.join(" ")} failed (${r.code}):\n${r.out.slice(-4000)}`);
  }
  return r.out;
}
