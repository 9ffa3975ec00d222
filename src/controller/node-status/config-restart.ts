// Which config each node pod runs, and the two writes that keep it known (see node-pod/in-place.ts
// for the contract with the pod): a new pod is stamped with the config hash its ConfigMap holds
// before the controller changes that ConfigMap; a pod whose config is older is asked to restart
// in place by its WANTED annotation, which its liveness probe acts on once the file is mounted.
import type { V1ConfigMap, V1StatefulSet } from "@kubernetes/client-node";
import { isConflict, isNotFound, type KubeClient, Pods } from "../../kube/index.ts";
import {
  CONFIG_HASH_ANNOTATION,
  CONFIG_HASH_KEY,
  REQUESTED_AT,
  RESTARTS_AT_REQUEST,
  RUNNING,
  WANTED,
} from "../node-pod/in-place.ts";
import type { PodFacts } from "./facts.ts";

/**
 * current: runs the config hash given; stale: runs an older one; restarting: asked to restart
 * into the given one and not restarted yet; unknown: never stamped (a pod just created).
 */
export type PodConfigState = "current" | "stale" | "restarting" | "unknown";

export interface PodConfig {
  state: PodConfigState;
  /** The config hash the pod runs, as far as the controller knows. */
  runs: string | undefined;
  /** The node container's restartCount now. */
  restarts: number;
  /** When the pending restart was asked for (ms since epoch; restarting only, when recorded). */
  askedAt?: number;
}

const restartsOf = (pod: PodFacts) => pod.status?.containerStatuses?.[0]?.restartCount ?? 0;

/** What config `pod` runs against `current` (the ConfigMap's hash; undefined: not known, nothing to do). */
export function podConfig(pod: PodFacts, current: string | undefined): PodConfig {
  const a = pod.metadata?.annotations ?? {};
  const restarts = restartsOf(pod);
  const wanted = a[WANTED];
  const askedAt = Number(a[RESTARTS_AT_REQUEST] ?? Number.NaN);
  // A request is done once the container restarted after it (its env then says `wanted`).
  const done = wanted !== undefined && !Number.isNaN(askedAt) && restarts > askedAt;
  const runs = done ? wanted : a[RUNNING];
  if (current === undefined) return { state: "current", runs, restarts };
  if (wanted === current && !done) {
    const at = Date.parse(a[REQUESTED_AT] ?? "");
    return { state: "restarting", runs, restarts, ...(Number.isNaN(at) ? {} : { askedAt: at }) };
  }
  if (runs === undefined) return { state: "unknown", runs, restarts };
  return { state: runs === current ? "current" : "stale", runs, restarts };
}

const configMapOf = (sts: V1StatefulSet) =>
  sts.spec?.template.spec?.volumes?.find((v) => v.name === "config")?.configMap?.name;

/** The config hash of each planned StatefulSet's pods: the hash of the ConfigMap its pods mount. */
export function configHashesOf(
  statefulSets: readonly V1StatefulSet[],
  configMaps: readonly V1ConfigMap[],
): Map<string, string> {
  const out = new Map<string, string>();
  for (const sts of statefulSets) {
    const hash = configMaps.find((c) => c.metadata?.name === configMapOf(sts))?.data?.[CONFIG_HASH_KEY];
    if (sts.metadata?.name && hash) out.set(sts.metadata.name, hash);
  }
  return out;
}

/** The hash the ConfigMap of a planned StatefulSet holds now (its annotation, read through `read`). */
export function mountedConfigHash(
  statefulSets: readonly V1StatefulSet[],
  read: (configMap: string) => { metadata?: { annotations?: Record<string, string> } } | undefined,
): (statefulSet: string) => string | undefined {
  return (name) => {
    const cm = configMapOf(statefulSets.find((s) => s.metadata?.name === name) ?? {});
    return cm ? read(cm)?.metadata?.annotations?.[CONFIG_HASH_ANNOTATION] : undefined;
  };
}

const ownerOf = (pod: PodFacts) =>
  pod.metadata?.ownerReferences?.find((r) => r.kind === "StatefulSet" && r.controller)?.name;

/**
 * Pods never stamped, each with the hash its ConfigMap holds now (read before the controller
 * writes a new one: a pod created since mounted this one or a later one; a later one costs one
 * needless restart, never a missed one). Stamped once: the stamp is cached when written, so a
 * reconcile that follows at once does not take the pod for unstamped and stamp it with the hash the
 * controller has written since, which the pod may not run.
 */
export function podsToStamp(
  pods: readonly PodFacts[],
  mountedHash: (statefulSet: string) => string | undefined,
): { pod: PodFacts; hash: string }[] {
  return pods.flatMap((pod) => {
    const sts = ownerOf(pod);
    const hash = sts ? mountedHash(sts) : undefined;
    if (!hash || pod.metadata?.deletionTimestamp) return [];
    return podConfig(pod, hash).state === "unknown" ? [{ pod, hash }] : [];
  });
}

/**
 * `pods` as `stamps` leave them. The rollout is planned on the pods as the reconcile began, before
 * it stamped them and changed their ConfigMap: a new pod must count as running the hash it was
 * just stamped with (stale once the ConfigMap changed), not as never stamped (counted current).
 */
export function withStamps<P extends PodFacts>(
  pods: readonly P[],
  stamps: readonly { pod: PodFacts; hash: string }[],
): P[] {
  const stamped = new Map(
    stamps.flatMap(({ pod, hash }) => (pod.metadata?.uid ? [[pod.metadata.uid, hash]] : [])),
  );
  return pods.map((pod) => {
    const hash = stamped.get(pod.metadata?.uid ?? "");
    if (hash === undefined) return pod;
    const annotations = { ...pod.metadata?.annotations, [RUNNING]: hash };
    return { ...pod, metadata: { ...pod.metadata, annotations } };
  });
}

/**
 * Merge-patches the pod's annotations, guarded by its uid: the pod as the API server answered, or
 * undefined when it is gone or replaced.
 */
async function annotate(
  client: KubeClient,
  pod: PodFacts,
  annotations: Record<string, string | null>,
): Promise<PodFacts | undefined> {
  try {
    return await client.mergePatch<PodFacts>(Pods, pod.metadata?.namespace, pod.metadata?.name ?? "", {
      metadata: { uid: pod.metadata?.uid, annotations },
    });
  } catch (err) {
    if (isNotFound(err) || isConflict(err)) return undefined;
    throw err;
  }
}

/**
 * Writes the stamps; returns the ones written (a pod gone or replaced meanwhile is not stamped).
 * `written` gets each stamped pod as the API server answered (for the cache).
 */
export async function stampPods(
  client: KubeClient,
  stamps: readonly { pod: PodFacts; hash: string }[],
  written: (pod: PodFacts) => void = () => {},
): Promise<{ pod: PodFacts; hash: string }[]> {
  const done: { pod: PodFacts; hash: string }[] = [];
  for (const stamp of stamps) {
    const answer = await annotate(client, stamp.pod, { [RUNNING]: stamp.hash });
    if (!answer) continue;
    written(answer);
    done.push(stamp);
  }
  return done;
}

/** Asks the pod's node to restart into `hash` (its liveness probe acts once the file is mounted). */
export function requestRestart(client: KubeClient, pod: PodFacts, hash: string, at: Date): Promise<boolean> {
  const { runs, restarts } = podConfig(pod, hash);
  return annotate(client, pod, {
    [RUNNING]: runs ?? null,
    [WANTED]: hash,
    [RESTARTS_AT_REQUEST]: String(restarts),
    [REQUESTED_AT]: at.toISOString().replace(/\.\d+Z$/, "Z"),
  }).then((answer) => answer !== undefined);
}
