// Reading an image archive back: its manifest and config, and its layers unpacked into a
// directory (what a runtime's snapshotter does), with the system's tar.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import path from "node:path";

export interface ArchiveManifest {
  Config: string;
  RepoTags: string[];
  Layers: string[];
}

export interface ArchiveContents {
  manifest: ArchiveManifest[];
  /** The image config document (`config`, `rootfs`, `history`, ...). */
  config: {
    architecture: string;
    os: string;
    config: {
      Entrypoint?: string[];
      Cmd?: string[];
      Env?: string[];
      User?: string;
      WorkingDir?: string;
      Labels?: Record<string, string>;
    };
    rootfs: { type: string; diff_ids: string[] };
  };
}

function tarOut(args: string[]): Buffer {
  return execFileSync("tar", args, { maxBuffer: 64 << 20 });
}

export function readArchive(archive: string): ArchiveContents {
  const manifest = JSON.parse(tarOut(["-xOf", archive, "manifest.json"]).toString()) as ArchiveManifest[];
  const first = manifest[0];
  if (!first) throw new Error(`${archive}: manifest.json lists no image`);
  const config = JSON.parse(tarOut(["-xOf", archive, first.Config]).toString()) as ArchiveContents["config"];
  return { manifest, config };
}

/** Unpacks the archive's layers, bottom first, into `dir` (owners kept when run as root). */
export function unpackArchive(archive: string, dir: string): ArchiveContents {
  const contents = readArchive(archive);
  const scratch = mkdtempSync(path.join(path.dirname(dir), ".unpack-"));
  try {
    for (const layer of contents.manifest[0]!.Layers) {
      tarOut(["-xf", archive, "-C", scratch, layer]);
      tarOut(["-xpf", path.join(scratch, layer), "-C", dir, "--numeric-owner"]);
      rmSync(path.join(scratch, layer));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return contents;
}
