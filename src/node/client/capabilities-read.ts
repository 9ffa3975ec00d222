// What a node's capabilities JSON says, flattened: capability numbers, capacities and AI models.
import type { z } from "zod";
import { capabilitiesFromBitstring } from "./capabilities.ts";
import type { CapabilitiesSchema } from "./schemas.ts";

export interface AiModelCapacity {
  capability: number;
  modelId: string;
  warm: boolean;
  capacity: number;
  capacityInUse: number;
}

export interface NodeCapabilities {
  /** Capability numbers, from the bit set and the capacities (sorted, unique). */
  ids: number[];
  /** Per capability number, how many sessions the node offers. */
  capacities: Record<number, number>;
  aiModels: AiModelCapacity[];
  version: string | undefined;
}

export function readCapabilities(
  c: z.output<typeof CapabilitiesSchema> | null | undefined,
): NodeCapabilities {
  if (!c) return { ids: [], capacities: {}, aiModels: [], version: undefined };
  const capacities: Record<number, number> = {};
  for (const [key, value] of Object.entries(c.capacities ?? {})) capacities[Number(key)] = value;
  const ids = new Set([...capabilitiesFromBitstring(c.bitstring), ...Object.keys(capacities).map(Number)]);
  const aiModels: AiModelCapacity[] = [];
  for (const [cap, constraints] of Object.entries(c.constraints?.PerCapability ?? {})) {
    for (const [modelId, m] of Object.entries(constraints.models ?? {})) {
      aiModels.push({
        capability: Number(cap),
        modelId,
        warm: m.warm ?? false,
        capacity: m.capacity ?? 0,
        capacityInUse: m.capacityInUse ?? 0,
      });
    }
  }
  return { ids: [...ids].sort((a, b) => a - b), capacities, aiModels, version: c.version || undefined };
}
