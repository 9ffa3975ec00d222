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
// A restart not done within its timeout (the kubelet never refreshed the file, or the probe never
// ran) is given up: the pod is replaced instead, by the same rules as a new revision.
// A new GPU pod needs a free slot: before a GPU pod is replaced by a new one, whenIdle asks whether
// a node its new template may run on has the GPUs it requests free (gpu/capacity.ts; the pod's own
// GPUs count as free on its node, so a replacement with the same GPUs and placement always fits)
// and waits for one until the deadline; immediate and the deadline replace it anyway, saying so.
import type { RolloutStrategy } from "../../schema/rollout.ts";
import type { GpuSlot } from "../gpu/capacity.ts";
import { IN_PLACE_RESTART_TIMEOUT_MS } from "../node-pod/in-place.ts";
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
  /** restarting: when the in-place restart was asked for (ms since epoch; undefined: not recorded). */
  restartAskedAt?: number | undefined;
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
  /** Whether a new pod of the current template would find its GPUs once this pod is gone; asked only before a GPU pod is replaced. */
  gpuSlot?: (pod: RolloutPod) => GpuSlot;
  /** How long an in-place restart may take before the pod is replaced instead (default IN_PLACE_RESTART_TIMEOUT_MS). */
  inPlaceTimeoutMs?: number;
}

/** An in-place restart asked for and not done within the timeout: the pod is replaced instead. */
export interface RestartTimedOut {
  pod: string;
  askedAt: number;
  timeoutMs: number;
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
      /** Replaced although no node has the GPUs its replacement requests free: it may stay Pending. */
      noSlot?: GpuSlot;
      /** Its in-place restart timed out: a new pod instead. */
      restartTimedOut?: RestartTimedOut;
    }
  /** A pod of the new revision is starting, one is going or restarting in place: one at a time. */
  | {
      kind: "waitForPod";
      pod: string;
      state: "going" | "not Ready" | "not created yet" | "restarting in place";
      /** restarting in place: when the pod is replaced instead if it has not restarted by then. */
      until?: number;
    }
  | {
      kind: "waitForSessions";
      /** Old-revision pods and their sessions (undefined: not read), least busy first. */
      busy: { pod: string; sessions: number | undefined }[];
      deadline: number | undefined;
      /** The next one only needs its node restarted in place. */
      inPlace: boolean;
      restartTimedOut?: RestartTimedOut;
    }
  /** The pod is idle, but a pending pod waits for GPUs and could take the ones it frees. */
  | {
      kind: "waitForGpu";
      pod: string;
      waiters: readonly string[];
      deadline: number | undefined;
      restartTimedOut?: RestartTimedOut;
    }
  /** No node its new template may run on has the GPUs the pod's replacement requests free. */
  | {
      kind: "waitForGpuSlot";
      pod: string;
      slot: GpuSlot;
      deadline: number | undefined;
      restartTimedOut?: RestartTimedOut;
    }
  | { kind: "manual"; pods: string[] };

/** What to do next for one StatefulSet's pods. */
export function nextRolloutStep(i: RolloutInput): RolloutStep {
  if (!i.updateRevision) return { kind: "unknownRevision" };
  const timeoutMs = i.inPlaceTimeoutMs ?? IN_PLACE_RESTART_TIMEOUT_MS;
  const live = i.pods.filter((p) => !p.going);
  const asked = live.filter((p) => p.config === "restarting");
  const overdue = asked.filter(
    (p) => p.restartAskedAt !== undefined && i.now >= p.restartAskedAt + timeoutMs,
  );
  const restarting = asked.find((p) => !overdue.includes(p));
  const outdated = live.filter((p) => p.revision !== i.updateRevision);
  const current = live.filter((p) => p.revision === i.updateRevision);
  const stale = current.filter((p) => p.config === "stale");
  const todo = [...outdated, ...stale, ...current.filter((p) => overdue.includes(p))];
  if (!todo.length && !restarting) return { kind: "upToDate" };
  if (i.strategy === "onDelete" && todo.length)
    return { kind: "manual", pods: todo.map((p) => p.name).sort() };
  const going = i.pods.find((p) => p.going);
  if (going) return { kind: "waitForPod", pod: going.name, state: "going" };
  if (restarting)
    return {
      kind: "waitForPod",
      pod: restarting.name,
      state: "restarting in place",
      ...(restarting.restartAskedAt !== undefined ? { until: restarting.restartAskedAt + timeoutMs } : {}),
    };
  // A pod whose restart timed out is the one to replace, Ready or not (one not Ready serves nothing).
  const notReady = i.pods.find((p) => !p.ready && !overdue.includes(p));
  if (notReady) return { kind: "waitForPod", pod: notReady.name, state: "not Ready" };
  if (i.pods.length < i.replicas) return { kind: "waitForPod", pod: "", state: "not created yet" };
  const sessionsOf = (p: RolloutPod) => (overdue.includes(p) && !p.ready ? 0 : p.sessions);
  // Least busy first (unknown counts as busiest); the StatefulSet's own order (highest ordinal) breaks ties.
  const order = [...todo].sort(
    (a, b) =>
      (sessionsOf(a) ?? Number.POSITIVE_INFINITY) - (sessionsOf(b) ?? Number.POSITIVE_INFINITY) ||
      ordinal(b.name) - ordinal(a.name),
  );
  const first = order[0]!;
  const inPlace = stale.includes(first);
  const remaining = todo.length - 1;
  const timedOut: { restartTimedOut?: RestartTimedOut } =
    overdue.includes(first) && first.restartAskedAt !== undefined
      ? { restartTimedOut: { pod: first.name, askedAt: first.restartAskedAt, timeoutMs } }
      : {};
  // Restarted in place, the pod keeps its GPUs: it needs no slot, and no waiting pod can take them.
  const slot = i.usesGpu && !inPlace ? i.gpuSlot?.(first) : undefined;
  const noSlot = slot && !slot.fits ? { noSlot: slot } : {};
  const replace = (why: "idle" | "immediate" | "deadline"): RolloutStep => ({
    kind: "replace",
    pod: first,
    why,
    inPlace,
    remaining,
    ...noSlot,
    ...timedOut,
  });
  if (i.strategy === "immediate") return replace("immediate");
  const deadline = i.maxWaitMs === undefined ? undefined : i.pendingSince + i.maxWaitMs;
  const pastDeadline = deadline !== undefined && i.now >= deadline;
  // Before the sessions: a busy pod would wait for them only to wait for a slot next.
  if (slot && !slot.fits && !pastDeadline)
    return { kind: "waitForGpuSlot", pod: first.name, slot, deadline, ...timedOut };
  if (sessionsOf(first) === 0) {
    const waiters = i.usesGpu && !inPlace ? (i.gpuWaiters?.() ?? []) : [];
    if (waiters.length && !pastDeadline)
      return { kind: "waitForGpu", pod: first.name, waiters, deadline, ...timedOut };
    return replace(waiters.length || slot?.fits === false ? "deadline" : "idle");
  }
  if (pastDeadline) return replace("deadline");
  return {
    kind: "waitForSessions",
    busy: order.map((p) => ({ pod: p.name, sessions: sessionsOf(p) })),
    deadline,
    inPlace,
    ...timedOut,
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
