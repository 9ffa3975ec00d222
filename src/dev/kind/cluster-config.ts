// The kind cluster the e2e suite runs on: one control-plane node and two GPU workers, labelled as
// GPU Feature Discovery labels a node with its GPUs (the fake device plugin's DaemonSet selects
// them and the operator places node pods by them). Pure: spec in, kind's config out.
import path from "node:path";
import { type FakeGpu, gpuLabels } from "../cluster/nodes.ts";

export const KIND_CLUSTER_API = "kind.x-k8s.io/v1alpha4";

/**
 * The kubelet refuses cgroup v1 hosts by default since Kubernetes 1.35; some CI and sandbox hosts
 * (this project's development machines) still are. Allowing it changes nothing on cgroup v2.
 */
export const ALLOW_CGROUP_V1_PATCH = [
  "apiVersion: kubelet.config.k8s.io/v1beta1",
  "kind: KubeletConfiguration",
  "failCgroupV1: false",
  "",
].join("\n");

/** A host directory seen by every worker node at `containerPath` (kind's extraMounts). */
export interface WorkerMount {
  hostPath: string;
  containerPath: string;
}

export interface KindClusterOptions {
  name: string;
  workers: number;
  gpu: FakeGpu;
  /** Host directories the workers' pods can use as hostPath volumes that outlive them. */
  workerMounts?: WorkerMount[];
}

/** The name kind gives the n-th worker node (1-based): `<cluster>-worker`, `<cluster>-worker2`, ... */
export function kindWorkerName(cluster: string, n: number): string {
  return `${cluster}-worker${n === 1 ? "" : n}`;
}

export function kindClusterConfig(o: KindClusterOptions) {
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(o.name) || o.name.length > 40) {
    throw new Error(
      `kind cluster name '${o.name}': use lowercase letters, digits and '-', at most 40 characters`,
    );
  }
  if (!Number.isInteger(o.workers) || o.workers < 1) {
    throw new Error(
      `workers: ${o.workers}: give at least 1 worker (GPU pods never run on the control plane)`,
    );
  }
  for (const m of o.workerMounts ?? []) {
    if (!path.isAbsolute(m.hostPath) || !path.isAbsolute(m.containerPath)) {
      throw new Error(
        `workerMounts: ${m.hostPath} -> ${m.containerPath}: give absolute paths (kind resolves relative ones against its own working directory)`,
      );
    }
  }
  return {
    kind: "Cluster",
    apiVersion: KIND_CLUSTER_API,
    name: o.name,
    kubeadmConfigPatches: [ALLOW_CGROUP_V1_PATCH],
    nodes: [
      { role: "control-plane" },
      ...Array.from({ length: o.workers }, () => ({
        role: "worker",
        labels: gpuLabels(o.gpu),
        ...(o.workerMounts?.length && { extraMounts: o.workerMounts }),
      })),
    ],
  };
}
