import { describe, expect, it } from "vitest";
import { LiveAppSchema, type LiveAppSpec } from "../../schema/live-ai.ts";
import { type GpuClaim, type GpuNode, liveRunnerCounts } from "./capacity.ts";

const app = (o: Partial<LiveAppSpec> & { id: string }): LiveAppSpec =>
  LiveAppSchema.parse({ price: { usd: "0.5" }, ...o });
const A100 = "NVIDIA-A100-SXM4-40GB";
const H100 = "NVIDIA-H100-80GB-HBM3";
const nodes: GpuNode[] = [
  { name: "a100-a", product: A100, gpus: 4 },
  { name: "a100-b", product: A100, gpus: 2 },
  { name: "h100", product: H100, gpus: 8 },
];

describe("liveRunnerCounts: runners per app, counted per GPU", () => {
  it.each<[string, LiveAppSpec[], GpuClaim[], [number, RegExp][]]>([
    ["replicas absent: one runner", [app({ id: "sd" })], [], [[1, /replicas 1 x 1 GPU/]]],
    [
      "a fixed count that fits",
      [app({ id: "sd", replicas: 3, gpuProduct: A100 })],
      [],
      [[3, /replicas 3 x 1 GPU$/]],
    ],
    [
      "a fixed count beyond the free GPUs: the count stands, the reason says what stays Pending",
      [app({ id: "sd", replicas: 8, gpuProduct: A100 })],
      [],
      [[8, /only 6 fit .* 2 will stay Pending/]],
    ],
    [
      "one per GPU on the pinned product",
      [app({ id: "sd", onePerGpu: true, gpuProduct: A100 })],
      [],
      [[6, /6 free GPU\(s\) on 2 node\(s\) .* = 6 runner/]],
    ],
    [
      "one per GPU, two GPUs per runner: whole runners per node",
      [app({ id: "sd", onePerGpu: true, gpus: 2, gpuProduct: A100 })],
      [],
      [[3, /\/ 2 per runner = 3 runner/]],
    ],
    [
      "the video pod and batch runners take their GPUs first",
      [app({ id: "sd", onePerGpu: true, gpuProduct: A100 })],
      [
        { gpus: 1, product: A100, what: "the video pod" },
        { gpus: 2, product: A100, what: "stabilityai/sd-turbo runner" },
      ],
      [[3, /after the video pod \(1 GPU\), stabilityai\/sd-turbo runner \(2 GPU\)/]],
    ],
    [
      "an earlier app's runners are not free for a later one-per-GPU app",
      [app({ id: "a", replicas: 5 }), app({ id: "b", onePerGpu: true })],
      [],
      [
        [5, /replicas 5/],
        [9, /= 9 runner/],
      ],
    ],
    [
      "no node with the product: none",
      [app({ id: "sd", onePerGpu: true, gpuProduct: "Tesla-T4" })],
      [],
      [[0, /no GPU node with Tesla-T4/]],
    ],
    ["CPU runners (tests)", [app({ id: "sd", gpus: 0, replicas: 2 })], [], [[2, /no GPU/]]],
  ])("%s", (_, apps, claims, want) => {
    const counts = liveRunnerCounts(apps, nodes, claims);
    expect(counts.map((c) => c.runners)).toEqual(want.map(([n]) => n));
    for (const [i, c] of counts.entries()) {
      expect(c.reason).toMatch(want[i]![1]);
      expect(c.gpus).toBe(c.runners * apps[i]!.gpus);
    }
  });
});
