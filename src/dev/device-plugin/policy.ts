// What the fake NVIDIA plugin decides, as pure functions: device ids, the preferred
// allocation, and the environment a container gets for its devices.
import { createHash } from "node:crypto";
import type { ContainerPreferredAllocationRequest } from "./messages.ts";

/**
 * `count` stable ids shaped like NVIDIA's (`GPU-fef8089b-4820-abfc-e83e-94318197576e`), derived
 * from `seed` so a node keeps its GPUs across restarts.
 */
export function fakeGpuIds(seed: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const h = createHash("sha256").update(`${seed}/${i}`).digest("hex");
    return `GPU-${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  });
}

/** The devices that must be included first, then the available ones in order, up to the size. */
export function preferredAllocation(req: ContainerPreferredAllocationRequest): string[] {
  const picked: string[] = [];
  for (const id of [...req.mustIncludeDeviceIds, ...req.availableDeviceIds]) {
    if (picked.length >= req.allocationSize) break;
    if (!picked.includes(id)) picked.push(id);
  }
  return picked;
}

/** NVIDIA's plugin (envvar strategy) hands the container runtime the devices in this variable. */
export function allocationEnv(deviceIds: readonly string[]): Record<string, string> {
  return { NVIDIA_VISIBLE_DEVICES: deviceIds.join(",") };
}
