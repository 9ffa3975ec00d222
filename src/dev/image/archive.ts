// Writes a container image as a `docker save`-format archive (manifest.json + image config +
// one tar per layer), without Docker: what `docker load` and `ctr images import` accept. Used
// to get locally built images into a node's containerd where no registry is reachable. Fixed
// timestamps and owners: the same layers and config always give the same image id.
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { TAR_END, tarHeader, tarPadding } from "./tar.ts";

export interface ImageConfig {
  entrypoint?: string[];
  cmd?: string[];
  /** `NAME=value` entries. */
  env?: string[];
  workingDir?: string;
  /** `uid[:gid]` or a name from the image's /etc/passwd. */
  user?: string;
  /** `8080/tcp` style. */
  exposedPorts?: string[];
  labels?: Record<string, string>;
  stopSignal?: string;
}

export interface DockerArchiveSpec {
  /** Image references, e.g. `livepeer-operator/pause:dev` (containerd stores it as `docker.io/...`). */
  repoTags: string[];
  /** Uncompressed layer tarballs, bottom first: the bytes, or the path of a tar file. */
  layers: (Buffer | string)[];
  config?: ImageConfig;
  /** GOARCH-style architecture; the machine's by default. */
  architecture?: string;
  /** RFC 3339; the epoch by default, so the image id depends only on content. */
  created?: string;
}

export interface WrittenArchive {
  file: string;
  /** `sha256:<hex>` of the image config: the image id Docker and containerd report. */
  imageId: string;
  /** `sha256:<hex>` of each layer tar, bottom first. */
  diffIds: string[];
  bytes: number;
}

const CHUNK = 1 << 20;

function layerInfo(layer: Buffer | string): { size: number; digest: string } {
  const hash = createHash("sha256");
  if (typeof layer !== "string") return { size: layer.length, digest: hash.update(layer).digest("hex") };
  const fd = openSync(layer, "r");
  try {
    const buf = Buffer.alloc(CHUNK);
    let size = 0;
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) {
      hash.update(buf.subarray(0, n));
      size += n;
    }
    return { size, digest: hash.digest("hex") };
  } finally {
    closeSync(fd);
  }
}

export function goArch(nodeArch: string = process.arch): string {
  return (
    (
      { x64: "amd64", arm64: "arm64", arm: "arm", ppc64: "ppc64le", s390x: "s390x" } as Record<string, string>
    )[nodeArch] ?? nodeArch
  );
}

/** The image config JSON (the document whose digest is the image id). */
export function imageConfigJson(spec: DockerArchiveSpec, diffIds: string[]): string {
  const c = spec.config ?? {};
  const created = spec.created ?? "1970-01-01T00:00:00Z";
  const config: Record<string, unknown> = {};
  if (c.env) config.Env = c.env;
  if (c.entrypoint) config.Entrypoint = c.entrypoint;
  if (c.cmd) config.Cmd = c.cmd;
  if (c.workingDir) config.WorkingDir = c.workingDir;
  if (c.user) config.User = c.user;
  if (c.exposedPorts) config.ExposedPorts = Object.fromEntries(c.exposedPorts.map((p) => [p, {}]));
  if (c.labels) config.Labels = c.labels;
  if (c.stopSignal) config.StopSignal = c.stopSignal;
  return JSON.stringify({
    architecture: spec.architecture ?? goArch(),
    os: "linux",
    created,
    config,
    rootfs: { type: "layers", diff_ids: diffIds },
    history: diffIds.map(() => ({ created, created_by: "livepeer-operator image archive" })),
  });
}

/** Writes the archive to `file` (atomically: a temp file renamed into place). */
export function writeDockerArchive(file: string, spec: DockerArchiveSpec): WrittenArchive {
  if (spec.layers.length === 0) throw new Error("an image needs at least one layer");
  for (const tag of spec.repoTags) {
    if (!/^[a-z0-9][a-z0-9._/-]*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$/.test(tag)) {
      throw new Error(`repoTags: '${tag}' is not an image reference like 'livepeer-operator/pause:dev'`);
    }
  }
  const layers = spec.layers.map((l) => ({ source: l, ...layerInfo(l) }));
  const diffIds = layers.map((l) => `sha256:${l.digest}`);
  const config = Buffer.from(imageConfigJson(spec, diffIds));
  const configHex = createHash("sha256").update(config).digest("hex");
  const manifest = Buffer.from(
    JSON.stringify([
      {
        Config: `${configHex}.json`,
        RepoTags: spec.repoTags,
        Layers: layers.map((l) => `${l.digest}/layer.tar`),
      },
    ]),
  );

  const tmp = `${file}.tmp-${process.pid}`;
  const fd = openSync(tmp, "w");
  const put = (b: Buffer) => {
    writeSync(fd, b);
  };
  try {
    const small = (path: string, content: Buffer) => {
      put(tarHeader({ path }, content.length));
      put(content);
      put(tarPadding(content.length));
    };
    const seen = new Set<string>();
    for (const layer of layers) {
      if (seen.has(layer.digest)) continue; // the same layer twice is stored once
      seen.add(layer.digest);
      put(tarHeader({ path: layer.digest, type: "dir" }, 0));
      put(tarHeader({ path: `${layer.digest}/layer.tar` }, layer.size));
      if (typeof layer.source === "string") {
        const src = openSync(layer.source, "r");
        try {
          const buf = Buffer.alloc(CHUNK);
          let copied = 0;
          for (let n = readSync(src, buf); n > 0; n = readSync(src, buf)) {
            put(buf.subarray(0, n));
            copied += n;
          }
          if (copied !== layer.size) throw new Error(`layer ${layer.source} changed while it was archived`);
        } finally {
          closeSync(src);
        }
      } else {
        put(layer.source);
      }
      put(tarPadding(layer.size));
    }
    small(`${configHex}.json`, config);
    small("manifest.json", manifest);
    put(TAR_END);
    closeSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  renameSync(tmp, file);
  return { file, imageId: `sha256:${configHex}`, diffIds, bytes: statSync(file).size };
}
