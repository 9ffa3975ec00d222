// The fake nodes of the local control plane, as data. Labels follow what NVIDIA's GPU Feature
// Discovery and GPU operator set on real nodes, so placement code meets what it meets in prod.
import type { V1Node } from "@kubernetes/client-node";

export interface FakeGpu {
  /** `nvidia.com/gpu.product`, e.g. `NVIDIA-GeForce-RTX-3090`. */
  product: string;
  count: number;
  memoryMiB: number;
  family: string;
  computeMajor: number;
  computeMinor: number;
  /** Hardware video encoders per GPU; 0 for A100/H100-class cards. */
  encoders?: number;
  /** Time-slicing: schedulable `nvidia.com/gpu` replicas per physical GPU (> 1 = shared). */
  replicasPerGpu?: number;
}

export interface FakeNodeSpec {
  name: string;
  cpu: string;
  memory: string;
  gpu?: FakeGpu;
  labels?: Record<string, string>;
  taints?: { key: string; value?: string; effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute" }[];
}

export const rtx3090: FakeGpu = {
  product: "NVIDIA-GeForce-RTX-3090",
  count: 2,
  memoryMiB: 24576,
  family: "ampere",
  computeMajor: 8,
  computeMinor: 6,
};

/** The default fleet: every class of node the operator must place (or refuse to place) work on. */
export const defaultFleet: FakeNodeSpec[] = [
  { name: "gpu-rtx3090-a", cpu: "32", memory: "128Gi", gpu: rtx3090 },
  { name: "gpu-rtx3090-b", cpu: "32", memory: "128Gi", gpu: rtx3090 },
  {
    name: "gpu-t4",
    cpu: "16",
    memory: "64Gi",
    gpu: {
      product: "Tesla-T4",
      count: 1,
      memoryMiB: 15360,
      family: "turing",
      computeMajor: 7,
      computeMinor: 5,
    },
  },
  {
    name: "gpu-a100",
    cpu: "64",
    memory: "512Gi",
    gpu: {
      product: "NVIDIA-A100-SXM4-40GB",
      count: 4,
      memoryMiB: 40960,
      family: "ampere",
      computeMajor: 8,
      computeMinor: 0,
      encoders: 0,
    },
  },
  {
    name: "gpu-t4-shared",
    cpu: "16",
    memory: "64Gi",
    gpu: {
      product: "Tesla-T4",
      count: 1,
      memoryMiB: 15360,
      family: "turing",
      computeMajor: 7,
      computeMinor: 5,
      replicasPerGpu: 4,
    },
  },
  { name: "cpu-only", cpu: "16", memory: "64Gi" },
];

export const FAKE_NODE_ANNOTATION = "kwok.x-k8s.io/node";

/** The labels GPU Feature Discovery (and the GPU operator) put on a node with these GPUs. */
export function gpuLabels(gpu: FakeGpu): Record<string, string> {
  const replicas = gpu.replicasPerGpu ?? 1;
  const shared = replicas > 1;
  const labels: Record<string, string> = {
    "nvidia.com/gpu.present": "true",
    "nvidia.com/gpu.deploy.device-plugin": "true",
    "nvidia.com/gpu.product": shared ? `${gpu.product}-SHARED` : gpu.product,
    "nvidia.com/gpu.count": String(gpu.count),
    "nvidia.com/gpu.replicas": String(gpu.count * replicas),
    "nvidia.com/gpu.memory": String(gpu.memoryMiB),
    "nvidia.com/gpu.family": gpu.family,
    "nvidia.com/gpu.compute.major": String(gpu.computeMajor),
    "nvidia.com/gpu.compute.minor": String(gpu.computeMinor),
    "nvidia.com/cuda.driver.major": "570",
    "nvidia.com/cuda.runtime.major": "12",
  };
  if (shared) labels["nvidia.com/gpu.sharing-strategy"] = "time-slicing";
  if (gpu.encoders !== undefined) labels["nvidia.com/gpu.engines.encoder"] = String(gpu.encoders);
  return labels;
}

/** Builds the Node object kwok will manage for a spec (status included: kwok keeps it alive). */
export function nodeObject(spec: FakeNodeSpec): V1Node {
  const gpuCount = spec.gpu ? spec.gpu.count * (spec.gpu.replicasPerGpu ?? 1) : 0;
  const resources: Record<string, string> = {
    cpu: spec.cpu,
    memory: spec.memory,
    pods: "110",
    "ephemeral-storage": "500Gi",
  };
  if (gpuCount > 0) resources["nvidia.com/gpu"] = String(gpuCount);
  const taints = [...(spec.taints ?? [])];
  if (spec.gpu) taints.push({ key: "nvidia.com/gpu", effect: "NoSchedule" });
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: spec.name,
      annotations: { [FAKE_NODE_ANNOTATION]: "fake", "node.alpha.kubernetes.io/ttl": "0" },
      labels: {
        "kubernetes.io/hostname": spec.name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "node.kubernetes.io/instance-type": spec.gpu ? "gpu" : "cpu",
        type: "kwok",
        ...(spec.gpu ? gpuLabels(spec.gpu) : {}),
        ...spec.labels,
      },
    },
    spec: { taints },
    status: {
      allocatable: resources,
      capacity: resources,
      nodeInfo: {
        architecture: "amd64",
        operatingSystem: "linux",
        kubeletVersion: "fake",
        kubeProxyVersion: "fake",
        containerRuntimeVersion: "kwok",
        kernelVersion: "",
        osImage: "",
        bootID: "",
        machineID: "",
        systemUUID: "",
      },
    },
  };
}

/** Label and taint that fence a test's node pool off from every other test's pods. */
export const POOL_LABEL = "livepeer.org/test-pool";
