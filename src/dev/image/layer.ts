// A directory tree as one image layer: an uncompressed tar with its entries in byte order of
// their paths, owner root (unless told otherwise), mtime 0 and the files' own permission bits, so
// the same tree always gives the same bytes and the same diff id. Files are streamed from disk
// (the Node binary alone is ~125 MB).
import { createHash } from "node:crypto";
import { createReadStream, lstatSync, readdirSync, readlinkSync, renameSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { TAR_END, type TarEntry, tarHeader, tarPadding } from "./tar.ts";

export interface Owner {
  uid: number;
  gid: number;
}

export interface LayerOptions {
  /** Owner of a path (relative, no leading slash); root by default. */
  ownerOf?: (relPath: string) => Owner | undefined;
}

export interface WrittenLayer {
  file: string;
  /** `sha256:<hex>` of the tar: the layer's diff id in the image config. */
  diffId: string;
  /** Bytes of the tar file. */
  tarBytes: number;
  /** Bytes of file content in it: the unpacked size. */
  contentBytes: number;
  entries: number;
}

interface Walked {
  rel: string;
  abs: string;
  type: "file" | "dir" | "symlink";
  mode: number;
  size: number;
}

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Every entry under `root` (not `root` itself), parents before children, siblings in byte order. */
export function walkTree(root: string): Walked[] {
  const out: Walked[] = [];
  const visit = (relDir: string) => {
    for (const name of readdirSync(path.join(root, relDir)).sort(byBytes)) {
      const rel = relDir ? `${relDir}/${name}` : name;
      const abs = path.join(root, rel);
      const st = lstatSync(abs);
      const mode = st.mode & 0o7777;
      if (st.isDirectory()) {
        out.push({ rel, abs, type: "dir", mode, size: 0 });
        visit(rel);
      } else if (st.isSymbolicLink()) {
        out.push({ rel, abs, type: "symlink", mode: 0o777, size: 0 });
      } else if (st.isFile()) {
        // A hard link is stored as a copy: simpler, and none of our trees rely on link counts.
        out.push({ rel, abs, type: "file", mode, size: st.size });
      } else {
        throw new Error(
          `layer: ${abs} is neither a file, a directory nor a symlink; remove it from the tree`,
        );
      }
    }
  };
  visit("");
  return out;
}

/** Writes the layer tar for `root` to `file` (atomically) and returns its diff id and sizes. */
export async function writeLayer(
  root: string,
  file: string,
  options: LayerOptions = {},
): Promise<WrittenLayer> {
  const entries = walkTree(root);
  const tmp = `${file}.tmp-${process.pid}`;
  const handle = await open(tmp, "w");
  const hash = createHash("sha256");
  let tarBytes = 0;
  let contentBytes = 0;
  const put = async (chunk: Buffer) => {
    hash.update(chunk);
    tarBytes += chunk.length;
    await handle.write(chunk);
  };
  try {
    for (const e of entries) {
      const owner = options.ownerOf?.(e.rel) ?? { uid: 0, gid: 0 };
      const entry: TarEntry = {
        path: e.rel,
        type: e.type,
        mode: e.mode,
        uid: owner.uid,
        gid: owner.gid,
        mtime: 0,
      };
      if (e.type === "symlink") entry.target = readlinkSync(e.abs);
      await put(tarHeader(entry, e.size));
      if (e.type !== "file") continue;
      let copied = 0;
      for await (const chunk of createReadStream(e.abs, { highWaterMark: 1 << 20 })) {
        copied += (chunk as Buffer).length;
        await put(chunk as Buffer);
      }
      if (copied !== e.size) throw new Error(`layer: ${e.abs} changed size while it was archived`);
      contentBytes += e.size;
      await put(tarPadding(e.size));
    }
    await put(TAR_END);
    await handle.close();
  } catch (err) {
    await handle.close().catch(() => {});
    rmSync(tmp, { force: true });
    throw err;
  }
  renameSync(tmp, file);
  return { file, diffId: `sha256:${hash.digest("hex")}`, tarBytes, contentBytes, entries: entries.length };
}

/** Bytes of `file` gzip-compressed (level 6, as registries get layers): the size a push would send. */
export async function gzipSize(file: string): Promise<number> {
  let bytes = 0;
  await pipeline(createReadStream(file), createGzip(), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) bytes += chunk.length;
  });
  return bytes;
}
