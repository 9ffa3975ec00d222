// Stuck rollouts (pure detection). A StatefulSet does not replace a pod that never becomes Ready
// with a newer revision when the rolling update waits for availability first: with the default
// OrderedReady policy (kubernetes/kubernetes#67250, the documented "forced rollback" case) and,
// with our Parallel policy, whenever the MaxUnavailableStatefulSet feature is on (beta since
// 1.35): one unavailable pod uses up maxUnavailable 1, so nothing is deleted. A bad image or
// config then stays stuck after the spec is fixed, until someone deletes the pod by hand. The
// operator does that delete: a pod on a revision other than the StatefulSet's update revision,
// not Ready for longer than a grace period, is replaced. Such a pod serves nothing and the
// StatefulSet would replace it anyway once it were healthy, so deleting it loses nothing.
import type { KubeClient, KubeObject } from "../../kube/index.ts";
import type { PodCondition } from "../node-status/facts.ts";
import { restartPod } from "../node-status/pod-restart.ts";
import type { Recorder } from "../runtime/index.ts";

export interface RolloutStatefulSet {
  metadata?: { name?: string; generation?: number };
  status?: { observedGeneration?: number; updateRevision?: string };
}

export interface RolloutPod {
  metadata?: {
    name?: string;
    uid?: string;
    labels?: Record<string, string>;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    ownerReferences?: { kind: string; name: string; controller?: boolean }[];
  };
  status?: {
    phase?: string;
    conditions?: PodCondition[];
    containerStatuses?: { state?: Record<string, { reason?: string; message?: string } | undefined> }[];
  };
}

export interface StuckPod {
  name: string;
  uid?: string;
  revision: string;
  updateRevision: string;
  /** What keeps it from being Ready, e.g. "CrashLoopBackOff" or "Unschedulable: 0/3 nodes ...". */
  cause: string;
  notReadyForMs: number;
}

export interface StuckRollout {
  stuck: StuckPod[];
  /** When a pod on an old revision will have been unready for the grace period. */
  recheckAfterMs?: number;
}

const REVISION_LABEL = "controller-revision-hash";

/** Since when the pod has not been Ready (ms since epoch), or undefined when it is Ready. */
function notReadySince(pod: RolloutPod): number | undefined {
  const ready = pod.status?.conditions?.find((c) => c.type === "Ready");
  if (ready?.status === "True") return undefined;
  const since =
    (ready ? ready.lastTransitionTime : undefined) ??
    pod.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False")
      ?.lastTransitionTime ??
    pod.metadata?.creationTimestamp;
  const t = since ? Date.parse(since) : Number.NaN;
  return Number.isNaN(t) ? 0 : t;
}

/** Why the pod is not Ready, in the words `kubectl get pods` uses. */
export function notReadyCause(pod: RolloutPod): string {
  for (const c of pod.status?.containerStatuses ?? []) {
    const waiting = c.state?.waiting;
    if (waiting?.reason) return waiting.message ? `${waiting.reason}: ${waiting.message}` : waiting.reason;
    const terminated = c.state?.terminated;
    if (terminated?.reason) return `terminated: ${terminated.reason}`;
  }
  const unscheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False");
  if (unscheduled)
    return `${unscheduled.reason ?? "Unschedulable"}: ${unscheduled.message ?? "no node fits"}`;
  return pod.status?.phase === "Running" ? "Running, not Ready" : (pod.status?.phase ?? "Pending");
}

export function stuckRolloutPods(i: {
  statefulSet: RolloutStatefulSet;
  pods: RolloutPod[];
  now: number;
  graceMs: number;
}): StuckRollout {
  const sts = i.statefulSet;
  const updateRevision = sts.status?.updateRevision;
  // Until the StatefulSet controller has seen the latest spec, its update revision is stale.
  if (!updateRevision || (sts.status?.observedGeneration ?? -1) < (sts.metadata?.generation ?? 0)) {
    return { stuck: [] };
  }
  const result: StuckRollout = { stuck: [] };
  for (const pod of i.pods) {
    const m = pod.metadata ?? {};
    const owned = m.ownerReferences?.some(
      (r) => r.kind === "StatefulSet" && r.name === sts.metadata?.name && r.controller,
    );
    const revision = m.labels?.[REVISION_LABEL];
    if (!owned || !revision || revision === updateRevision || m.deletionTimestamp) continue;
    const since = notReadySince(pod);
    if (since === undefined) continue;
    const notReadyForMs = Math.max(0, i.now - since);
    if (notReadyForMs < i.graceMs) {
      const wait = i.graceMs - notReadyForMs;
      result.recheckAfterMs = Math.min(result.recheckAfterMs ?? wait, wait);
      continue;
    }
    result.stuck.push({
      name: m.name ?? "",
      ...(m.uid ? { uid: m.uid } : {}),
      revision,
      updateRevision,
      cause: notReadyCause(pod),
      notReadyForMs,
    });
  }
  return result;
}

/** The Event message for a replaced pod: what, why, and that nothing needs doing by hand. */
export function stuckPodMessage(statefulSet: string, p: StuckPod): string {
  return `deleted pod ${p.name} of StatefulSet ${statefulSet}: it was on revision ${p.revision} and not Ready for ${Math.round(p.notReadyForMs / 1000)} s (${p.cause}); the StatefulSet does not replace such a pod by itself (kubernetes/kubernetes#67250), so its replacement now runs the fixed revision ${p.updateRevision}`;
}

/** Deletes the stuck pods of these StatefulSets; returns when to look again (ms), if ever. */
export async function recoverStuckRollouts(i: {
  /** The Orchestrator or Gateway the StatefulSets belong to. */
  owner: KubeObject;
  statefulSets: RolloutStatefulSet[];
  pods: RolloutPod[];
  now: number;
  graceMs: number;
  client: KubeClient;
  events: Recorder;
}): Promise<number | undefined> {
  let recheck: number | undefined;
  for (const sts of i.statefulSets) {
    const found = stuckRolloutPods({ statefulSet: sts, pods: i.pods, now: i.now, graceMs: i.graceMs });
    if (found.recheckAfterMs !== undefined)
      recheck = Math.min(recheck ?? found.recheckAfterMs, found.recheckAfterMs);
    for (const pod of found.stuck) {
      const deleted = await restartPod(i.client, i.owner.metadata?.namespace ?? "default", pod.name, pod.uid);
      if (!deleted) continue;
      i.events.event(i.owner, {
        type: "Warning",
        reason: "StuckRolloutRecovered",
        message: stuckPodMessage(sts.metadata?.name ?? "", pod),
        action: "DeletePod",
      });
    }
  }
  return recheck;
}
