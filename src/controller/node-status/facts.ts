// What the controllers cache of the cluster objects a node resource reads besides its own children:
// Nodes and the node pods, reduced to what a status reads.

import { type KubeObject, keyFor, type ObjectKey } from "../../kube/index.ts";
import { GPU_RESOURCE, gpusRequested } from "../gpu/index.ts";
import { MANAGED_BY } from "../node-pod/index.ts";

/**
 * What the cache keeps of a Node: its name, labels (GPU Feature Discovery facts), addresses, and
 * what decides whether a GPU pod fits there (a rollout asks before it frees a pod's GPUs).
 */
export interface NodeFacts extends KubeObject {
  metadata: { name?: string; labels?: Record<string, string> };
  spec?: { taints?: { key: string; value?: string; effect: string }[]; unschedulable?: boolean };
  status?: {
    /** ExternalIP and InternalIP only: a NodePort service address is built from them. */
    addresses?: { type: string; address: string }[];
    /** nvidia.com/gpu only. */
    allocatable?: Record<string, string>;
  };
}

export interface PodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  /** Stuck-rollout recovery: since when a pod has not been Ready. */
  lastTransitionTime?: string;
}

/** What the cache keeps of a Pod: enough to say where it runs, whether it serves and the GPUs it holds. */
export interface PodFacts extends KubeObject {
  spec?: {
    nodeName?: string;
    /** Only when it requests GPUs: one entry with the pod's nvidia.com/gpu limit. */
    containers?: { resources: { limits: Record<string, string> } }[];
  };
  status?: {
    phase?: string;
    podIP?: string;
    /** Ready and PodScheduled only. */
    conditions?: PodCondition[];
    containerStatuses?: {
      name: string;
      ready: boolean;
      restartCount: number;
      /** running.startedAt tells the node doctor whether a container started after a log line. */
      state?: Record<string, { reason?: string; message?: string; startedAt?: string }>;
    }[];
  };
}

export function nodeFacts(obj: KubeObject): KubeObject {
  const m = obj.metadata ?? {};
  const n = obj as NodeFacts;
  const gpus = n.status?.allocatable?.[GPU_RESOURCE];
  const taints = (n.spec?.taints ?? []).map(({ key, value, effect }) => ({
    key,
    ...(value !== undefined ? { value } : {}),
    effect,
  }));
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: { name: m.name, labels: m.labels, resourceVersion: m.resourceVersion, uid: m.uid },
    ...(taints.length || n.spec?.unschedulable
      ? {
          spec: {
            ...(taints.length ? { taints } : {}),
            ...(n.spec?.unschedulable ? { unschedulable: true } : {}),
          },
        }
      : {}),
    status: {
      addresses: (n.status?.addresses ?? []).filter(
        (a) => a.type === "ExternalIP" || a.type === "InternalIP",
      ),
      ...(gpus !== undefined ? { allocatable: { [GPU_RESOURCE]: gpus } } : {}),
    },
  } as KubeObject;
}

export function podFacts(obj: KubeObject): KubeObject {
  const p = obj as PodFacts;
  const gpus = gpusRequested(p.spec ?? {});
  const m = p.metadata ?? {};
  return {
    apiVersion: p.apiVersion,
    kind: p.kind,
    metadata: {
      name: m.name,
      namespace: m.namespace,
      labels: m.labels,
      annotations: m.annotations,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      ownerReferences: m.ownerReferences,
      // Stuck-rollout recovery: how long a pod has existed, and whether it is already going.
      creationTimestamp: m.creationTimestamp,
      deletionTimestamp: m.deletionTimestamp,
    },
    spec: {
      nodeName: p.spec?.nodeName,
      ...(gpus > 0 ? { containers: [{ resources: { limits: { [GPU_RESOURCE]: String(gpus) } } }] } : {}),
    },
    status: podStatusFacts(p.status),
  } as KubeObject;
}

/** The pod conditions anything reads: Ready (serving, rollouts) and PodScheduled (why not placed). */
const READ_CONDITIONS = new Set(["Ready", "PodScheduled"]);
const readCondition = (c: PodCondition) => READ_CONDITIONS.has(c.type);

/**
 * Of a pod's status, what PodFacts declares: a pod's status also carries its images, container
 * ids, resources, volume mounts and IPs, several KB a pod that 5,000 Orchestrators would keep for
 * nothing.
 */
function podStatusFacts(s: PodFacts["status"]): PodFacts["status"] {
  if (!s) return s;
  const status: NonNullable<PodFacts["status"]> = {};
  if (s.phase !== undefined) status.phase = s.phase;
  if (s.podIP !== undefined) status.podIP = s.podIP;
  if (s.conditions) {
    status.conditions = s.conditions
      .filter(readCondition)
      .map(({ type, status, reason, message, lastTransitionTime }) => ({
        type,
        status,
        ...(reason !== undefined ? { reason } : {}),
        ...(message !== undefined ? { message } : {}),
        ...(lastTransitionTime !== undefined ? { lastTransitionTime } : {}),
      }));
  }
  if (s.containerStatuses) {
    status.containerStatuses = s.containerStatuses.map(({ name, ready, restartCount, state }) => ({
      name,
      ready,
      restartCount,
      ...(state !== undefined ? { state } : {}),
    }));
  }
  return status;
}

const INSTANCE_LABEL = "app.kubernetes.io/instance";
const COMPONENT_LABEL = "app.kubernetes.io/component";

/** A node pod of one of these components -> the key of the resource it belongs to. */
export function instanceOf(pod: KubeObject, components: readonly string[]): ObjectKey[] {
  const labels = pod.metadata?.labels ?? {};
  if (labels[MANAGED_BY.label] !== MANAGED_BY.value || !labels[INSTANCE_LABEL]) return [];
  if (!components.includes(labels[COMPONENT_LABEL] ?? "")) return [];
  return [keyFor(pod.metadata?.namespace, labels[INSTANCE_LABEL])];
}
