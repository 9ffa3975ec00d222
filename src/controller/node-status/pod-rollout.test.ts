import { describe, expect, it } from "vitest";
import type { NodeReading } from "../doctor/index.ts";
import { podsToStamp, withStamps } from "./config-restart.ts";
import type { PodFacts } from "./facts.ts";
import { gpuWaitersAmong, planPodRollout, type RolloutStatefulSetFacts } from "./pod-rollout.ts";

const T0 = Date.parse("2026-11-28T01:00:00Z");
const sts = (name: string, replicas: number, o: { seen?: boolean } = {}): RolloutStatefulSetFacts => ({
  metadata: { name, generation: 2 },
  spec: { replicas },
  status: { observedGeneration: o.seen === false ? 1 : 2, updateRevision: `${name}-new` },
});
const pod = (name: string, owner: string, revision: string, ready = true): PodFacts =>
  ({
    metadata: {
      name,
      uid: `${name}-uid`,
      labels: { "controller-revision-hash": revision },
      ownerReferences: [{ kind: "StatefulSet", name: owner, controller: true }],
    },
    status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  }) as unknown as PodFacts;
const reading = (pod: string, sessions: number, at = T0): [string, NodeReading] => [
  `${pod}-uid`,
  { pod, at: new Date(at), answered: ["/status", "/metrics"], simulated: true, sessions },
];

describe("planPodRollout: status.rollout and RolloutPending", () => {
  it("up to date: False, every pod counted as updated", () => {
    const plan = planPodRollout({
      spec: { strategy: "whenIdle" },
      previous: undefined,
      statefulSets: [sts("o", 1), sts("o-transcoder", 2)],
      pods: [
        pod("o-0", "o", "o-new"),
        pod("t-0", "o-transcoder", "o-transcoder-new"),
        pod("t-1", "o-transcoder", "o-transcoder-new"),
      ],
      readings: new Map(),
      now: T0,
      freshMs: 60_000,
    });
    expect(plan.status).toEqual({ replicas: 3, updatedReplicas: 3 });
    expect(plan.verdict).toMatchObject({ status: "False", reason: "UpToDate" });
    expect(plan.steps.map((s) => s.step.kind)).toEqual(["upToDate", "upToDate"]);
    expect(plan.recheckAfterMs).toBeUndefined();
  });

  it("a busy pod: SessionsOpen naming the pod, its sessions, since when and until when; rechecked", () => {
    const plan = planPodRollout({
      spec: { strategy: "whenIdle", maxWait: "2h" },
      previous: { replicas: 1, updatedReplicas: 0, pendingSince: "2026-11-28T00:30:00Z" },
      statefulSets: [sts("o", 1)],
      pods: [pod("o-0", "o", "o-old")],
      readings: new Map([reading("o-0", 2)]),
      now: T0,
      freshMs: 60_000,
    });
    expect(plan.status).toEqual({
      replicas: 1,
      updatedReplicas: 0,
      pendingSince: "2026-11-28T00:30:00Z",
      deadline: "2026-11-28T02:30:00Z",
    });
    expect(plan.verdict.status).toBe("True");
    expect(plan.verdict.reason).toBe("SessionsOpen");
    expect(plan.verdict.message).toBe(
      "sessions open on pod o-0 (2 session(s) open): waiting for them to end, until 2026-11-28T02:30:00Z (spec.rollout.maxWait), then replaced anyway (pending since 2026-11-28T00:30:00Z)",
    );
    expect(plan.recheckAfterMs).toBe(60_000);
  });

  it("a stale reading is not an idle pod; a fresh one is", () => {
    const input = {
      spec: undefined,
      previous: undefined,
      statefulSets: [sts("o", 1)],
      pods: [pod("o-0", "o", "o-old")],
      now: T0,
      freshMs: 60_000,
    };
    const stale = planPodRollout({ ...input, readings: new Map([reading("o-0", 0, T0 - 61_000)]) });
    expect(stale.steps[0]?.step).toMatchObject({ kind: "waitForSessions" });
    expect(stale.verdict.message).toMatch(
      /o-0 \(sessions not read yet\).*with no deadline \(set spec.rollout.maxWait/,
    );
    const fresh = planPodRollout({ ...input, readings: new Map([reading("o-0", 0, T0 - 1_000)]) });
    expect(fresh.steps[0]?.step).toMatchObject({ kind: "replace", why: "idle" });
    expect(fresh.verdict).toMatchObject({ status: "True", reason: "ReplacingPod" });
    expect(fresh.status.pendingSince).toBe("2026-11-28T01:00:00Z");
  });

  it("onDelete: WaitingForDelete with the command; no deadline in status", () => {
    const plan = planPodRollout({
      spec: { strategy: "onDelete", maxWait: "1m" },
      previous: undefined,
      statefulSets: [sts("g", 1)],
      pods: [pod("g-0", "g", "g-old")],
      readings: new Map([reading("g-0", 0)]),
      now: T0,
      freshMs: 60_000,
    });
    expect(plan.verdict.reason).toBe("WaitingForDelete");
    expect(plan.verdict.message).toMatch(/kubectl delete pod g-0/);
    expect(plan.status.deadline).toBeUndefined();
  });

  it("GPUs contested: GpuContested naming the pending pods; the resource's own pods never count", () => {
    const waiting = { ...pod("other-0", "other", "x", false) };
    waiting.status = {
      conditions: [
        {
          type: "PodScheduled",
          status: "False",
          message: "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.",
        },
      ],
    };
    const plan = planPodRollout({
      spec: undefined,
      previous: undefined,
      statefulSets: [sts("o", 1)],
      pods: [pod("o-0", "o", "o-old")],
      readings: new Map([reading("o-0", 0)]),
      now: T0,
      freshMs: 60_000,
      gpuStatefulSets: new Set(["o"]),
      gpuWaiters: () => gpuWaitersAmong([waiting, pod("o-0", "o", "o-old")]),
    });
    expect(plan.verdict.reason).toBe("GpuContested");
    expect(plan.verdict.message).toMatch(
      /^replacing pod o-0 would free its GPU\(s\) while pod\(s\) other-0 wait for GPUs/,
    );
    expect(plan.recheckAfterMs).toBe(60_000);
  });

  it("a StatefulSet whose new revision is not recorded yet is not called pending", () => {
    const plan = planPodRollout({
      spec: undefined,
      previous: undefined,
      statefulSets: [sts("o", 1, { seen: false })],
      pods: [pod("o-0", "o", "o-old")],
      readings: new Map(),
      now: T0,
      freshMs: 60_000,
    });
    expect(plan.steps[0]?.step.kind).toBe("unknownRevision");
    expect(plan.verdict.status).toBe("False");
    expect(plan.status.pendingSince).toBeUndefined();
  });

  it("an in-place restart: says until when it waits, looks again then, and says the pod is replaced once it timed out", () => {
    const asked = {
      ...pod("g-0", "g", "g-new"),
    } as PodFacts;
    asked.metadata = {
      ...asked.metadata,
      annotations: {
        "livepeer.org/config-hash": "A",
        "livepeer.org/config-hash-wanted": "B",
        "livepeer.org/config-restarts": "0",
        "livepeer.org/config-restart-requested-at": "2026-11-28T01:00:00Z",
      },
    };
    asked.status = {
      ...asked.status,
      containerStatuses: [{ name: "livepeer", ready: true, restartCount: 0 }],
    };
    const at = (now: number) =>
      planPodRollout({
        spec: undefined,
        previous: { replicas: 1, updatedReplicas: 0, pendingSince: "2026-11-28T01:00:00Z" },
        statefulSets: [sts("g", 1)],
        pods: [asked],
        readings: new Map([reading("g-0", 0, now)]),
        now,
        freshMs: 60_000,
        configHashes: new Map([["g", "B"]]),
      });
    const waiting = at(T0 + 60_000);
    expect(waiting.verdict.reason).toBe("RestartingInPlace");
    expect(waiting.verdict.message).toMatch(
      /restarting the node of pod g-0 in place .*; not restarted by 2026-11-28T01:05:00Z, the pod is replaced instead/,
    );
    // No event of its own would come if the kubelet never restarts it: look again at the timeout.
    expect(waiting.recheckAfterMs).toBe(4 * 60_000 + 1_000);
    const timedOut = at(T0 + 5 * 60_000);
    expect(timedOut.steps[0]?.step).toMatchObject({
      kind: "replace",
      inPlace: false,
      restartTimedOut: { pod: "g-0", askedAt: T0, timeoutMs: 300_000 },
    });
    expect(timedOut.verdict.reason).toBe("ReplacingPod");
    expect(timedOut.status.inPlace).toBeUndefined();
    expect(timedOut.verdict.message).toMatch(
      /^the node of pod g-0 did not restart in place within 5 min \(asked at 2026-11-28T01:00:00Z\), so the pod is replaced instead: replacing pod g-0 \(idle\)/,
    );
  });
});

describe("RolloutPending of a reconcile that stamps its new pods, then writes their ConfigMap", () => {
  // What both node reconcilers do: stamp each never-stamped pod with the hash its ConfigMap holds
  // (`mounted`), write the ConfigMap (`planned`), then plan the rollout on the pods as the reconcile
  // began, with its stamps. A NodePort Orchestrator's first pod is the case: the reconcile that first
  // sees it placed stamps it with the in-cluster address's config and writes its node's address.
  const A = "cluster-address";
  const B = "node-address";
  const nodePod = (annotations: Record<string, string>, restartCount: number) =>
    ({
      ...pod("o-0", "o", "o-new"),
      metadata: { ...pod("o-0", "o", "o-new").metadata, annotations },
      status: {
        conditions: [{ type: "Ready", status: "True" }],
        containerStatuses: [{ name: "livepeer", ready: true, restartCount }],
      },
    }) as PodFacts;
  const asked = { "livepeer.org/config-hash": A, "livepeer.org/config-hash-wanted": B };
  it.each<{
    what: string;
    annotations: Record<string, string>;
    restarts?: number;
    mounted: string | undefined;
    planned: string;
    sessions?: number;
    rollout: string;
    updated: number;
  }>([
    {
      what: "a new pod, its ConfigMap unchanged: it runs the current config",
      annotations: {},
      mounted: A,
      planned: A,
      rollout: "False UpToDate",
      updated: 1,
    },
    {
      what: "a new pod, its ConfigMap changed by the same reconcile: it runs the older config; restarted in place, idle",
      annotations: {},
      mounted: A,
      planned: B,
      sessions: 0,
      rollout: "True RestartingInPlace",
      updated: 0,
    },
    {
      what: "a new pod, its ConfigMap changed by the same reconcile, its sessions not read yet: waits for them",
      annotations: {},
      mounted: A,
      planned: B,
      rollout: "True SessionsOpen",
      updated: 0,
    },
    {
      what: "a pod stamped before: restarted in place, idle",
      annotations: { "livepeer.org/config-hash": A },
      mounted: B,
      planned: B,
      sessions: 0,
      rollout: "True RestartingInPlace",
      updated: 0,
    },
    {
      what: "asked to restart into the current config, not restarted yet",
      annotations: { ...asked, "livepeer.org/config-restarts": "0" },
      restarts: 0,
      mounted: B,
      planned: B,
      sessions: 0,
      rollout: "True RestartingInPlace",
      updated: 0,
    },
    {
      what: "asked to restart into the current config, restarted since",
      annotations: { ...asked, "livepeer.org/config-restarts": "0" },
      restarts: 1,
      mounted: B,
      planned: B,
      rollout: "False UpToDate",
      updated: 1,
    },
    {
      what: "a new pod whose ConfigMap is not cached (it cannot start before its ConfigMap exists): current",
      annotations: {},
      mounted: undefined,
      planned: A,
      rollout: "False UpToDate",
      updated: 1,
    },
  ])("$what: RolloutPending $rollout", (c) => {
    const cached = [nodePod(c.annotations, c.restarts ?? 0)];
    const pods = withStamps(
      cached,
      podsToStamp(cached, () => c.mounted),
    );
    const plan = planPodRollout({
      spec: undefined,
      previous: undefined,
      statefulSets: [sts("o", 1)],
      pods,
      readings: new Map(c.sessions === undefined ? [] : [reading("o-0", c.sessions)]),
      now: T0,
      freshMs: 60_000,
      configHashes: new Map([["o", c.planned]]),
    });
    expect(`${plan.verdict.status} ${plan.verdict.reason}`).toBe(c.rollout);
    expect(plan.status.updatedReplicas).toBe(c.updated);
  });
});
