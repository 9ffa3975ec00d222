// A node resource's session-aware rollout, shared by the Orchestrator and Gateway reconcilers:
// what each StatefulSet's next step is (rollout-policy.ts), the RolloutPending verdict and
// status.rollout that say so (pure), and the step carried out (one pod deleted, or its node
// restarted in place when only its config changed; an Event).
import type { KubeClient, KubeObject } from "../../kube/index.ts";
import { durationText } from "../../node/chain/index.ts";
import { durationMs, type RolloutSpec, type RolloutStatus } from "../../schema/rollout.ts";
import type { NodeReading } from "../doctor/index.ts";
import { type GpuSlot, gpusRequested } from "../gpu/index.ts";
import type { Recorder, Verdict } from "../runtime/index.ts";
import { podConfig, requestRestart } from "./config-restart.ts";
import type { PodFacts } from "./facts.ts";
import { restartPod } from "./pod-restart.ts";
import { podReady } from "./pods.ts";
import {
  nextRolloutStep,
  type RestartTimedOut,
  type RolloutStep,
  sessionsIfFresh,
} from "./rollout-policy.ts";

const REVISION_LABEL = "controller-revision-hash";

export interface RolloutStatefulSetFacts {
  metadata?: { name?: string; generation?: number };
  spec?: { replicas?: number };
  status?: { observedGeneration?: number; updateRevision?: string };
}

export interface PodRolloutInput {
  spec: RolloutSpec | undefined;
  /** status.rollout as written last (its pendingSince carries over). */
  previous: RolloutStatus | undefined;
  statefulSets: readonly RolloutStatefulSetFacts[];
  pods: readonly PodFacts[];
  /** The node doctor's latest reading of each Ready pod, by pod uid. */
  readings: ReadonlyMap<string, NodeReading>;
  now: number;
  /** How old a reading may be and still tell a pod's sessions. */
  freshMs: number;
  /** StatefulSets (by name) whose pods request GPUs. */
  gpuStatefulSets?: ReadonlySet<string>;
  /** Pods (of any resource the controller sees) the scheduler cannot place for lack of GPUs; asked only when a GPU pod is about to go. */
  gpuWaiters?: () => readonly string[];
  /** Whether a new pod of a StatefulSet's template would find its GPUs once `leaving` is gone; asked only before a GPU pod is replaced. */
  gpuSlot?: (statefulSet: string, leaving: PodFacts | undefined) => GpuSlot;
  /** The config hash each StatefulSet's pods should run (configHashesOf); absent: config not compared. */
  configHashes?: ReadonlyMap<string, string>;
  /** How long an in-place restart may take before the pod is replaced instead (default: the policy's). */
  inPlaceTimeoutMs?: number;
}

export interface PodRolloutPlan {
  steps: {
    statefulSet: string;
    updateRevision: string | undefined;
    /** The config hash its pods should run. */
    configHash?: string | undefined;
    step: RolloutStep;
  }[];
  status: RolloutStatus;
  verdict: Verdict;
  /** Look again after this many ms (the deadline, or the next reading while waiting). */
  recheckAfterMs?: number;
}

const ownedBy = (pod: PodFacts, sts: string) =>
  pod.metadata?.ownerReferences?.some((r) => r.kind === "StatefulSet" && r.name === sts && r.controller) ??
  false;

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

export function planPodRollout(i: PodRolloutInput): PodRolloutPlan {
  const strategy = i.spec?.strategy ?? "whenIdle";
  const maxWaitMs = i.spec?.maxWait ? durationMs(i.spec.maxWait) : undefined;
  const carried = i.previous?.pendingSince ? Date.parse(i.previous.pendingSince) : Number.NaN;
  const pendingSince = Number.isNaN(carried) ? i.now : carried;
  let replicas = 0;
  let updated = 0;
  const steps = i.statefulSets.map((sts) => {
    const name = sts.metadata?.name ?? "";
    const seen = (sts.status?.observedGeneration ?? -1) >= (sts.metadata?.generation ?? 0);
    const updateRevision = seen ? sts.status?.updateRevision : undefined;
    const pods = i.pods.filter((p) => ownedBy(p, name));
    const configHash = i.configHashes?.get(name);
    const config = (p: PodFacts) => podConfig(p, configHash).state;
    const facts = (uid: string | undefined) => pods.find((p) => p.metadata?.uid === uid);
    replicas += sts.spec?.replicas ?? 0;
    // Until the StatefulSet controller records the new revision, count against the one it has.
    const counted = sts.status?.updateRevision;
    updated += pods.filter(
      (p) =>
        !p.metadata?.deletionTimestamp &&
        counted &&
        p.metadata?.labels?.[REVISION_LABEL] === counted &&
        (config(p) === "current" || config(p) === "unknown"),
    ).length;
    const step = nextRolloutStep({
      strategy,
      updateRevision,
      replicas: sts.spec?.replicas ?? 0,
      pods: pods.map((p) => ({
        name: p.metadata?.name ?? "",
        uid: p.metadata?.uid,
        revision: p.metadata?.labels?.[REVISION_LABEL],
        ready: podReady(p),
        going: !!p.metadata?.deletionTimestamp,
        sessions: sessionsIfFresh(i.readings.get(p.metadata?.uid ?? ""), i.now, i.freshMs),
        config: config(p),
        restartAskedAt: podConfig(p, configHash).askedAt,
      })),
      now: i.now,
      pendingSince,
      maxWaitMs,
      usesGpu: i.gpuStatefulSets?.has(name) ?? false,
      gpuWaiters: () => (i.gpuWaiters?.() ?? []).filter((w) => !pods.some((p) => p.metadata?.name === w)),
      ...(i.gpuSlot ? { gpuSlot: (p) => i.gpuSlot!(name, facts(p.uid)) } : {}),
      ...(i.inPlaceTimeoutMs !== undefined ? { inPlaceTimeoutMs: i.inPlaceTimeoutMs } : {}),
    });
    return { statefulSet: name, updateRevision, configHash, step };
  });
  // A revision not recorded yet is a moment after each apply: the StatefulSet's status update
  // brings the owner back, so it is neither pending nor rechecked.
  const pending = steps.some((s) => !settled(s.step));
  const deadline = maxWaitMs !== undefined && pending ? pendingSince + maxWaitMs : undefined;
  const inPlace = steps.some(({ step }) => isInPlace(step));
  const status: RolloutStatus = {
    replicas,
    updatedReplicas: updated,
    ...(inPlace ? { inPlace: true } : {}),
    ...(pending ? { pendingSince: iso(pendingSince) } : {}),
    ...(deadline !== undefined && strategy === "whenIdle" ? { deadline: iso(deadline) } : {}),
  };
  // Waiting on what no event of the resource's own tells (sessions, other pods' GPUs): look again.
  const waiting = steps.some((s) =>
    ["waitForSessions", "waitForGpu", "waitForGpuSlot"].includes(s.step.kind),
  );
  // An in-place restart that may never come: look again when it times out.
  const timeouts = steps.flatMap(({ step }) =>
    step.kind === "waitForPod" && step.until !== undefined ? [Math.max(0, step.until - i.now) + 1_000] : [],
  );
  const recheck =
    waiting || timeouts.length
      ? Math.min(
          ...(waiting ? [i.freshMs] : []),
          ...timeouts,
          ...(waiting && deadline !== undefined ? [Math.max(0, deadline - i.now) + 1_000] : []),
        )
      : undefined;
  return {
    steps,
    status,
    verdict: rolloutVerdict(steps, pendingSince, deadline),
    ...(recheck !== undefined ? { recheckAfterMs: recheck } : {}),
  };
}

/** Only the config changed: the node restarts in place (pod, node and GPUs kept). */
const isInPlace = (step: RolloutStep) =>
  ((step.kind === "replace" || step.kind === "waitForSessions") && step.inPlace) ||
  (step.kind === "waitForPod" && step.state === "restarting in place");

const settled = (step: RolloutStep) => step.kind === "upToDate" || step.kind === "unknownRevision";

/** RolloutPending: what the change waits for and until when, then since when (once, at the end). */
export function rolloutVerdict(
  steps: PodRolloutPlan["steps"],
  pendingSince: number,
  deadline: number | undefined,
): Verdict {
  const open = steps.filter((s) => !settled(s.step));
  if (!open.length)
    return { status: "False", reason: "UpToDate", message: "every node pod runs the current rendering" };
  const messages = open.map(({ statefulSet, step }) => {
    switch (step.kind) {
      case "manual":
        return `pod(s) ${step.pods.join(", ")} run an older rendering; spec.rollout.strategy is onDelete: delete them to roll (kubectl delete pod ${step.pods[0]})`;
      case "waitForPod":
        return step.state === "not created yet"
          ? `StatefulSet ${statefulSet}: waiting for a pod to be created before replacing the next`
          : step.state === "restarting in place"
            ? `restarting the node of pod ${step.pod} in place (only its config changed; pod, node and GPUs kept): its liveness probe restarts it once the kubelet has mounted the new config, about a minute${step.until !== undefined ? `; not restarted by ${iso(step.until)}, the pod is replaced instead` : ""}`
            : `waiting for pod ${step.pod} (${step.state}) before replacing the next, one at a time`;
      case "replace":
        return `${timedOutText(step.restartTimedOut)}${step.inPlace ? "restarting the node of pod" : "replacing pod"} ${step.pod.name}${step.inPlace ? " in place" : ""} (${step.why === "deadline" ? "maxWait passed" : step.why})${step.noSlot ? `; ${noSlotText(step.noSlot)}: its replacement may stay Pending` : ""}; ${step.remaining} more to go`;
      case "waitForGpu": {
        const until =
          deadline !== undefined
            ? `until ${iso(deadline)} (spec.rollout.maxWait), then replaced anyway`
            : "with no deadline (set spec.rollout.maxWait to bound it, or delete the pod to roll now)";
        return `${timedOutText(step.restartTimedOut)}replacing pod ${step.pod} would free its GPU(s) while pod(s) ${step.waiters.join(", ")} wait for GPUs (Insufficient nvidia.com/gpu), and its replacement could stay Pending: waiting until they are placed or gone, ${until}`;
      }
      case "waitForGpuSlot": {
        const until =
          deadline !== undefined
            ? `until ${iso(deadline)} (spec.rollout.maxWait), then replaced anyway (the replacement may stay Pending)`
            : "with no deadline (set spec.rollout.maxWait to bound it)";
        const need = step.slot.need;
        const free = step.slot.candidates.length ? `free ${need} GPU(s) on one of those nodes, ` : "";
        return `${timedOutText(step.restartTimedOut)}pod ${step.pod} is not replaced: ${noSlotText(step.slot, step.pod)}; waiting for a free slot, ${until}; to roll: ${free}add a node with ${need} free GPU(s) its placement allows, or set spec.rollout.strategy: immediate (the replacement may then stay Pending)`;
      }
      case "waitForSessions": {
        const busy = step.busy
          .map(
            (b) =>
              `${b.pod} (${b.sessions === undefined ? "sessions not read yet" : `${b.sessions} session(s) open`})`,
          )
          .join(", ");
        const then = step.inPlace ? "then its node restarted in place anyway" : "then replaced anyway";
        const until =
          deadline !== undefined
            ? `until ${iso(deadline)} (spec.rollout.maxWait), ${then}`
            : "with no deadline (set spec.rollout.maxWait to bound it, or delete the pod to roll now)";
        const how = step.inPlace
          ? "; only its config changed: its node restarts in place (pod, node and GPUs kept)"
          : "";
        return `${timedOutText(step.restartTimedOut)}sessions open on pod ${busy}: waiting for them to end, ${until}${how}`;
      }
      default:
        return "";
    }
  });
  const kinds = new Set(open.map((s) => s.step.kind));
  const inPlace = open.some(({ step }) => isInPlace(step));
  // What needs the user's hand first: no GPU slot ends only when one is made.
  const reason = kinds.has("waitForGpuSlot")
    ? "WaitingForGpuSlot"
    : kinds.has("waitForSessions")
      ? "SessionsOpen"
      : kinds.has("waitForGpu")
        ? "GpuContested"
        : kinds.has("manual")
          ? "WaitingForDelete"
          : inPlace
            ? "RestartingInPlace"
            : kinds.has("replace")
              ? "ReplacingPod"
              : "WaitingForPod";
  return { status: "True", reason, message: `${messages.join("; ")} (pending since ${iso(pendingSince)})` };
}

/** "its replacement needs 2 GPU(s) and no node ... has them free (free now: a 1 of 2 (with the 1 pod x frees), b 0 of 1)". */
function noSlotText(slot: GpuSlot, pod?: string): string {
  const shown = slot.candidates.slice(0, 4).map((c) => `${c.node} ${c.free} of ${c.allocatable}`);
  const more =
    slot.candidates.length > shown.length ? ` and ${slot.candidates.length - shown.length} more` : "";
  const where = shown.length
    ? `free now${pod ? `, counting the GPUs pod ${pod} frees` : ""}: ${shown.join(", ")}${more}`
    : "no schedulable node matches its placement (nodeSelector, GPU product, affinity, tolerations)";
  return `its replacement needs ${slot.need} GPU(s) and no node its template may run on has them free (${where})`;
}

/** "the node of pod x did not restart in place within 5 min (asked at ...): " */
function timedOutText(t: RestartTimedOut | undefined): string {
  return t
    ? `the node of pod ${t.pod} did not restart in place within ${durationText(t.timeoutMs / 1000)} (asked at ${iso(t.askedAt)}), so the pod is replaced instead: `
    : "";
}

/** Pods the scheduler cannot place for lack of GPUs (PodScheduled False: Insufficient nvidia.com/gpu). */
export function gpuWaitersAmong(pods: readonly PodFacts[]): string[] {
  return pods
    .filter((p) =>
      p.status?.conditions?.some(
        (c) =>
          c.type === "PodScheduled" &&
          c.status === "False" &&
          /Insufficient nvidia\.com\/gpu/.test(c.message ?? ""),
      ),
    )
    .map((p) => p.metadata?.name ?? "")
    .sort();
}

/** Names of the planned StatefulSets whose pods request GPUs. */
export function gpuStatefulSetsOf(
  statefulSets: readonly {
    metadata?: { name?: string };
    spec?: { template: { spec?: Parameters<typeof gpusRequested>[0] } };
  }[],
): Set<string> {
  return new Set(
    statefulSets
      .filter((s) => gpusRequested(s.spec?.template.spec ?? {}) > 0)
      .map((s) => s.metadata?.name ?? ""),
  );
}

/**
 * Carries out each StatefulSet's step: the pod to replace is deleted (uid-guarded), or, when only
 * its config changed, its node is asked to restart in place (its WANTED annotation); an Event says why.
 */
export async function carryOutRollout(
  owner: KubeObject,
  plan: PodRolloutPlan,
  o: { client: KubeClient; events: Recorder; pods?: readonly PodFacts[] },
): Promise<string[]> {
  const replaced: string[] = [];
  for (const { statefulSet, updateRevision, configHash, step } of plan.steps) {
    if (step.kind !== "replace") continue;
    const { pod } = step;
    const rest = `${step.remaining} more pod(s) to go`;
    const sessions = pod.sessions === undefined ? "an unknown number of" : pod.sessions;
    const why =
      step.why === "deadline"
        ? `${sessions} session(s) open, spec.rollout.maxWait passed since ${plan.status.pendingSince}`
        : step.why === "idle"
          ? "it carried no session"
          : "spec.rollout.strategy is immediate";
    if (step.inPlace) {
      const facts = o.pods?.find((p) => p.metadata?.uid === pod.uid);
      if (!facts || !configHash || !(await requestRestart(o.client, facts, configHash, new Date()))) continue;
      const where = `pod, node ${facts.spec?.nodeName ?? "(unscheduled)"} and its GPUs kept`;
      const to = `StatefulSet ${statefulSet} config ${podConfig(facts, configHash).runs ?? "(unknown)"} -> ${configHash}`;
      o.events.event(owner, {
        type: step.why === "deadline" ? "Warning" : "Normal",
        reason: "RolloutNodeRestarted",
        message: `restarting the node of pod ${pod.name} in place (${to}; ${where}): ${why}; only its config changed; ${rest}`,
        action: "RestartNode",
      });
      continue;
    }
    const deleted = await restartPod(o.client, owner.metadata?.namespace ?? "default", pod.name, pod.uid);
    if (!deleted) continue;
    replaced.push(pod.name);
    const to =
      pod.revision === updateRevision
        ? `StatefulSet ${statefulSet} revision ${pod.revision}, config -> ${configHash ?? "(unknown)"}`
        : `StatefulSet ${statefulSet} revision ${pod.revision} -> ${updateRevision}`;
    const pending = step.noSlot
      ? `; ${noSlotText(step.noSlot, pod.name)}: the replacement may stay Pending until a GPU frees or a node is added`
      : "";
    const timedOut = step.restartTimedOut;
    o.events.event(
      owner,
      timedOut
        ? {
            type: "Warning",
            reason: "InPlaceRestartTimedOut",
            message: `replaced pod ${pod.name} (${to}): its node did not restart in place within ${durationText(timedOut.timeoutMs / 1000)} of the request at ${iso(timedOut.askedAt)} (waited ${durationText((Date.now() - timedOut.askedAt) / 1000)}); likely cause: its image has no /bin/sh for the liveness probe that restarts it, or the kubelet did not refresh the mounted ConfigMap (kubectl describe pod ${pod.name}); ${why}${pending}; ${rest}`,
            action: "DeletePod",
          }
        : step.noSlot
          ? {
              type: "Warning",
              reason: "RolloutWithoutGpuSlot",
              message: `replaced pod ${pod.name} (${to}): ${why}${pending}; ${rest}`,
              action: "DeletePod",
            }
          : step.why === "deadline"
            ? {
                type: "Warning",
                reason: "RolloutForced",
                message: `replaced pod ${pod.name} with ${sessions} session(s) open (${to}): spec.rollout.maxWait passed since ${plan.status.pendingSince}; ${rest}`,
                action: "DeletePod",
              }
            : {
                type: "Normal",
                reason: "RolloutPodReplaced",
                message: `replaced pod ${pod.name} (${to}): ${why}; ${rest}`,
                action: "DeletePod",
              },
    );
  }
  return replaced;
}
