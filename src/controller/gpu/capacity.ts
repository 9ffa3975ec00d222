// Whether a new GPU pod would find a place: the free GPUs (allocatable nvidia.com/gpu minus what
// the pods bound to the node request) on the nodes its template may run on, as the scheduler's
// node affinity, nodeSelector, taint and resource checks would see them. Pure. A rollout asks
// before it deletes a pod whose replacement needs a new GPU slot (node-status/rollout-policy.ts).
import type { V1NodeSelectorTerm, V1Toleration } from "@kubernetes/client-node";
import { GPU_RESOURCE, labelsMatch } from "./placement.ts";

/** What of a Node decides whether a GPU pod fits on it. */
export interface Taint {
  key: string;
  value?: string | undefined;
  effect: string;
}

export interface GpuNode {
  name: string;
  labels: Record<string, string>;
  /** status.allocatable nvidia.com/gpu (0 when absent). */
  allocatable: number;
  taints?: readonly Taint[] | undefined;
  /** Cordoned: no new pod lands there. */
  unschedulable?: boolean | undefined;
}

/** A pod bound to a node, holding GPUs until it is gone (a terminating pod still holds them). */
export interface GpuUse {
  node: string;
  gpus: number;
  uid?: string | undefined;
}

/** The scheduling fields of a pod template that decide its node, and the GPUs it requests. */
export interface GpuPodNeeds {
  gpus: number;
  nodeSelector?: Record<string, string> | undefined;
  /** requiredDuringSchedulingIgnoredDuringExecution: any one term must match. */
  nodeSelectorTerms?: readonly V1NodeSelectorTerm[] | undefined;
  tolerations?: readonly V1Toleration[] | undefined;
}

export interface NodeFree {
  node: string;
  free: number;
  allocatable: number;
}

export interface GpuSlot {
  fits: boolean;
  /** GPUs the new pod requests. */
  need: number;
  /** The nodes its template may run on, most free GPUs first (the leaving pod's counted as free). */
  candidates: NodeFree[];
  /** The leaving pod's node still takes the new template and gets its GPUs back. */
  ownSlot: boolean;
}

/** GPUs a pod spec's containers request (limits imply requests for an extended resource). */
export function gpusRequested(spec: {
  containers?: readonly {
    resources?: { limits?: Record<string, unknown>; requests?: Record<string, unknown> };
  }[];
}): number {
  return (spec.containers ?? []).reduce((sum, c) => {
    const v = c.resources?.limits?.[GPU_RESOURCE] ?? c.resources?.requests?.[GPU_RESOURCE];
    return sum + (Number(v ?? 0) || 0);
  }, 0);
}

const tolerates = (tolerations: readonly V1Toleration[], taints: readonly Taint[]) =>
  taints.every(
    (t) =>
      // PreferNoSchedule only steers; NoSchedule and NoExecute keep a pod off.
      t.effect === "PreferNoSchedule" ||
      tolerations.some(
        (o) =>
          (!o.effect || o.effect === t.effect) &&
          (o.key === undefined || o.key === "" ? o.operator === "Exists" : o.key === t.key) &&
          (o.operator === "Exists" || (o.value ?? "") === (t.value ?? "")),
      ),
  );

/** Whether the scheduler may put a pod with these needs on the node (resources aside). */
export function nodeTakes(needs: GpuPodNeeds, node: GpuNode): boolean {
  if (node.unschedulable) return false;
  if (!Object.entries(needs.nodeSelector ?? {}).every(([k, v]) => node.labels[k] === v)) return false;
  const terms = needs.nodeSelectorTerms ?? [];
  // matchFields (metadata.name only, in practice) with In/NotIn, as the scheduler reads it.
  const fields = { "metadata.name": node.name };
  if (
    terms.length &&
    !terms.some(
      (t) =>
        (t.matchExpressions?.length || t.matchFields?.length) &&
        labelsMatch(node.labels, t.matchExpressions ?? []) &&
        labelsMatch(fields, t.matchFields ?? []),
    )
  )
    return false;
  return tolerates(needs.tolerations ?? [], node.taints ?? []);
}

/**
 * Whether a pod with `needs` would fit once `leaving` (the pod it replaces, if any) is gone: a node
 * its template may run on with that many GPUs free. The leaving pod's own node, when it still
 * matches and it held at least as many, always fits: the replacement gets its own GPUs back.
 */
export function gpuSlotFor(
  needs: GpuPodNeeds,
  nodes: readonly GpuNode[],
  uses: readonly GpuUse[],
  leaving?: GpuUse,
): GpuSlot {
  const candidates = nodes
    .filter((n) => nodeTakes(needs, n))
    .map((n) => {
      const used = uses
        .filter((u) => u.node === n.name && (u.uid === undefined || u.uid !== leaving?.uid))
        .reduce((sum, u) => sum + u.gpus, 0);
      return { node: n.name, free: Math.max(0, n.allocatable - used), allocatable: n.allocatable };
    })
    .sort((a, b) => b.free - a.free || a.node.localeCompare(b.node));
  const ownSlot = !!leaving && leaving.gpus >= needs.gpus && candidates.some((c) => c.node === leaving.node);
  const fits = needs.gpus <= 0 || ownSlot || candidates.some((c) => c.free >= needs.gpus);
  return { fits, need: needs.gpus, candidates, ownSlot };
}
