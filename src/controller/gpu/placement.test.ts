import { describe, expect, it } from "vitest";
import { defaultFleet, nodeObject } from "../../dev/cluster/nodes.ts";
import { gpuNodeRequirements, labelsMatch, nvidiaDevices, placementFor } from "./placement.ts";
import { renditionsIn } from "./renditions.ts";

const labelsOf = Object.fromEntries(defaultFleet.map((s) => [s.name, nodeObject(s).metadata!.labels!]));
const eligible = (req: Parameters<typeof gpuNodeRequirements>[0]) =>
  Object.entries(labelsOf)
    .filter(([, l]) => labelsMatch(l, gpuNodeRequirements(req)))
    .map(([name]) => name)
    .sort();

describe("GPU placement", () => {
  it.each([
    [
      "video, unpinned: every GPU node with an encoder",
      { count: 1, needsEncoder: true },
      ["gpu-rtx3090-a", "gpu-rtx3090-b", "gpu-t4", "gpu-t4-shared"],
    ],
    ["video pinned to the T4", { count: 1, product: "Tesla-T4", needsEncoder: true }, ["gpu-t4"]],
    [
      "video pinned to an A100 finds nothing",
      { count: 1, product: "NVIDIA-A100-SXM4-40GB", needsEncoder: true },
      [],
    ],
    [
      "AI only may use the A100",
      { count: 1, needsEncoder: false },
      ["gpu-a100", "gpu-rtx3090-a", "gpu-rtx3090-b", "gpu-t4", "gpu-t4-shared"],
    ],
  ] as const)("%s", (_, req, nodes) => {
    expect(eligible(req)).toEqual(nodes);
  });

  it("asks for GPUs in limits, tolerates the GPU taint and numbers devices from 0", () => {
    const p = placementFor({ count: 2, needsEncoder: true, runtimeClassName: "nvidia" });
    expect(p.limits).toEqual({ "nvidia.com/gpu": "2" });
    expect(p.tolerations).toEqual([{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }]);
    expect(p.runtimeClassName).toBe("nvidia");
    expect(p.nvidiaDevices).toBe("0,1");
  });

  it("CPU-only pods get no GPU constraints", () => {
    expect(placementFor({ count: 0, needsEncoder: true })).toEqual({ limits: {}, tolerations: [] });
  });

  it.each([
    [undefined, 2],
    ["P240p30fps16x9,P360p30fps16x9,P720p30fps16x9", 3],
    ["P720p60fps16x9", 1],
    ["/etc/livepeer/profiles.json", 2],
  ])("renditionsIn(%s) = %i", (opts, count) => {
    expect(renditionsIn(opts)).toBe(count);
  });

  it("nvidiaDevices lists 0..N-1", () => {
    expect(nvidiaDevices(4)).toBe("0,1,2,3");
  });
});
