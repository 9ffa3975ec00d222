// Which node pod a rollout replaces next (pure). The StatefulSets run with updateStrategy OnDelete,
// so a changed rendering (image, flags, config) reaches a pod only when the operator deletes it.
// One pod of a StatefulSet at a time: the next only once every pod of the current revision is
// Ready and none is going. whenIdle replaces a pod once the node doctor's latest fresh reading says
// it carries no session, and after the deadline (spec.rollout.maxWait from when the change was
// first seen) the least busy one anyway; immediate replaces without asking; onDelete never.
// A GPU pod is a new pod on the scheduler's terms: while another pod waits for GPUs (unschedulable,
// Insufficient nvidia.com/gpu), whenIdle does not free this pod's GPUs for it before the deadline:
// the replacement could stay Pending (seen: a price edit left an orchestrator without its GPU).
// A pod that is not Ready on an old revision is left to the stuck-rollout recovery (it serves
// nothing, and is replaced after its grace period) and holds the next replacement back meanwhile.
// A pod on the current revision whose config (the ConfigMap the kubelet refreshes in it) is older
// is restarted in place instead (node-pod/in-place.ts): the same policy decides when, but its GPUs
// are never freed, so no pod waiting for GPUs holds it back; one restarting counts as one going.
import type { RolloutStrategy } from "../../schema/rollout.ts";
import type { PodConfigState } from "./config-restart.ts";

export interface RolloutPod {
  name: string;
  uid?: string | undefined;
  /** The pod's controller-revision-hash. */
  revision: string | undefined;
  ready: boolean;
  /** Being deleted (its replacement comes once it is gone). */
  going: boolean;
  /** Sessions the node carries, from a reading fresh enough to act on (undefined: not known). */
  sessions: number | undefined;
  /** Whether it runs the current config (absent: current). */
  config?: PodConfigState;
}

export interface RolloutInput {
  strategy: RolloutStrategy;
  /** The StatefulSet's update revision, once its controller has seen the latest template. */
  updateRevision: string | undefined;
  replicas: number;
  pods: readonly RolloutPod[];
  now: number;
  /** When the pending change was first seen (ms since epoch). */
  pendingSince: number;
  maxWaitMs: number | undefined;
  /** The StatefulSet's pods request GPUs. */
  usesGpu?: boolean;
  /** Other pods the scheduler cannot place for lack of GPUs (they could take the freed ones); asked only when it matters. */
  gpuWaiters?: () => readonly string[];
}

export type RolloutStep =
  | { kind: "upToDate" }
  /** The StatefulSet controller has not yet worked out the revision of the latest template. */
  | { kind: "unknownRevision" }
  | {
      kind: "replace";
      pod: RolloutPod;
      why: "idle" | "immediate" | "deadline";
      /** Only its config is older: restart its node in place (pod, node and GPUs kept). */
      inPlace: boolean;
      /** Pods still on an old revision or config after this one. */
      remaining: number;
    }
  /** A pod of the new revision is starting, one is going or restarting in place: one at a time. */
  | {
      kind: "waitForPod";
      pod: string;
      state: "going" | "not Ready" | "not created yet" | "restarting in place";
    }
  | {
      kind: "waitForSessions";
      /** Old-revision pods and their sessions (undefined: not read), least busy first. */
      busy: { pod: string; sessions: number | undefined }[];
      deadline: number | undefined;
      /** The next one only needs its node restarted in place. */
      inPlace: boolean;
    }
  /** The pod is idle, but a pending pod waits for GPUs and could take the ones it frees. */
  | { kind: "waitForGpu"; pod: string; waiters: readonly string[]; deadline: number | undefined }
  | { kind: "manual"; pods: string[] };

/** What to do next for one StatefulSet's pods. */
export function nextRolloutStep(i: RolloutInput): RolloutStep {
  if (!i.updateRevision) return { kind: "unknownRevision" };
  const outdated = i.pods.filter((p) => !p.going && p.revision !== i.updateRevision);
  const stale = i.pods.filter((p) => !p.going && p.revision === i.updateRevision && p.config === "stale");
  const todo = [...outdated, ...stale];
  const restarting = i.pods.find((p) => !p.going && p.config === "restarting");
  if (!todo.length && !restarting) return { kind: "upToDate" };
  if (i.strategy === "onDelete" && todo.length)
    return { kind: "manual", pods: todo.map((p) => p.name).sort() };
  const going = i.pods.find((p) => p.going);
  if (going) return { kind: "waitForPod", pod: going.name, state: "going" };
  if (restarting) return { kind: "waitForPod", pod: restarting.name, state: "restarting in place" };
  const notReady = i.pods.find((p) => !p.ready);
  if (notReady) return { kind: "waitForPod", pod: notReady.name, state: "not Ready" };
  if (i.pods.length < i.replicas) return { kind: "waitForPod", pod: "", state: "not created yet" };
  // Least busy first (unknown counts as busiest); the StatefulSet's own order (highest ordinal) breaks ties.
  const order = [...todo].sort(
    (a, b) =>
      (a.sessions ?? Number.POSITIVE_INFINITY) - (b.sessions ?? Number.POSITIVE_INFINITY) ||
      ordinal(b.name) - ordinal(a.name),
  );
  const first = order[0]!;
  const inPlace = stale.includes(first);
  const remaining = todo.length - 1;
  if (i.strategy === "immediate")
    return { kind: "replace", pod: first, why: "immediate", inPlace, remaining };
  const deadline = i.maxWaitMs === undefined ? undefined : i.pendingSince + i.maxWaitMs;
  const pastDeadline = deadline !== undefined && i.now >= deadline;
  if (first.sessions === 0) {
    // Restarted in place, the pod keeps its GPUs: no waiting pod can take them.
    const waiters = i.usesGpu && !inPlace ? (i.gpuWaiters?.() ?? []) : [];
    if (waiters.length && !pastDeadline) return { kind: "waitForGpu", pod: first.name, waiters, deadline };
    return { kind: "replace", pod: first, why: waiters.length ? "deadline" : "idle", inPlace, remaining };
  }
  if (pastDeadline) return { kind: "replace", pod: first, why: "deadline", inPlace, remaining };
  return {
    kind: "waitForSessions",
    busy: order.map((p) => ({ pod: p.name, sessions: p.sessions })),
    deadline,
    inPlace,
  };
}

function ordinal(pod: string): number {
  const m = /-(\d+)$/.exec(pod);
  return m ? Number(m[1]) : -1;
}

/** When a reading still tells the pod's sessions: the doctor looks every period, so two periods. */
export function sessionsIfFresh(
  reading: { at: Date; sessions?: number } | undefined,
  now: number,
  maxAgeMs: number,
): number | undefined {
  if (!reading || now - reading.at.getTime() > maxAgeMs) return undefined;
  return reading.sessions;
}
