// Pods and Nodes are not owned by an Orchestrator, but decide its status: pods map back to their
// Orchestrator by the instance label, and a node change may change every session limit.
// Secrets are not cached here: the keystore Secret a spec names is read by name (keystore.ts) and
// the generated ones are checked by name (owned-secrets.ts), so the controller needs no list or
// watch on Secrets in users' namespaces.

import type { KubeObject, ObjectKey } from "../../kube/index.ts";
import {
  ConfigMaps,
  Deployments,
  keyFor,
  keyOf,
  Nodes,
  Pods,
  Services,
  StatefulSets,
} from "../../kube/index.ts";
import type { StoredGateway } from "../../schema/gateway.ts";
import type { StoredOrchestrator } from "../../schema/orchestrator.ts";
import { Gateways, Orchestrators } from "../../schema/resources.ts";
import { isDevnetConfigMap } from "../devnet/deployment-config-map.ts";
import {
  CHILD_SELECTOR,
  configMapFacts,
  serviceFacts,
  statefulSetFacts,
} from "../node-status/child-facts.ts";
import { instanceOf, nodeFacts, podFacts } from "../node-status/facts.ts";
import type { CacheReader, CacheSpec, WatchSpec } from "../runtime/index.ts";

export const INSTANCE_INDEX = "livepeerInstance";
// AI runner pods (component ai-runner) and live runner pods (live-runner) belong to their
// Orchestrator too.
const ORCHESTRATOR_COMPONENTS = ["orchestrator", "transcoder", "ai-runner", "live-runner"];

/** An orchestrator's or transcoder's pod -> its Orchestrator (a Gateway's pods are not ours). */
function instanceKey(pod: KubeObject): ObjectKey[] {
  return instanceOf(pod, ORCHESTRATOR_COMPONENTS);
}

/** Orchestrators by the devnet ConfigMap they read (`namespace/name`). */
export const DEVNET_INDEX = "livepeerDevnet";

function devnetKey(orch: KubeObject): ObjectKey[] {
  const name = (orch as StoredOrchestrator).spec?.devnet;
  return name ? [keyFor(orch.metadata?.namespace, name)] : [];
}

export const orchestratorCaches: CacheSpec[] = [
  { resource: Orchestrators, indexes: { [DEVNET_INDEX]: devnetKey } },
  // Children and devnet deployments (both carry the managed-by label), reduced to what is read.
  { resource: ConfigMaps, transform: configMapFacts, labelSelector: CHILD_SELECTOR },
  {
    resource: Pods,
    transform: podFacts,
    labelSelector: CHILD_SELECTOR,
    indexes: { [INSTANCE_INDEX]: instanceKey },
  },
  { resource: Nodes, transform: nodeFacts },
  { resource: StatefulSets, transform: statefulSetFacts, labelSelector: CHILD_SELECTOR },
  { resource: Services, transform: serviceFacts, labelSelector: CHILD_SELECTOR },
  // AI runners (spec.ai): their size and rollout state, like a StatefulSet's.
  { resource: Deployments, transform: statefulSetFacts, labelSelector: CHILD_SELECTOR },
  // What each Gateway's node says its orchestrators quoted it (status.orchestrators).
  { resource: Gateways },
];

/**
 * A Gateway -> the Orchestrators its status prices, and those whose status still names a quote
 * from it (a quote that went away must leave their status too).
 */
function quotedOrchestrators(gw: KubeObject, cache: CacheReader): ObjectKey[] {
  const ns = gw.metadata?.namespace;
  const name = gw.metadata?.name;
  const given = ((gw as StoredGateway).status?.orchestrators ?? []).map((o) => o.name);
  const quoted = cache
    .list<StoredOrchestrator>(Orchestrators, ns)
    .filter((o) => o.status?.quotes?.some((q) => q.gateway === name))
    .map((o) => o.metadata?.name ?? "");
  return [...new Set([...given, ...quoted])].filter((n) => n !== "").map((n) => keyFor(ns, n));
}

export const orchestratorWatches: WatchSpec[] = [
  { resource: Pods, map: (pod) => instanceKey(pod) },
  {
    resource: ConfigMaps,
    // A devnet deployment changing (or appearing) re-reconciles the Orchestrators that name it.
    map: (cm, cache) =>
      isDevnetConfigMap(cm) ? cache.byIndex(Orchestrators, DEVNET_INDEX, keyOf(cm)).map((o) => keyOf(o)) : [],
  },
  {
    resource: Nodes,
    // A node joining or changing its GPU labels can change any Orchestrator's limit.
    map: (_node, cache) =>
      cache.list(Orchestrators).map((o) => keyFor(o.metadata?.namespace, o.metadata?.name ?? "")),
  },
  { resource: Gateways, map: quotedOrchestrators },
];
