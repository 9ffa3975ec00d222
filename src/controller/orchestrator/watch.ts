// Pods and Nodes are not owned by an Orchestrator, but decide its status: pods map back to their
// Orchestrator by the instance label, and a node change may change every session limit.
import type { CacheSpec, KubeObject, ObjectKey, WatchSpec } from "../runtime/index.ts";
import { keyFor } from "../runtime/index.ts";
import { Nodes, nodeFacts, Orchestrators, podFacts } from "./resource.ts";

export const Pods = { group: "", version: "v1", plural: "pods", kind: "Pod", namespaced: true } as const;
export const INSTANCE_INDEX = "livepeerInstance";
const INSTANCE_LABEL = "app.kubernetes.io/instance";

function instanceKey(pod: KubeObject): ObjectKey[] {
  const labels = pod.metadata?.labels ?? {};
  if (labels["app.kubernetes.io/managed-by"] !== "livepeer-operator" || !labels[INSTANCE_LABEL]) return [];
  return [keyFor(pod.metadata?.namespace, labels[INSTANCE_LABEL])];
}

export const orchestratorCaches: CacheSpec[] = [
  { resource: Pods, transform: podFacts, indexes: { [INSTANCE_INDEX]: instanceKey } },
  { resource: Nodes, transform: nodeFacts },
];

export const orchestratorWatches: WatchSpec[] = [
  { resource: Pods, map: (pod) => instanceKey(pod) },
  {
    resource: Nodes,
    // A node joining or changing its GPU labels can change any Orchestrator's limit.
    map: (_node, cache) =>
      cache.list(Orchestrators).map((o) => keyFor(o.metadata?.namespace, o.metadata?.name ?? "")),
  },
];
