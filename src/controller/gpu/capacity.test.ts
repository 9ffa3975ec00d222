import { describe, expect, it } from "vitest";
import { type GpuNode, type GpuPodNeeds, type GpuUse, gpuSlotFor, gpusRequested } from "./capacity.ts";
import { placementFor } from "./placement.ts";

const gpuLabels = (product: string) => ({
  "nvidia.com/gpu.present": "true",
  "nvidia.com/gpu.product": product,
  "nvidia.com/gpu.engines.encoder": "1",
});
const node = (name: string, allocatable: number, o: Partial<GpuNode> = {}): GpuNode => ({
  name,
  labels: { ...gpuLabels("NVIDIA-GeForce-RTX-3090"), pool: "a" },
  allocatable,
  taints: [{ key: "nvidia.com/gpu", effect: "NoSchedule" }],
  ...o,
});
/** A node pod's scheduling fields, as placement.ts renders them for the StatefulSet's template. */
const needs = (gpus: number, o: { product?: string; pool?: string } = {}): GpuPodNeeds => {
  const p = placementFor({ count: gpus, product: o.product, needsEncoder: true });
  return {
    gpus,
    nodeSelector: { pool: o.pool ?? "a" },
    nodeSelectorTerms:
      p.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
    tolerations: p.tolerations,
  };
};
const use = (n: string, gpus: number, uid: string): GpuUse => ({ node: n, gpus, uid });

/** The verdict, reduced to what the table compares. */
function summary(...a: Parameters<typeof gpuSlotFor>): string {
  const s = gpuSlotFor(...a);
  const free = s.candidates.map((c) => `${c.node} ${c.free}/${c.allocatable}`).join(", ") || "no node";
  return `${s.fits ? "fits" : "no slot"}${s.ownSlot ? " (own slot)" : ""}: ${free}`;
}

describe("gpuSlotFor: whether a replacement GPU pod would find a node", () => {
  const full = [node("a1", 2)];
  const old = use("a1", 1, "old");
  it.each<[string, Parameters<typeof gpuSlotFor>, string]>([
    [
      "same count on its full node: it gets its own GPUs back",
      [needs(1), full, [old, use("a1", 1, "other")], old],
      "fits (own slot): a1 1/2",
    ],
    [
      "count raised on a full node: the freed GPU is not enough",
      [needs(2), full, [old, use("a1", 1, "other")], old],
      "no slot: a1 1/2",
    ],
    ["count raised, the other GPU free: fits on its own node", [needs(2), full, [old], old], "fits: a1 2/2"],
    [
      "count raised, another node of the pool has room",
      [needs(2), [...full, node("a2", 2)], [old, use("a1", 1, "other")], old],
      "fits: a2 2/2, a1 1/2",
    ],
    [
      "a GPU model with no node in the pool",
      [needs(1, { product: "Tesla-T4" }), full, [old], old],
      "no slot: no node",
    ],
    [
      "moved to another pool, which is full; its own node no longer matches",
      [
        needs(1, { pool: "b" }),
        [...full, node("b1", 1, { labels: { ...gpuLabels("NVIDIA-GeForce-RTX-3090"), pool: "b" } })],
        [old, use("b1", 1, "x")],
        old,
      ],
      "no slot: b1 0/1",
    ],
    [
      "a pod on another node does not count against this one",
      [needs(2), [node("a1", 2), node("a2", 2)], [use("a2", 2, "x")], undefined],
      "fits: a1 2/2, a2 0/2",
    ],
    [
      "a cordoned node takes nothing",
      [needs(1), [node("a1", 2, { unschedulable: true })], [], undefined],
      "no slot: no node",
    ],
    [
      "a taint the template does not tolerate keeps it off",
      [
        needs(1),
        [node("a1", 2, { taints: [{ key: "dedicated", value: "ml", effect: "NoExecute" }] })],
        [],
        undefined,
      ],
      "no slot: no node",
    ],
    [
      "a PreferNoSchedule taint only steers",
      [
        needs(1),
        [node("a1", 2, { taints: [{ key: "dedicated", effect: "PreferNoSchedule" }] })],
        [],
        undefined,
      ],
      "fits: a1 2/2",
    ],
    [
      "a node without allocatable GPUs has none free",
      [needs(1), [node("a1", 0)], [], undefined],
      "no slot: a1 0/0",
    ],
    ["a CPU pod needs no slot", [{ gpus: 0 }, [], [], undefined], "fits: no node"],
  ])("%s", (_what, args, expected) => {
    expect(summary(...args)).toBe(expected);
  });

  it("matchFields metadata.name and an Exists toleration with no key", () => {
    const pinned: GpuPodNeeds = {
      gpus: 1,
      nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["a2"] }] }],
      tolerations: [{ operator: "Exists" }],
    };
    expect(gpuSlotFor(pinned, [node("a1", 2), node("a2", 1)], []).candidates.map((c) => c.node)).toEqual([
      "a2",
    ]);
  });
});

describe("gpusRequested", () => {
  it.each<[string, Parameters<typeof gpusRequested>[0], number]>([
    ["no containers", {}, 0],
    ["limits", { containers: [{ resources: { limits: { "nvidia.com/gpu": "2" } } }] }, 2],
    ["requests only", { containers: [{ resources: { requests: { "nvidia.com/gpu": "1" } } }] }, 1],
    [
      "summed over containers",
      {
        containers: [
          { resources: { limits: { "nvidia.com/gpu": "1" } } },
          { resources: { limits: { cpu: "1" } } },
          { resources: { limits: { "nvidia.com/gpu": 1 } } },
        ],
      },
      2,
    ],
  ])("%s", (_what, spec, expected) => expect(gpusRequested(spec)).toBe(expected));
});
