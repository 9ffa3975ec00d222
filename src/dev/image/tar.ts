// A small ustar writer: enough for image layers and image archives (regular files, directories,
// symlinks), with fixed owners and mtimes so the same input gives the same bytes, and so the
// same image digest.
export interface TarEntry {
  /** Path inside the archive, without a leading slash (`bin/busybox`, `etc/`). */
  path: string;
  type?: "file" | "dir" | "symlink";
  /** File content (type "file"). */
  content?: Buffer | string;
  /** Link target (type "symlink"). */
  target?: string;
  /** Permission bits; 0o644 for files, 0o755 for directories by default. */
  mode?: number;
  uid?: number;
  gid?: number;
  /** Seconds since the epoch; 0 (fixed) by default. */
  mtime?: number;
}

const BLOCK = 512;

function writeString(buf: Buffer, offset: number, length: number, value: string, field: string): void {
  const bytes = Buffer.from(value, "utf8");
  if (bytes.length > length) throw new Error(`tar: ${field} '${value}' is longer than ${length} bytes`);
  bytes.copy(buf, offset);
}

function writeOctal(buf: Buffer, offset: number, length: number, value: number, field: string): void {
  const digits = value.toString(8);
  if (digits.length > length - 1) throw new Error(`tar: ${field} ${value} does not fit the header`);
  writeString(buf, offset, length, `${digits.padStart(length - 1, "0")}\0`, field);
}

/** Splits a long path into ustar's prefix (155) and name (100) fields. */
function splitPath(p: string): { prefix: string; name: string } {
  if (Buffer.byteLength(p) <= 100) return { prefix: "", name: p };
  for (let i = p.lastIndexOf("/"); i > 0; i = p.lastIndexOf("/", i - 1)) {
    const prefix = p.slice(0, i);
    const name = p.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100 && name) return { prefix, name };
  }
  throw new Error(`tar: path '${p}' is too long for a ustar header (name 100, prefix 155 bytes)`);
}

/** The 512-byte header of one entry; `size` is the content length for files. */
export function tarHeader(entry: TarEntry, size: number): Buffer {
  const type = entry.type ?? "file";
  const header = Buffer.alloc(BLOCK);
  const entryPath = type === "dir" && !entry.path.endsWith("/") ? `${entry.path}/` : entry.path;
  if (entryPath.startsWith("/")) throw new Error(`tar: path '${entry.path}' must be relative`);
  const { prefix, name } = splitPath(entryPath);
  writeString(header, 0, 100, name, "name");
  writeOctal(header, 100, 8, entry.mode ?? (type === "file" ? 0o644 : 0o755), "mode");
  writeOctal(header, 108, 8, entry.uid ?? 0, "uid");
  writeOctal(header, 116, 8, entry.gid ?? 0, "gid");
  writeOctal(header, 124, 12, type === "file" ? size : 0, "size");
  writeOctal(header, 136, 12, entry.mtime ?? 0, "mtime");
  header.fill(" ", 148, 156); // checksum is computed with its own field as spaces
  header.write({ file: "0", dir: "5", symlink: "2" }[type], 156, "ascii");
  if (type === "symlink") {
    if (!entry.target) throw new Error(`tar: symlink '${entry.path}' has no target`);
    writeString(header, 157, 100, entry.target, "link target");
  }
  writeString(header, 257, 6, "ustar\0", "magic");
  writeString(header, 263, 2, "00", "version");
  writeString(header, 345, 155, prefix, "prefix");
  let sum = 0;
  for (const byte of header) sum += byte;
  writeString(header, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `, "checksum");
  return header;
}

/** Zero padding after `size` bytes of content, up to the next 512-byte block. */
export function tarPadding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The end-of-archive marker: two zero blocks. */
export const TAR_END = Buffer.alloc(2 * BLOCK);

/** A whole archive in memory, entries in the given order. */
export function tar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const content =
      (entry.type ?? "file") === "file" ? Buffer.from(entry.content ?? Buffer.alloc(0)) : Buffer.alloc(0);
    parts.push(tarHeader(entry, content.length), content, tarPadding(content.length));
  }
  parts.push(TAR_END);
  return Buffer.concat(parts);
}
