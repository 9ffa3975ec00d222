// What the cache keeps of a node resource's children (Orchestrator or Gateway). The reconciler writes children by
// server-side apply and reads back only what decides status or whether a write is needed, so
// the cache drops pod templates, volume claims and the like: at 5,000 Orchestrators a full
// StatefulSet per resource is most of the controller's memory.

import type { KubeObject } from "../../kube/index.ts";
import { devnetDataFacts, isDevnetConfigMap } from "../devnet/deployment-config-map.ts";
import { MANAGED_BY } from "../node-pod/index.ts";

/** Children and their pods are cached by this selector, never the cluster's other objects. */
export const CHILD_SELECTOR = `${MANAGED_BY.label}=${MANAGED_BY.value}`;

function metadataFacts(obj: KubeObject): KubeObject["metadata"] {
  const m = obj.metadata ?? {};
  return {
    name: m.name,
    namespace: m.namespace,
    labels: m.labels,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    generation: m.generation,
    ownerReferences: m.ownerReferences,
  };
}

/** A StatefulSet: its size and rollout state (revisions), not its template. */
export function statefulSetFacts(obj: KubeObject): KubeObject {
  const s = obj as KubeObject & { spec?: { replicas?: number }; status?: Record<string, unknown> };
  return {
    apiVersion: s.apiVersion,
    kind: s.kind,
    metadata: metadataFacts(s),
    spec: { replicas: s.spec?.replicas },
    status: s.status,
  } as KubeObject;
}

interface ServiceShape extends KubeObject {
  spec?: { type?: string; ports?: { name?: string; nodePort?: number }[] };
  status?: { loadBalancer?: { ingress?: unknown[] } };
}

/**
 * A Service: what decides the address gateways use (service-address.ts): its type, the node
 * ports by port name, the load balancer's address (its status only when that has one: every
 * ClusterIP Service carries an empty loadBalancer). Cluster IPs and ports without a node port
 * are not read (three Services per Orchestrator, most of them ClusterIP).
 */
export function serviceFacts(obj: KubeObject): KubeObject {
  const s = obj as ServiceShape;
  const ingress = s.status?.loadBalancer?.ingress;
  const nodePorts = (s.spec?.ports ?? [])
    .filter((p) => p.nodePort !== undefined)
    .map(({ name, nodePort }) => ({ name, nodePort }));
  return {
    apiVersion: s.apiVersion,
    kind: s.kind,
    metadata: metadataFacts(s),
    spec: { type: s.spec?.type, ...(nodePorts.length ? { ports: nodePorts } : {}) },
    ...(ingress?.length ? { status: { loadBalancer: { ingress } } } : {}),
  } as KubeObject;
}

/**
 * A ConfigMap: for our children only the metadata and our own annotations (the session limit the
 * config holds), never the rendered files; for a devnet deployment (selected by the same label)
 * the chain URL and the Controller's address, not the contracts' ABIs.
 */
export function configMapFacts(obj: KubeObject): KubeObject {
  const ours = Object.entries(obj.metadata?.annotations ?? {}).filter(([k]) => k.startsWith("livepeer.org/"));
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: {
      ...metadataFacts(obj),
      ...(ours.length ? { annotations: Object.fromEntries(ours) } : {}),
    },
    ...(isDevnetConfigMap(obj)
      ? { data: devnetDataFacts(obj.data as Record<string, string> | undefined) }
      : {}),
  } as KubeObject;
}
