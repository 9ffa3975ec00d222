// Pods and Nodes are not owned by an Orchestrator, but decide its status: pods map back to their
// Orchestrator by the instance label, and a node change may change every session limit.
import type { CacheSpec, KubeObject, ObjectKey, WatchSpec } from "../runtime/index.ts";
import { keyFor, Services, StatefulSets } from "../runtime/index.ts";
import { CHILD_SELECTOR, serviceFacts, statefulSetFacts } from "./child-facts.ts";
import { MANAGED_BY } from "./names.ts";
import { Nodes, nodeFacts, Orchestrators, podFacts } from "./resource.ts";

export const Pods = { group: "", version: "v1", plural: "pods", kind: "Pod", namespaced: true } as const;
export const INSTANCE_INDEX = "livepeerInstance";
const INSTANCE_LABEL = "app.kubernetes.io/instance";

function instanceKey(pod: KubeObject): ObjectKey[] {
  const labels = pod.metadata?.labels ?? {};
  if (labels[MANAGED_BY.label] !== MANAGED_BY.value || !labels[INSTANCE_LABEL]) return [];
  return [keyFor(pod.metadata?.namespace, labels[INSTANCE_LABEL])];
}

export const orchestratorCaches: CacheSpec[] = [
  {
    resource: Pods,
    transform: podFacts,
    labelSelector: CHILD_SELECTOR,
    indexes: { [INSTANCE_INDEX]: instanceKey },
  },
  { resource: Nodes, transform: nodeFacts },
  { resource: StatefulSets, transform: statefulSetFacts, labelSelector: CHILD_SELECTOR },
  { resource: Services, transform: serviceFacts, labelSelector: CHILD_SELECTOR },
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
