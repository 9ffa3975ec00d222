// Cache keys: a layer is rebuilt only when something it is made from changed. The keys hash file
// contents (not mtimes), so a fresh checkout of the same commit hits the same cache entries.
import { createHash } from "node:crypto";
import { createReadStream, existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

/** Files under `root` for each of `paths` (files or directories), sorted, relative to `root`. */
export function filesUnder(
  root: string,
  paths: readonly string[],
  skip: (rel: string) => boolean = () => false,
): string[] {
  const out: string[] = [];
  const visit = (rel: string) => {
    if (skip(rel)) return;
    const abs = path.join(root, rel);
    if (statSync(abs).isDirectory()) {
      for (const name of readdirSync(abs)) visit(path.posix.join(rel, name));
    } else {
      out.push(rel);
    }
  };
  for (const p of paths) {
    if (!existsSync(path.join(root, p))) throw new Error(`image input ${path.join(root, p)} is missing`);
    visit(p);
  }
  return [...new Set(out)].sort();
}

export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** One hash over the listed files' names and contents, plus any extra facts (versions, format). */
export async function inputHash(root: string, files: readonly string[], facts: unknown): Promise<string> {
  const hash = createHash("sha256").update(JSON.stringify(facts)).update("\0");
  for (const rel of files)
    hash
      .update(rel)
      .update("\0")
      .update(await sha256OfFile(path.join(root, rel)))
      .update("\0");
  return hash.digest("hex");
}
