import { describe, expect, it } from "vitest";
import { nodeObject } from "../../dev/cluster/nodes.ts";
import type { NodeReading } from "../doctor/index.ts";
import { placementFor } from "../gpu/placement.ts";
import { type NodeFacts, nodeFacts, type PodFacts, podFacts } from "./facts.ts";
import { gpuSlotAmong, type PlannedStatefulSet } from "./gpu-slot.ts";
import { planPodRollout } from "./pod-rollout.ts";

const T0 = Date.parse("2026-11-28T01:00:00Z");
const POOL = { "livepeer.org/test-pool": "p" };
const RTX = "NVIDIA-GeForce-RTX-3090";

/** A kwok GPU node as the dev cluster makes it, reduced as the controller's cache keeps it. */
const gpuNode = (name: string, count: number, labels = POOL) =>
  nodeFacts(
    nodeObject({
      name,
      cpu: "32",
      memory: "128Gi",
      gpu: { product: RTX, count, memoryMiB: 24576, family: "ampere", computeMajor: 8, computeMinor: 6 },
      labels,
    }) as never,
  ) as NodeFacts;

/** The orchestrator's planned StatefulSet: its template as placement.ts renders it. */
const planned = (gpus: number, o: { product?: string } = {}): PlannedStatefulSet => {
  const p = placementFor({ count: gpus, product: o.product ?? RTX, needsEncoder: true });
  return {
    metadata: { name: "o" },
    spec: {
      template: {
        spec: {
          containers: [{ name: "livepeer", resources: { limits: p.limits } }],
          nodeSelector: POOL,
          ...(p.affinity ? { affinity: p.affinity } : {}),
          tolerations: [...p.tolerations, { key: "livepeer.org/test-pool", operator: "Equal", value: "p" }],
        },
      },
    },
  };
};

/** A running pod holding `gpus` GPUs on `node`, as the cache keeps it. */
const gpuPod = (name: string, owner: string, node: string, gpus: number, revision = "old"): PodFacts =>
  podFacts({
    metadata: {
      name,
      uid: `${name}-uid`,
      labels: { "controller-revision-hash": `${owner}-${revision}` },
      ownerReferences: [
        { apiVersion: "apps/v1", kind: "StatefulSet", name: owner, uid: "s", controller: true },
      ],
    },
    spec: {
      nodeName: node,
      containers: [{ name: "livepeer", resources: { limits: { "nvidia.com/gpu": String(gpus) } } }],
    },
    status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
  }) as PodFacts;

const idle: [string, NodeReading] = [
  "o-0-uid",
  { pod: "o-0", at: new Date(T0), answered: ["/status", "/metrics"], simulated: true, sessions: 0 },
];

/** The rollout of Orchestrator `o` (one GPU pod, o-0 on gpu-a) to `template`, among `pods`. */
function plan(
  template: PlannedStatefulSet,
  nodes: NodeFacts[],
  others: PodFacts[],
  o: { maxWait?: string } = {},
) {
  const own = gpuPod("o-0", "o", "gpu-a", 1);
  const all = [own, ...others];
  return planPodRollout({
    spec: { strategy: "whenIdle", ...(o.maxWait ? { maxWait: o.maxWait } : {}) },
    previous: { replicas: 1, updatedReplicas: 0, pendingSince: "2026-11-28T00:30:00Z" },
    statefulSets: [
      {
        metadata: { name: "o", generation: 2 },
        spec: { replicas: 1 },
        status: { observedGeneration: 2, updateRevision: "o-new" },
      },
    ],
    pods: [own],
    readings: new Map([idle]),
    now: T0,
    freshMs: 60_000,
    gpuStatefulSets: new Set(["o"]),
    gpuSlot: gpuSlotAmong([template], nodes, all),
  });
}

describe("a rollout that needs a new GPU pod asks for a free slot first (from the Node and Pod caches)", () => {
  const pool = [gpuNode("gpu-a", 2)];
  const filler = gpuPod("filler-0", "filler", "gpu-a", 1);

  it("gpu.count raised on a full pool: WaitingForGpuSlot naming the need, what is free where and what to do", () => {
    const p = plan(planned(2), pool, [filler]);
    expect(p.steps[0]?.step.kind).toBe("waitForGpuSlot");
    expect(p.verdict).toMatchObject({ status: "True", reason: "WaitingForGpuSlot" });
    expect(p.verdict.message).toBe(
      "pod o-0 is not replaced: its replacement needs 2 GPU(s) and no node its template may run on has them free (free now, counting the GPUs pod o-0 frees: gpu-a 1 of 2); waiting for a free slot, with no deadline (set spec.rollout.maxWait to bound it); to roll: free 2 GPU(s) on one of those nodes, add a node with 2 free GPU(s) its placement allows, or set spec.rollout.strategy: immediate (the replacement may then stay Pending) (pending since 2026-11-28T00:30:00Z)",
    );
    // Nothing of the resource's own changes when another pod frees a GPU: it looks again.
    expect(p.recheckAfterMs).toBe(60_000);
  });

  it("with maxWait: until the deadline, then replaced anyway, saying the replacement may stay Pending", () => {
    const waiting = plan(planned(2), pool, [filler], { maxWait: "2h" });
    expect(waiting.verdict.message).toMatch(
      /until 2026-11-28T02:30:00Z \(spec.rollout.maxWait\), then replaced anyway \(the replacement may stay Pending\)/,
    );
    const past = plan(planned(2), pool, [filler], { maxWait: "30m" });
    expect(past.steps[0]?.step).toMatchObject({ kind: "replace", why: "deadline", noSlot: { need: 2 } });
    expect(past.verdict.message).toMatch(
      /^replacing pod o-0 \(maxWait passed\); its replacement needs 2 GPU\(s\).*may stay Pending/,
    );
  });

  it("a GPU freed on the pool (the other pod gone): replaced", () => {
    expect(plan(planned(2), pool, []).steps[0]?.step).toMatchObject({ kind: "replace", why: "idle" });
    // A finished pod holds nothing.
    const done = { ...filler, status: { phase: "Succeeded" } } as PodFacts;
    expect(plan(planned(2), pool, [done]).steps[0]?.step).toMatchObject({ kind: "replace", why: "idle" });
  });

  it("another node of the pool with room: replaced", () => {
    const step = plan(planned(2), [...pool, gpuNode("gpu-b", 2)], [filler]).steps[0]?.step;
    expect(step).toMatchObject({ kind: "replace", why: "idle" });
  });

  it("the same GPUs and placement on a full pool (an image change): it gets its own back, replaced", () => {
    const step = plan(planned(1), pool, [filler]).steps[0]?.step;
    expect(step).toMatchObject({ kind: "replace", why: "idle" });
    expect(step).not.toHaveProperty("noSlot");
  });

  it("a GPU model no node of its pool has: waits, saying no node matches", () => {
    const p = plan(planned(1, { product: "Tesla-T4" }), pool, []);
    expect(p.verdict.reason).toBe("WaitingForGpuSlot");
    expect(p.verdict.message).toMatch(
      /no schedulable node matches its placement .*; to roll: add a node with 1 free GPU\(s\) its placement allows, or set spec.rollout.strategy: immediate/,
    );
  });

  it("a node of another pool with free GPUs does not count", () => {
    const p = plan(planned(2), [...pool, gpuNode("gpu-x", 4, { "livepeer.org/test-pool": "x" })], [filler]);
    expect(p.verdict.reason).toBe("WaitingForGpuSlot");
    expect(p.verdict.message).toMatch(/\(free now, counting the GPUs pod o-0 frees: gpu-a 1 of 2\)/);
  });
});
