import { describe, expect, it } from "vitest";
import { defaultFleet, nodeObject } from "../../dev/cluster/nodes.ts";
import { type NodeGpus, nodeGpusFromLabels, sessionLimitFor } from "./session-limit.ts";

const fleet: Record<string, NodeGpus> = Object.fromEntries(
  defaultFleet
    .map((s) => nodeGpusFromLabels(s.name, nodeObject(s).metadata!.labels!))
    .filter((n): n is NodeGpus => !!n)
    .map((n) => [n.node, n]),
);
const n = (name: string) => fleet[name]!;

describe("sessionLimitFor", () => {
  const cases: {
    name: string;
    input: Parameters<typeof sessionLimitFor>[0];
    maxSessions: number;
    reason: RegExp;
    above?: boolean;
  }[] = [
    {
      name: "2 consumer GPUs at the default 2 renditions: cap 8 / 2 = 4 each",
      input: { gpus: 2, candidates: [n("gpu-rtx3090-a")], renditions: 2 },
      maxSessions: 8,
      reason: /^2 x NVIDIA-GeForce-RTX-3090: NVENC cap 8 \/ 2 renditions = 4 streams each -> 8$/,
    },
    {
      name: "consumer GPU with 3 renditions rounds down",
      input: { gpus: 1, candidates: [n("gpu-rtx3090-a")], renditions: 3 },
      maxSessions: 2,
      reason: /NVENC cap 8 \/ 3 renditions = 2 streams each -> 2/,
    },
    {
      name: "T4 uses the documented default",
      input: { gpus: 1, candidates: [n("gpu-t4")], renditions: 2 },
      maxSessions: 14,
      reason: /Tesla-T4: community benchmark: T4 ~14 streams each -> 14/,
    },
    {
      name: "time-sliced T4 shares its encoder 4 ways",
      input: { gpus: 1, candidates: [n("gpu-t4-shared")], renditions: 2 },
      maxSessions: 3,
      reason: /time-sliced 4 ways = 3/,
    },
    {
      name: "unpinned: the most conservative candidate wins",
      input: { gpus: 1, candidates: [n("gpu-rtx3090-a"), n("gpu-t4"), n("gpu-t4-shared")], renditions: 2 },
      maxSessions: 3,
      reason: /lowest of 3 candidate nodes/,
    },
    {
      name: "encoder-less candidates never count",
      input: { gpus: 1, candidates: [n("gpu-a100"), n("gpu-t4")], renditions: 2 },
      maxSessions: 14,
      reason: /Tesla-T4/,
    },
    {
      name: "no encoder anywhere: 1 until placed",
      input: { gpus: 1, candidates: [n("gpu-a100")], renditions: 2 },
      maxSessions: 1,
      reason: /no candidate node with a video encoder/,
    },
    {
      name: "CPU only",
      input: { gpus: 0, candidates: [], renditions: 2 },
      maxSessions: 5,
      reason: /CPU transcoding/,
    },
    {
      name: "sessionsPerGpu replaces the table",
      input: { gpus: 2, candidates: [n("gpu-t4")], renditions: 2, sessionsPerGpu: 10 },
      maxSessions: 20,
      reason: /sessionsPerGpu 10 each -> 20/,
    },
    {
      name: "override within capacity",
      input: { gpus: 2, candidates: [n("gpu-rtx3090-a")], renditions: 2, override: 6 },
      maxSessions: 6,
      reason: /^spec.maxSessions 6$/,
      above: false,
    },
    {
      name: "override above the encoder's capacity is flagged",
      input: { gpus: 2, candidates: [n("gpu-rtx3090-a")], renditions: 2, override: 20 },
      maxSessions: 20,
      reason: /above what the GPUs can encode/,
      above: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = sessionLimitFor(c.input);
      expect(r.maxSessions).toBe(c.maxSessions);
      expect(r.reason).toMatch(c.reason);
      expect(r.overrideAboveCapacity).toBe(c.above ?? false);
    });
  }
});

describe("nodeGpusFromLabels", () => {
  it("reads count, replicas and encoders; a node without a product label has no GPUs", () => {
    expect(n("gpu-t4-shared")).toMatchObject({ product: "Tesla-T4-SHARED", count: 1, replicas: 4 });
    expect(n("gpu-a100")).toMatchObject({ encoders: 0, count: 4 });
    expect(nodeGpusFromLabels("cpu", { "kubernetes.io/os": "linux" })).toBeUndefined();
  });
});
