// `--docker`: the same root filesystem into a Docker daemon with `docker import` (one layer: the
// layer tars joined), with ENTRYPOINT/USER/WORKDIR/ENV from the same image spec.
import { execFile, spawn } from "node:child_process";
import { createReadStream, statSync } from "node:fs";
import type { ImageConfig } from "./archive.ts";
import { dockerImportChanges } from "./images.ts";
import { TAR_END } from "./tar.ts";

function docker(args: string[], timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("docker", args, { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) reject(new Error(`docker ${args.join(" ")}: ${stderr.trim() || err.message}`));
      else resolve(stdout.trim());
    });
  });
}

/** The daemon's version, or an error saying how to get one. */
export async function dockerDaemonVersion(): Promise<string> {
  try {
    return await docker(["version", "--format", "{{.Server.Version}}"], 10_000);
  } catch (err) {
    throw new Error(
      `--docker needs a reachable Docker daemon (${(err as Error).message.split("\n")[0]}); start dockerd or set DOCKER_HOST, or build without --docker and load the archive`,
    );
  }
}

/**
 * Streams the layers as one tar into `docker import`: each layer but the last without its
 * end-of-archive blocks. Returns the image id and Docker's size for it.
 */
export async function dockerImport(
  layers: readonly string[],
  ref: string,
  config: ImageConfig,
): Promise<{ id: string; size: number }> {
  const args = ["import", ...dockerImportChanges(config).flatMap((c) => ["--change", c]), "-", ref];
  const child = spawn("docker", args, { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? 1)));
  try {
    for (const [i, layer] of layers.entries()) {
      const last = i === layers.length - 1;
      const size = statSync(layer).size;
      const end = last ? size - 1 : size - TAR_END.length - 1;
      for await (const chunk of createReadStream(layer, { end, highWaterMark: 1 << 20 })) {
        if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once("drain", r));
      }
    }
  } finally {
    child.stdin.end();
  }
  const code = await exited;
  if (code !== 0) throw new Error(`docker import ${ref} failed (exit ${code}): ${err.trim()}`);
  const [id, size] = (await docker(["image", "inspect", "--format", "{{.Id}} {{.Size}}", ref])).split(" ");
  return { id: id ?? out.trim(), size: Number(size) };
}
