import { describe, expect, it } from "vitest";
import { allocationEnv, fakeGpuIds, preferredAllocation } from "./policy.ts";

describe("fake NVIDIA plugin policy", () => {
  it("makes stable NVIDIA-shaped ids, distinct per index and per seed", () => {
    const ids = fakeGpuIds("node-a", 3);
    expect(ids).toHaveLength(3);
    for (const id of ids)
      expect(id).toMatch(/^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(3);
    expect(fakeGpuIds("node-a", 3)).toEqual(ids);
    expect(fakeGpuIds("node-b", 1)[0]).not.toBe(ids[0]);
  });

  it.each([
    { available: ["a", "b", "c"], must: [], size: 2, want: ["a", "b"] },
    { available: ["a", "b", "c"], must: ["c"], size: 2, want: ["c", "a"] },
    { available: ["a", "b"], must: ["b"], size: 1, want: ["b"] },
    { available: ["a"], must: [], size: 3, want: ["a"] },
  ])(
    "prefers must-include devices first: $must + $available, size $size -> $want",
    ({ available, must, size, want }) => {
      expect(
        preferredAllocation({
          availableDeviceIds: available,
          mustIncludeDeviceIds: must,
          allocationSize: size,
        }),
      ).toEqual(want);
    },
  );

  it("lists the allocated devices in NVIDIA_VISIBLE_DEVICES", () => {
    expect(allocationEnv(["GPU-1", "GPU-2"])).toEqual({ NVIDIA_VISIBLE_DEVICES: "GPU-1,GPU-2" });
  });
});
