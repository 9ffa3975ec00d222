// `npm run image`: builds the livepeer-operator image and the livepeer-node-simulator image on a
// machine with no registry, as `docker save`-format archives that `docker load` and
// `ctr -n k8s.io images import` accept. Two layers shared by both images: the base (Debian's
// libraries + Node 24 + /etc), and the app (/app). Each is cached by a hash of its inputs, so a
// rebuild after a source change redoes only the app layer, and one with no change nothing.
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gitCommit } from "../../release/version.ts";
import { cacheDir } from "../toolchain/binaries.ts";
import { stageApp } from "./app-tree.ts";
import {
  type DockerArchiveSpec,
  goArch,
  type ImageConfig,
  imageConfigJson,
  writeDockerArchive,
} from "./archive.ts";
import { addSkeleton, downloadPackages, NONROOT, resolvePackages, unpackPackages } from "./debian-rootfs.ts";
import { dockerDaemonVersion, dockerImport } from "./docker-import.ts";
import { type ImageSpec, operatorImage, simulatorImage } from "./images.ts";
import { filesUnder, inputHash, sha256OfFile } from "./input-hash.ts";
import { gzipSize, type WrittenLayer, writeLayer } from "./layer.ts";
import { findNodeRuntime } from "./node-runtime.ts";
import { unpackArchive } from "./unpack.ts";

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** Bump when the layout of a layer changes in a way its inputs do not show. */
const LAYER_FORMAT = 1;

export interface BuildImagesOptions {
  /** Where the archives go (default: <cache>/images). */
  out?: string;
  /** Tag of both images (default: package.json's version, the chart's appVersion). */
  tag?: string;
  /**
   * The commit the images are built from (label org.opencontainers.image.revision and
   * /app/build-info.json). Default: $LIVEPEER_OPERATOR_COMMIT, else git's HEAD of the checkout.
   */
  commit?: string;
  /** Also `docker import` both images into the reachable Docker daemon. */
  docker?: boolean;
  /** Also unpack the operator image's root filesystem into this directory (the Dockerfile's build stage). */
  rootfs?: string;
  projectRoot?: string;
  log?: (line: string) => void;
}

export interface BuiltImage {
  /** `livepeer-operator:0.1.0`; containerd stores it as `docker.io/library/livepeer-operator:0.1.0`. */
  ref: string;
  archive: string;
  /** `sha256:<hex>` of the image config: the IMAGE ID docker and crictl show. */
  imageId: string;
  archiveBytes: number;
  config: ImageConfig;
  /** Set with `docker: true`. */
  docker?: { id: string; size: number };
}

export interface LayerFacts extends Omit<WrittenLayer, "file"> {
  file: string;
  key: string;
  gzipBytes: number;
  /** Whether this build took it from the cache. */
  cached: boolean;
}

export interface BuiltImages {
  operator: BuiltImage;
  simulator: BuiltImage;
  layers: { base: LayerFacts; app: LayerFacts };
  /** File bytes of the root filesystem (both layers), as unpacked on a node. */
  unpackedBytes: number;
  /** Both layers gzip-compressed: what a registry would store. */
  gzipBytes: number;
  node: { version: string; platformPackage?: string };
  /** The commit recorded in both images (/app/build-info.json, org.opencontainers.image.revision). */
  commit: string;
  seconds: number;
}

function imagesCacheDir(): string {
  return path.join(cacheDir(), "images");
}

/** A cached layer: `<key>.tar` with `<key>.json` beside it, valid only when both agree. */
function cachedLayer(dir: string, key: string): LayerFacts | undefined {
  const meta = path.join(dir, `${key}.json`);
  if (!existsSync(meta)) return undefined;
  const facts = JSON.parse(readFileSync(meta, "utf8")) as LayerFacts;
  const file = path.join(dir, `${key}.tar`);
  if (!existsSync(file) || statSync(file).size !== facts.tarBytes) return undefined;
  return { ...facts, file, cached: true };
}

async function buildLayer(
  dir: string,
  key: string,
  tree: string,
  fill: (tree: string) => void | Promise<void>,
  ownerOf?: (rel: string) => { uid: number; gid: number } | undefined,
): Promise<LayerFacts> {
  const hit = cachedLayer(dir, key);
  if (hit) return hit;
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(tree, { recursive: true });
  try {
    await fill(tree);
    const written = await writeLayer(tree, path.join(dir, `${key}.tar`), ownerOf ? { ownerOf } : {});
    const facts: LayerFacts = { ...written, key, gzipBytes: await gzipSize(written.file), cached: false };
    writeFileSync(path.join(dir, `${key}.json`), `${JSON.stringify(facts, null, 2)}\n`);
    pruneOldLayers(dir, key);
    return facts;
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

/** Keeps the newest few layers of a kind (`base-*`, `app-*`): each is 50-150 MB. */
function pruneOldLayers(dir: string, keep: string, count = 3): void {
  const kind = keep.slice(0, keep.indexOf("-") + 1);
  const old = readdirSync(dir)
    .filter((f) => f.startsWith(kind) && f.endsWith(".json") && f !== `${keep}.json`)
    .map((f) => ({ key: f.slice(0, -5), mtime: statSync(path.join(dir, f)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime)
    .slice(count - 1);
  for (const { key } of old) {
    rmSync(path.join(dir, `${key}.json`), { force: true });
    rmSync(path.join(dir, `${key}.tar`), { force: true });
  }
}

/** Writes the image's archive unless the one there already holds this image under this ref. */
function writeImage(out: string, spec: ImageSpec, tag: string, layers: LayerFacts[]): BuiltImage {
  const ref = `${spec.repository}:${tag}`;
  const archiveSpec: DockerArchiveSpec = {
    repoTags: [ref],
    layers: layers.map((l) => l.file),
    config: spec.config,
    architecture: goArch(),
  };
  const diffIds = layers.map((l) => l.diffId);
  const imageId = `sha256:${createHash("sha256").update(imageConfigJson(archiveSpec, diffIds)).digest("hex")}`;
  const archive = path.join(out, `${spec.repository}_${tag}.tar`);
  const sidecar = `${archive}.json`;
  if (existsSync(archive) && existsSync(sidecar)) {
    const prev = JSON.parse(readFileSync(sidecar, "utf8")) as {
      ref: string;
      imageId: string;
      archiveBytes: number;
    };
    if (prev.ref === ref && prev.imageId === imageId && statSync(archive).size === prev.archiveBytes) {
      return { ref, archive, imageId, archiveBytes: prev.archiveBytes, config: spec.config };
    }
  }
  const written = writeDockerArchive(archive, archiveSpec);
  if (written.imageId !== imageId || written.diffIds.join() !== diffIds.join()) {
    throw new Error(`${archive}: the layers changed while the image was written; build again`);
  }
  writeFileSync(sidecar, `${JSON.stringify({ ref, imageId, archiveBytes: written.bytes }, null, 2)}\n`);
  return { ref, archive, imageId, archiveBytes: written.bytes, config: spec.config };
}

/** Builds both images (cached) and returns their archives and refs. */
export async function buildImages(options: BuildImagesOptions = {}): Promise<BuiltImages> {
  const t0 = Date.now();
  const root = options.projectRoot ?? PROJECT_ROOT;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const version = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string })
    .version;
  const tag = options.tag ?? version;
  const commit = options.commit ?? process.env.LIVEPEER_OPERATOR_COMMIT ?? gitCommit(root);
  if (!commit || !/^[0-9a-f]{7,40}(-dirty)?$/.test(commit)) {
    throw new Error(
      `the commit the image is built from is ${commit ? `'${commit}', not a git commit hash` : "unknown (no git checkout)"}: pass --commit $(git rev-parse HEAD) (docker build: --build-arg COMMIT=$(git rev-parse HEAD))`,
    );
  }
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(tag)) {
    throw new Error(`--tag '${tag}' is not an image tag: letters, digits, '_', '.', '-' (up to 128)`);
  }
  const cache = imagesCacheDir();
  const layerDir = path.join(cache, "layers");
  const out = path.resolve(options.out ?? cache);
  mkdirSync(layerDir, { recursive: true });
  mkdirSync(out, { recursive: true });
  const work = path.join(cache, `work-${process.pid}`);

  try {
    const node = findNodeRuntime(root);
    const packages = resolvePackages();
    const baseKey = `base-${await inputHash(
      root,
      filesUnder(root, ["src/dev/image/debian-rootfs.ts", "src/dev/image/layer.ts", "src/dev/image/tar.ts"]),
      { LAYER_FORMAT, arch: goArch(), node: await sha256OfFile(node.binary), packages },
    )}`;
    const base = await buildLayer(
      layerDir,
      baseKey,
      path.join(work, "base"),
      (tree) => {
        log(
          `[image] base layer: ${packages.map((p) => `${p.name} ${p.version}`).join(", ")}, Node ${node.version}`,
        );
        unpackPackages(downloadPackages(packages, path.join(cache, "debs"), log), tree);
        addSkeleton(tree);
        copyFileSync(node.binary, path.join(tree, "usr/local/bin/node"));
        chmodSync(path.join(tree, "usr/local/bin/node"), 0o755);
      },
      (rel) => (`/${rel}`.startsWith(NONROOT.home) ? { uid: NONROOT.uid, gid: NONROOT.gid } : undefined),
    );

    const appInputs = filesUnder(
      root,
      ["src", "deploy/crds", "package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json"],
      (rel) => rel.endsWith(".test.ts"),
    );
    const appKey = `app-${await inputHash(root, appInputs, { LAYER_FORMAT, node: node.version, commit })}`;
    const app = await buildLayer(layerDir, appKey, path.join(work, "app"), (tree) =>
      stageApp({ projectRoot: root, tree, node: node.binary, commit, log }),
    );

    const layers = [base, app];
    const operator = writeImage(out, operatorImage(version, commit), tag, layers);
    const simulator = writeImage(out, simulatorImage(version, commit), tag, layers);

    if (options.rootfs) {
      log(`[image] unpacking ${operator.ref} into ${options.rootfs}`);
      mkdirSync(options.rootfs, { recursive: true });
      unpackArchive(operator.archive, path.resolve(options.rootfs));
    }
    if (options.docker) {
      log(`[image] docker import into Docker ${await dockerDaemonVersion()}`);
      for (const image of [operator, simulator]) {
        image.docker = await dockerImport(
          layers.map((l) => l.file),
          image.ref,
          image.config,
        );
      }
    }
    return {
      operator,
      simulator,
      layers: { base, app },
      unpackedBytes: base.contentBytes + app.contentBytes,
      gzipBytes: base.gzipBytes + app.gzipBytes,
      commit,
      node: {
        version: node.version,
        ...(node.platformPackage ? { platformPackage: node.platformPackage } : {}),
      },
      seconds: (Date.now() - t0) / 1000,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export function summary(built: BuiltImages): string {
  const { base, app } = built.layers;
  const lines = [built.operator, built.simulator].map(
    (i) =>
      `${i.ref}  ${i.imageId}  archive ${mb(i.archiveBytes)}  ${i.archive}` +
      (i.docker ? `\n  docker import: ${i.docker.id} (${mb(i.docker.size)})` : ""),
  );
  lines.push(
    `size: unpacked ${mb(built.unpackedBytes)} (base ${mb(base.contentBytes)}, app ${mb(app.contentBytes)}); ` +
      `gzip-compressed ${mb(built.gzipBytes)}; both images share both layers`,
    `Node ${built.node.version}${built.node.platformPackage ? ` (${built.node.platformPackage})` : ""}; ` +
      `built in ${built.seconds.toFixed(1)} s (base layer ${base.cached ? "cached" : "built"}, app layer ${app.cached ? "cached" : "built"})`,
    `import into containerd: ctr -n k8s.io images import ${built.operator.archive}`,
  );
  return `${lines.join("\n")}\n`;
}

const usage = `Usage: node src/dev/image/build.ts [--out <dir>] [--tag <tag>] [--docker] [--rootfs <dir>]

Builds the livepeer-operator and livepeer-node-simulator images without a registry or Docker:
Debian's libc6/libgcc-s1/libstdc++6 (apt-get download + dpkg-deb -x), Node 24 from the 'node'
npm package, and the built app, written as docker-save archives (docker load, ctr import).

  --out <dir>     where the archives go (default: ${path.join("<cache>", "images")})
  --tag <tag>     tag of both images (default: package.json's version, the chart's appVersion)
  --commit <sha>  the commit recorded in the images (default: $LIVEPEER_OPERATOR_COMMIT, else git HEAD)
  --docker        also 'docker import' both images into the reachable Docker daemon
  --rootfs <dir>  also unpack the operator image's root filesystem there (the Dockerfile uses it)`;

async function main(argv: string[]): Promise<number> {
  let values: {
    out?: string;
    tag?: string;
    commit?: string;
    docker?: boolean;
    rootfs?: string;
    help?: boolean;
  };
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      options: {
        out: { type: "string" },
        tag: { type: "string" },
        commit: { type: "string" },
        docker: { type: "boolean" },
        rootfs: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${usage}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const built = await buildImages({
    ...(values.out ? { out: values.out } : {}),
    ...(values.tag ? { tag: values.tag } : {}),
    ...(values.commit ? { commit: values.commit } : {}),
    ...(values.docker ? { docker: true } : {}),
    ...(values.rootfs ? { rootfs: values.rootfs } : {}),
  });
  process.stdout.write(summary(built));
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`image build failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
