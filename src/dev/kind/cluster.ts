// The kind cluster: created from our config (1 control plane + 2 GPU workers), loaded with our
// image archives, deleted on every exit. kind and kubectl run through `inNetns` (the API server's
// port is forwarded on the Docker daemon's 127.0.0.1, inside our namespace when the Docker is ours).
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { dump } from "js-yaml";
import { rtx3090 } from "../cluster/nodes.ts";
import { kindClusterConfig, kindWorkerName, type WorkerMount } from "./cluster-config.ts";
import { must, run } from "./exec.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
export const GPUS_PER_WORKER = 2;
export const WORKERS = 2;

export interface KindCluster {
  name: string;
  kubeconfig: string;
  /** `kind ...` with the sandbox wrapper's PATH when it is needed. */
  kind(args: string[]): Promise<string>;
  kubectl(args: string[], input?: string): Promise<string>;
  delete(): Promise<void>;
}

export interface ClusterTools {
  kind: string;
  kubectl: string;
  inNetns(argv: readonly string[]): string[];
  /** Whether kind's `docker run --privileged` needs the sandbox wrapper (preflight). */
  sandboxDocker: boolean;
}

/** A directory whose `docker` rewrites --privileged for restricted sandboxes (see sandbox-docker.ts). */
async function sandboxDockerDir(work: string): Promise<string> {
  const realDocker = (await must(["sh", "-c", "command -v docker"])).trim();
  const dir = path.join(work, "sandbox-docker");
  mkdirSync(dir, { recursive: true });
  const script = path.join(dir, "docker");
  const cli = path.join(here, "sandbox-docker-cli.ts");
  writeFileSync(script, `#!/bin/sh\nexec "${process.execPath}" "${cli}" "${realDocker}" "$@"\n`);
  chmodSync(script, 0o755);
  return dir;
}

/** Created lazily: `delete()` is safe to call whatever happened (kind cleans up a half-made cluster). */
export async function kindCluster(tools: ClusterTools, work: string): Promise<KindCluster> {
  const name = `lpo-e2e-${process.pid}`;
  const kubeconfig = path.join(work, "kubeconfig");
  const env = tools.sandboxDocker
    ? { ...process.env, PATH: `${await sandboxDockerDir(work)}${path.delimiter}${process.env.PATH}` }
    : process.env;
  let created = false;
  const kind = (args: string[]) => must(tools.inNetns([tools.kind, ...args]), env);
  return {
    name,
    kubeconfig,
    kind: async (args) => {
      if (args[0] === "create") created = true;
      return kind(args);
    },
    kubectl: (args, input) =>
      must(tools.inNetns([tools.kubectl, `--kubeconfig=${kubeconfig}`, ...args]), env, input),
    delete: async () => {
      if (!created) return;
      created = false;
      await run(
        tools.inNetns([tools.kind, "delete", "cluster", "--name", name, "--kubeconfig", kubeconfig]),
        env,
      );
    },
  };
}

export async function createCluster(
  cluster: KindCluster,
  nodeImage: string,
  work: string,
  workerMounts: WorkerMount[] = [],
): Promise<void> {
  const configFile = path.join(work, "kind.yaml");
  const gpu = { ...rtx3090, count: GPUS_PER_WORKER };
  writeFileSync(
    configFile,
    dump(kindClusterConfig({ name: cluster.name, workers: WORKERS, gpu, workerMounts })),
  );
  await cluster.kind([
    "create",
    "cluster",
    "--name",
    cluster.name,
    "--config",
    configFile,
    "--image",
    nodeImage,
    "--kubeconfig",
    cluster.kubeconfig,
    "--wait",
    "180s",
  ]);
}

/** The workers' node names: our pods never go to the control plane (tainted). */
export const workerNodes = (cluster: KindCluster) =>
  Array.from({ length: WORKERS }, (_, i) => kindWorkerName(cluster.name, i + 1));

/** Into the workers only: nothing of ours runs on the control plane, and each archive costs a copy per node. */
export async function loadImages(
  cluster: KindCluster,
  archives: string[],
  log: (l: string) => void,
): Promise<void> {
  const nodes = workerNodes(cluster).join(",");
  for (const archive of archives) {
    log(`kind load image-archive ${path.basename(archive)} --nodes ${nodes}`);
    await cluster.kind(["load", "image-archive", archive, "--name", cluster.name, "--nodes", nodes]);
  }
}
