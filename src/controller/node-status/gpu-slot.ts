// What a node resource's rollout knows of the GPUs around it, from the controller's Node and Pod
// caches (shared by the Orchestrator and Gateway reconcilers): which of its StatefulSets request
// GPUs, which pods wait for GPUs, and whether a new pod of a StatefulSet's planned template would
// find its GPUs free (gpu/capacity.ts). The Pod cache holds the operator's own pods only: a GPU a
// pod of another workload holds is counted free, so a slot may be seen where there is none (the
// replacement then waits Pending, as before this check).
import type { V1PodSpec } from "@kubernetes/client-node";
import { Nodes, Pods } from "../../kube/index.ts";
import {
  GPU_RESOURCE,
  type GpuNode,
  type GpuSlot,
  type GpuUse,
  gpuSlotFor,
  gpusRequested,
} from "../gpu/index.ts";
import type { CacheReader } from "../runtime/index.ts";
import type { NodeFacts, PodFacts } from "./facts.ts";
import { gpuStatefulSetsOf, gpuWaitersAmong } from "./pod-rollout.ts";

/** A planned StatefulSet: its name and the pod template its new pods get. */
export interface PlannedStatefulSet {
  metadata?: { name?: string };
  spec?: { template: { spec?: V1PodSpec } };
}

export function gpuNodeOf(n: NodeFacts): GpuNode {
  return {
    name: n.metadata.name ?? "",
    labels: n.metadata.labels ?? {},
    allocatable: Number(n.status?.allocatable?.[GPU_RESOURCE] ?? 0) || 0,
    taints: n.spec?.taints,
    unschedulable: n.spec?.unschedulable,
  };
}

/** A pod bound to a node and not finished holds the GPUs it requests (terminating ones too). */
export function gpuUseOf(p: PodFacts): GpuUse | undefined {
  const node = p.spec?.nodeName;
  const gpus = gpusRequested(p.spec ?? {});
  if (!node || !gpus || p.status?.phase === "Succeeded" || p.status?.phase === "Failed") return undefined;
  return { node, gpus, uid: p.metadata?.uid };
}

/** Whether a new pod of `statefulSet`'s planned template would find its GPUs once `leaving` is gone. */
export function gpuSlotAmong(
  planned: readonly PlannedStatefulSet[],
  nodes: readonly NodeFacts[],
  pods: readonly PodFacts[],
): (statefulSet: string, leaving: PodFacts | undefined) => GpuSlot {
  return (statefulSet, leaving) => {
    const spec = planned.find((s) => s.metadata?.name === statefulSet)?.spec?.template.spec ?? {
      containers: [],
    };
    const needs = {
      gpus: gpusRequested(spec),
      nodeSelector: spec.nodeSelector,
      nodeSelectorTerms:
        spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
      tolerations: spec.tolerations,
    };
    const uses = pods.map(gpuUseOf).filter((u): u is GpuUse => !!u);
    return gpuSlotFor(needs, nodes.map(gpuNodeOf), uses, leaving ? gpuUseOf(leaving) : undefined);
  };
}

/** The GPU facts planPodRollout takes, read from the caches only when a GPU pod is about to go. */
export function rolloutGpuFacts(planned: readonly PlannedStatefulSet[], cache: CacheReader) {
  return {
    gpuStatefulSets: gpuStatefulSetsOf(planned),
    // Every cached pod: read only when an idle GPU pod is about to go.
    gpuWaiters: () => gpuWaitersAmong(cache.list<PodFacts>(Pods)),
    gpuSlot: (statefulSet: string, leaving: PodFacts | undefined) =>
      gpuSlotAmong(planned, cache.list<NodeFacts>(Nodes), cache.list<PodFacts>(Pods))(statefulSet, leaving),
  };
}
