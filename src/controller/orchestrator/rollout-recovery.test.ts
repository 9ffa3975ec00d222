import { describe, expect, it } from "vitest";
import {
  notReadyCause,
  type RolloutPod,
  type RolloutStatefulSet,
  stuckPodMessage,
  stuckRolloutPods,
} from "./rollout-recovery.ts";

const NOW = Date.parse("2025-01-01T00:10:00Z");
const ago = (s: number) => new Date(NOW - s * 1000).toISOString();
const GRACE = 60_000;

const sts = (
  o: Partial<{ generation: number; observed: number; update: string }> = {},
): RolloutStatefulSet => ({
  metadata: { name: "orch", generation: o.generation ?? 3 },
  status: { observedGeneration: o.observed ?? 3, updateRevision: o.update ?? "orch-new" },
});

type PodShape = {
  revision?: string;
  ready?: boolean;
  since?: number;
  waiting?: string;
  unschedulable?: string;
  deleting?: boolean;
  owner?: string;
  phase?: string;
};

function pod(p: PodShape): RolloutPod {
  const conditions: NonNullable<RolloutPod["status"]>["conditions"] = [];
  if (p.unschedulable) {
    conditions.push({
      type: "PodScheduled",
      status: "False",
      reason: "Unschedulable",
      message: p.unschedulable,
      lastTransitionTime: ago(p.since ?? 0),
    });
  } else {
    conditions.push({
      type: "Ready",
      status: p.ready ? "True" : "False",
      lastTransitionTime: ago(p.since ?? 0),
    });
  }
  return {
    metadata: {
      name: "orch-0",
      uid: "u1",
      labels: p.revision === undefined ? {} : { "controller-revision-hash": p.revision },
      creationTimestamp: ago(600),
      ...(p.deleting ? { deletionTimestamp: ago(1) } : {}),
      ownerReferences: [{ kind: "StatefulSet", name: p.owner ?? "orch", controller: true }],
    },
    status: {
      phase: p.phase ?? (p.unschedulable ? "Pending" : "Running"),
      conditions,
      containerStatuses: p.waiting ? [{ state: { waiting: { reason: p.waiting } } }] : [],
    },
  };
}

describe("stuckRolloutPods", () => {
  it.each<[string, RolloutStatefulSet, PodShape, { stuck: string[]; recheck?: number }]>([
    [
      "old revision crash-looping past the grace: stuck",
      sts(),
      { revision: "orch-bad", waiting: "CrashLoopBackOff", since: 90 },
      { stuck: ["orch-0"] },
    ],
    [
      "old revision, image never pulls: stuck",
      sts(),
      { revision: "orch-bad", waiting: "ErrImageNeverPull", since: 61 },
      { stuck: ["orch-0"] },
    ],
    [
      "old revision, unschedulable past the grace: stuck",
      sts(),
      { revision: "orch-bad", unschedulable: "0/3 nodes are available", since: 120 },
      { stuck: ["orch-0"] },
    ],
    [
      "old revision, not Ready yet within the grace: recheck later",
      sts(),
      { revision: "orch-bad", waiting: "CrashLoopBackOff", since: 45 },
      { stuck: [], recheck: 15_000 },
    ],
    [
      "old revision but Ready: the StatefulSet rolls it itself",
      sts(),
      { revision: "orch-old", ready: true, since: 900 },
      { stuck: [] },
    ],
    [
      "update revision crash-looping: deleting it would not help",
      sts(),
      { revision: "orch-new", waiting: "CrashLoopBackOff", since: 900 },
      { stuck: [] },
    ],
    [
      "already being deleted",
      sts(),
      { revision: "orch-bad", waiting: "CrashLoopBackOff", since: 900, deleting: true },
      { stuck: [] },
    ],
    [
      "a pod of another StatefulSet",
      sts(),
      { revision: "orch-bad", waiting: "CrashLoopBackOff", since: 900, owner: "orch-transcoder" },
      { stuck: [] },
    ],
    ["no revision label", sts(), { waiting: "CrashLoopBackOff", since: 900 }, { stuck: [] }],
    [
      "StatefulSet controller has not seen the new spec: revisions are stale",
      sts({ generation: 4, observed: 3 }),
      { revision: "orch-bad", waiting: "CrashLoopBackOff", since: 900 },
      { stuck: [] },
    ],
  ])("%s", (_name, statefulSet, p, want) => {
    const r = stuckRolloutPods({ statefulSet, pods: [pod(p)], now: NOW, graceMs: GRACE });
    expect(r.stuck.map((s) => s.name)).toEqual(want.stuck);
    expect(r.recheckAfterMs).toBe(want.recheck);
  });

  it("reports the revisions, the cause and how long", () => {
    const [s] = stuckRolloutPods({
      statefulSet: sts(),
      pods: [pod({ revision: "orch-bad", waiting: "ImagePullBackOff", since: 75 })],
      now: NOW,
      graceMs: GRACE,
    }).stuck;
    expect(s).toEqual({
      name: "orch-0",
      uid: "u1",
      revision: "orch-bad",
      updateRevision: "orch-new",
      cause: "ImagePullBackOff",
      notReadyForMs: 75_000,
    });
    expect(stuckPodMessage("orch", s!)).toBe(
      "deleted pod orch-0 of StatefulSet orch: it was on revision orch-bad and not Ready for 75 s (ImagePullBackOff); the StatefulSet does not replace such a pod by itself (kubernetes/kubernetes#67250), so its replacement now runs the fixed revision orch-new",
    );
  });

  it("the earliest recheck among several waiting pods", () => {
    const a = pod({ revision: "orch-bad", waiting: "CrashLoopBackOff", since: 10 });
    const b = {
      ...pod({ revision: "orch-bad", waiting: "CrashLoopBackOff", since: 50 }),
      metadata: { ...pod({}).metadata, name: "orch-1", labels: { "controller-revision-hash": "orch-bad" } },
    };
    expect(
      stuckRolloutPods({ statefulSet: sts(), pods: [a, b], now: NOW, graceMs: GRACE }).recheckAfterMs,
    ).toBe(10_000);
  });
});

describe("notReadyCause", () => {
  it.each<[string, PodShape, string]>([
    ["a waiting container's reason", { waiting: "CreateContainerConfigError" }, "CreateContainerConfigError"],
    [
      "the scheduler's reason",
      { unschedulable: "0/3 nodes are available: 3 Insufficient nvidia.com/gpu." },
      "Unschedulable: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
    ],
    ["running but failing its probe", {}, "Running, not Ready"],
  ])("%s", (_n, p, want) => expect(notReadyCause(pod(p))).toBe(want));
});
