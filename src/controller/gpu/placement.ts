// Where a node pod may run: GPU limits, node affinity on GPU Feature Discovery labels, the
// GPU taint's toleration and the runtime class. The real kube-scheduler does the placing.
import type { V1Affinity, V1NodeSelectorRequirement, V1PodSpec, V1Toleration } from "@kubernetes/client-node";
import { requirementsMatch } from "../../kube/label-selector.ts";
import { ENCODERLESS_PRODUCTS } from "./products.ts";

export interface GpuRequest {
  /** GPUs per pod; 0 = CPU only. */
  count: number;
  /** Pin to one `nvidia.com/gpu.product`. */
  product?: string;
  /** Video transcoding needs a hardware encoder; AI-only work does not. */
  needsEncoder: boolean;
  runtimeClassName?: string;
}

export interface PodPlacement {
  limits: Record<string, string>;
  affinity?: V1Affinity;
  tolerations: V1Toleration[];
  runtimeClassName?: string;
  /** `-nvidia` value: the devices the plugin gave the container, numbered from 0. */
  nvidiaDevices?: string;
}

/** The extended resource the NVIDIA device plugin advertises and a GPU pod requests. */
export const GPU_RESOURCE = "nvidia.com/gpu";

export const GPU_TOLERATION: V1Toleration = {
  key: GPU_RESOURCE,
  operator: "Exists",
  effect: "NoSchedule",
};

export function gpuNodeRequirements(req: GpuRequest): V1NodeSelectorRequirement[] {
  const reqs: V1NodeSelectorRequirement[] = [
    { key: "nvidia.com/gpu.present", operator: "In", values: ["true"] },
  ];
  if (req.product) reqs.push({ key: "nvidia.com/gpu.product", operator: "In", values: [req.product] });
  if (req.needsEncoder) {
    reqs.push({ key: "nvidia.com/gpu.engines.encoder", operator: "NotIn", values: ["0"] });
    if (!req.product)
      reqs.push({ key: "nvidia.com/gpu.product", operator: "NotIn", values: ENCODERLESS_PRODUCTS });
  }
  return reqs;
}

export function placementFor(req: GpuRequest): PodPlacement {
  if (req.count <= 0) return { limits: {}, tolerations: [] };
  return {
    limits: { [GPU_RESOURCE]: String(req.count) },
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: gpuNodeRequirements(req) }],
        },
      },
    },
    tolerations: [GPU_TOLERATION],
    ...(req.runtimeClassName ? { runtimeClassName: req.runtimeClassName } : {}),
    nvidiaDevices: nvidiaDevices(req.count),
  };
}

/** `-nvidia 0,...,N-1`: inside a pod the device plugin renumbers the allocated GPUs from 0. */
export function nvidiaDevices(count: number): string {
  return Array.from({ length: count }, (_, i) => String(i)).join(",");
}

/** Whether a node's labels satisfy every requirement. */
export function labelsMatch(labels: Record<string, string>, reqs: V1NodeSelectorRequirement[]): boolean {
  return requirementsMatch(labels, reqs);
}

/**
 * A runner pod's scheduling fields (batch and live AI runners alike): the placement's affinity,
 * its tolerations and the Orchestrator's pool tolerations, the pool's nodeSelector, the runtime
 * class; no service account token and no service links (a runner needs neither).
 */
export function runnerPodScheduling(
  placement: PodPlacement,
  pool: { tolerations?: V1Toleration[]; nodeSelector?: Record<string, string> },
): Pick<
  V1PodSpec,
  | "affinity"
  | "tolerations"
  | "nodeSelector"
  | "runtimeClassName"
  | "automountServiceAccountToken"
  | "enableServiceLinks"
> {
  const tolerations = [...placement.tolerations, ...(pool.tolerations ?? [])];
  return {
    ...(placement.affinity ? { affinity: placement.affinity } : {}),
    ...(tolerations.length ? { tolerations } : {}),
    ...(pool.nodeSelector ? { nodeSelector: pool.nodeSelector } : {}),
    ...(placement.runtimeClassName ? { runtimeClassName: placement.runtimeClassName } : {}),
    automountServiceAccountToken: false,
    enableServiceLinks: false,
  };
}
