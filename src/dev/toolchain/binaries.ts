// Finds the control-plane binaries (an env-named directory, then the cache, then PATH when the
// version matches) and builds what is missing from the Go module proxy, showing progress.
import { spawn, spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { withCacheLock } from "./cache-lock.ts";

// The pinned versions and the build script stay in the source tree (also when running from dist/).
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const here = path.join(packageRoot, "src", "dev", "toolchain");

export interface Versions {
  kubernetes: string;
  etcd: string;
  kwok: string;
  helm: string;
  kind: string;
  promtool: string;
  coredns: string;
  /**
   * The stock kind node image where registries answer (users' machines, GitHub): one the pinned
   * kind release published, by digest as kind's release notes require (same Kubernetes minor).
   */
  kindNodeImage: string;
}

export const versions: Versions = JSON.parse(readFileSync(path.join(here, "versions.json"), "utf8"));

export type BinaryName =
  | "etcd"
  | "kube-apiserver"
  | "kube-controller-manager"
  | "kube-scheduler"
  | "kubectl"
  | "kwok"
  | "helm"
  | "kubelet"
  | "kube-proxy"
  | "kubeadm"
  | "coredns"
  | "kind"
  | "promtool";

/** Which build component provides each binary. */
const componentOf: Record<BinaryName, { component: string; version: keyof Versions }> = {
  etcd: { component: "etcd", version: "etcd" },
  "kube-apiserver": { component: "kubernetes", version: "kubernetes" },
  "kube-controller-manager": { component: "kubernetes", version: "kubernetes" },
  "kube-scheduler": { component: "kubernetes", version: "kubernetes" },
  kubectl: { component: "kubernetes", version: "kubernetes" },
  kwok: { component: "kwok", version: "kwok" },
  helm: { component: "helm", version: "helm" },
  // Built on demand: only a real node (cluster up --real-node, its tests) needs it.
  kubelet: { component: "kubelet", version: "kubernetes" },
  // On demand too: a real node whose pods reach Services (the API server's included) runs it.
  "kube-proxy": { component: "kube-proxy", version: "kubernetes" },
  // On demand: only the kind node image (src/dev/kind/node-image) needs it.
  kubeadm: { component: "kubeadm", version: "kubernetes" },
  // On demand: the kind node image's cluster DNS.
  coredns: { component: "coredns", version: "coredns" },
  // On demand: only the kind tier (`npm run test:kind`) needs it.
  kind: { component: "kind", version: "kind" },
  // On demand: the chart's tests lint and unit-test its alert rules with it.
  promtool: { component: "promtool", version: "promtool" },
};

/** Where built binaries are kept: outside the repo, shared by every clone on the machine. */
export function cacheDir(): string {
  if (process.env.LIVEPEER_OPERATOR_CACHE) return path.resolve(process.env.LIVEPEER_OPERATOR_CACHE);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  return path.join(base, "livepeer-operator");
}

function componentDir(name: BinaryName): string {
  const { component, version } = componentOf[name];
  return path.join(cacheDir(), "bin", `${component}-${versions[version]}`);
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const file = path.join(dir, name);
    if (dir && executable(file)) return file;
  }
  return undefined;
}

/** A binary on PATH is used only when it reports the pinned version (tests rely on exact behaviour). */
function reportsVersion(file: string, version: string): boolean {
  const r = spawnSync(file, ["version", "--client"], { encoding: "utf8", timeout: 10_000 });
  const r2 = r.status === 0 ? r : spawnSync(file, ["--version"], { encoding: "utf8", timeout: 10_000 });
  return `${r2.stdout}${r2.stderr}`.includes(version);
}

/** Resolves a binary without building; undefined when it must be built first. */
export function findBinary(name: BinaryName): string | undefined {
  const envDir = process.env.LIVEPEER_OPERATOR_BIN_DIR;
  if (envDir && executable(path.join(envDir, name))) return path.join(envDir, name);
  const cached = path.join(componentDir(name), name);
  if (existsSync(path.join(componentDir(name), ".complete")) && executable(cached)) return cached;
  const fromPath = onPath(name);
  if (fromPath && reportsVersion(fromPath, versions[componentOf[name].version])) return fromPath;
  return undefined;
}

/** The directory holding kwok's stage and CRD files shipped with its module. */
export function kwokDataDir(): string {
  return componentDir("kwok");
}

/**
 * Returns absolute paths of the given binaries, building any that are missing. A cold build of
 * everything takes about 25 minutes on 2 cores; progress lines go to `progress` (stderr by default).
 */
export async function ensureBinaries<N extends BinaryName>(
  names: readonly N[],
  progress: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<Record<N, string>> {
  const missingNow = () => {
    const missing = new Set<string>();
    for (const name of names) if (!findBinary(name)) missing.add(componentOf[name].component);
    // kwok's data (stages, CRDs) comes from the cache even when the binary comes from elsewhere.
    if (names.includes("kwok" as N) && !existsSync(path.join(kwokDataDir(), "crds"))) missing.add("kwok");
    return [...missing];
  };
  if (missingNow().length > 0) {
    await withCacheLock(path.join(cacheDir(), "bin", ".build.lock"), "toolchain", progress, async () => {
      const missing = missingNow(); // another process may have built them while we waited
      if (missing.length === 0) return;
      progress(
        `[toolchain] building ${missing.join(", ")} from the Go module proxy into ${cacheDir()} (cached for later runs)`,
      );
      await runBuild(missing, progress);
    });
  }
  const out = {} as Record<N, string>;
  for (const name of names) {
    const file = findBinary(name);
    if (!file) throw new Error(`${name} is still missing after the build; see the build output above`);
    out[name] = file;
  }
  return out;
}

function runBuild(components: string[], progress: (line: string) => void): Promise<void> {
  const script = path.join(here, "build-binaries.sh");
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [script, path.join(cacheDir(), "bin"), ...components], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let tail = "";
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-4000);
      for (const line of text.split("\n")) if (line.startsWith("[build]")) progress(line);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve()
        : reject(
            new Error(
              `building ${components.join(", ")} failed (exit ${code}). Is Go >= 1.25 installed and the Go module proxy reachable? Last output:\n${tail}`,
            ),
          ),
    );
  });
}
