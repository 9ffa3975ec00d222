// Builds the kind node image here, with no registry: assemble-rootfs.sh makes the Debian root
// filesystem (mmdebstrap) with kind's node files and our Go-built Kubernetes binaries; then the
// images kubeadm and kind start are written as docker archives into /kind/images (imported into
// containerd at boot by lpo-kind-images.service), our CNI manifest goes where kind reads it, and
// the whole tree is `docker import`ed. Cached by its inputs: the image's tag is a hash of the
// pinned versions, the kind module's node files, the script and the recipe, so it is built once.
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { pauseImageArchive } from "../../cluster/real-node/images.ts";
import { writeDockerArchive } from "../../image/archive.ts";
import { dockerImport } from "../../image/docker-import.ts";
import { filesUnder, inputHash } from "../../image/input-hash.ts";
import { tar } from "../../image/tar.ts";
import { cacheDir, ensureBinaries, versions } from "../../toolchain/binaries.ts";
import { cniManifest, IMAGE_IMPORT_UNIT, nodeImageImages } from "./recipe.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const REPOSITORY = "livepeer-operator/kind-node";

/** Whether a node image reference is one of ours (no local-path-provisioner, our CNI) or a stock one. */
export const isOurNodeImage = (ref: string): boolean => ref.startsWith(`${REPOSITORY}:`);
const IMPORT_UNIT = "lpo-kind-images.service";

function sh(cmd: string, args: string[], log?: (l: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d: Buffer) => {
      err += d;
      if (log) for (const line of d.toString().split("\n")) if (line.startsWith("[node-image]")) log(line);
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(out)
        : reject(
            new Error(`${cmd} ${args.join(" ")} failed (${code}):\n${err.split("\n").slice(-20).join("\n")}`),
          ),
    );
  });
}

/** The pinned kind module's source (its node files), from the Go module cache. */
async function kindModuleDir(): Promise<string> {
  const out = await sh("go", ["mod", "download", "-json", `sigs.k8s.io/kind@${versions.kind}`]);
  const dir = (JSON.parse(out) as { Dir?: string }).Dir;
  if (!dir) throw new Error(`go mod download sigs.k8s.io/kind@${versions.kind} gave no directory`);
  return dir;
}

async function imageExists(ref: string): Promise<boolean> {
  return new Promise((resolve) => execFile("docker", ["image", "inspect", ref], (err) => resolve(!err)));
}

/** The layer tar inside a docker archive of one layer (our pause archive), extracted to `dir`. */
async function onlyLayerOf(archive: string, dir: string): Promise<string> {
  await sh("tar", ["-x", "-C", dir, "-f", archive]);
  const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8")) as {
    Layers: string[];
  }[];
  const layer = manifest[0]?.Layers[0];
  if (!layer || manifest[0]!.Layers.length !== 1) throw new Error(`${archive}: expected one layer`);
  return path.join(dir, layer);
}

export interface NodeImage {
  ref: string;
  built: boolean;
}

export async function ensureNodeImage(log: (l: string) => void): Promise<NodeImage> {
  const bin = await ensureBinaries(
    [
      "kubelet",
      "kubeadm",
      "kubectl",
      "kube-proxy",
      "kube-apiserver",
      "kube-controller-manager",
      "kube-scheduler",
      "etcd",
      "coredns",
    ],
    log,
  );
  const kindDir = await kindModuleDir();
  const kindFiles = filesUnder(kindDir, ["images/base/files"]);
  const ownFiles = filesUnder(here, ["assemble-rootfs.sh", "cgroup-rw.sh", "recipe.ts", "build.ts"]);
  const key = (
    await inputHash(here, ownFiles, {
      // Only the versions the image is made of: another pin (helm, promtool, ...) changes nothing here.
      versions: {
        kubernetes: versions.kubernetes,
        etcd: versions.etcd,
        coredns: versions.coredns,
        kind: versions.kind,
      },
      kindFiles: await inputHash(kindDir, kindFiles, {}),
    })
  ).slice(0, 16);
  const ref = `${REPOSITORY}:${versions.kubernetes}-${key}`;
  if (await imageExists(ref)) return { ref, built: false };

  const t0 = Date.now();
  log(`building the kind node image ${ref} (Debian rootfs, our Kubernetes ${versions.kubernetes} binaries)`);
  const work = mkdtempSync(path.join(cacheDir(), "kind-node-build-"));
  try {
    const binDir = path.join(work, "bin");
    mkdirSync(binDir);
    for (const name of ["kubelet", "kubeadm", "kubectl", "kube-proxy"] as const)
      symlinkSync(bin[name], path.join(binDir, name));
    const root = path.join(work, "rootfs");
    await sh(
      "nice",
      ["-n", "19", path.join(here, "assemble-rootfs.sh"), root, kindDir, binDir, versions.kubernetes],
      log,
    );

    // The node's root as an image of its own (kube-proxy, our CNI), taken before /kind/images fills.
    const rootLayer = path.join(work, "rootfs-layer.tar");
    // Without what kube-proxy and the CNI never run (the kubelet, kubeadm): about 130 MB less.
    await sh("tar", [
      "--numeric-owner",
      "--exclude=./usr/bin/kubelet",
      "--exclude=./usr/bin/kubeadm.real",
      "-C",
      root,
      "-cf",
      rootLayer,
      ".",
    ]);
    const pauseDir = path.join(work, "pause");
    mkdirSync(pauseDir);
    const pauseLayer = await onlyLayerOf(pauseImageArchive(), pauseDir);
    const images = path.join(root, "kind/images");
    for (const image of nodeImageImages(versions)) {
      const src = image.source;
      const layer =
        src.kind === "pause"
          ? pauseLayer
          : src.kind === "node-rootfs"
            ? rootLayer
            : tar([
                {
                  path: `usr/local/bin/${src.binary}`,
                  content: readFileSync(bin[src.binary as keyof typeof bin]),
                  mode: 0o755,
                },
              ]);
      const config =
        src.kind === "pause"
          ? { entrypoint: ["/pause"], user: "65535:65535" }
          : image.entrypoint
            ? { entrypoint: image.entrypoint }
            : {};
      writeDockerArchive(path.join(images, image.file), { repoTags: image.tags, layers: [layer], config });
    }
    rmSync(rootLayer);
    writeFileSync(path.join(root, "kind/manifests/default-cni.yaml"), cniManifest());
    writeFileSync(path.join(root, "etc/systemd/system", IMPORT_UNIT), IMAGE_IMPORT_UNIT);
    const wants = path.join(root, "etc/systemd/system/multi-user.target.wants");
    mkdirSync(wants, { recursive: true });
    symlinkSync(`/etc/systemd/system/${IMPORT_UNIT}`, path.join(wants, IMPORT_UNIT));

    const nodeLayer = path.join(work, "node.tar");
    await sh("tar", ["--numeric-owner", "-C", root, "-cf", nodeLayer, "."]);
    rmSync(root, { recursive: true, force: true });
    const { size } = await dockerImport([nodeLayer], ref, {
      entrypoint: ["/kind/bin/lpo-cgroup-rw.sh", "/usr/local/bin/entrypoint", "/sbin/init"],
      env: ["container=docker"],
    });
    log(
      `built ${ref} in ${((Date.now() - t0) / 1000).toFixed(0)} s: ${(size / 1e6).toFixed(0)} MB, ` +
        `preloaded ${nodeImageImages(versions)
          .flatMap((i) => i.tags)
          .join(" ")}`,
    );
    return { ref, built: true };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// `node src/dev/kind/node-image/build.ts`: builds (or finds) the image and prints its reference.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureNodeImage((l) => process.stderr.write(`[kind] ${l}\n`)).then(
    (image) => process.stdout.write(`${image.ref}\n`),
    (err: Error) => {
      process.stderr.write(`kind node image build failed: ${err.message}\n`);
      process.exit(1);
    },
  );
}
