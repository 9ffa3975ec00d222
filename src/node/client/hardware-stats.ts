// GET /hardware/stats (node HTTP port): GPU memory and utilisation, in the AI runner's shape
// ({pipeline, model_id, gpu_stats: {<id>: {...}}}), or a list of those.
import { z } from "zod";
import { getJson, type RequestOptions, validateBody } from "./http.ts";
import { HardwareStatsEntrySchema } from "./schemas.ts";

export interface GpuStats {
  id: string;
  name: string | undefined;
  /** Bytes. */
  memoryTotal: number;
  memoryFree: number;
  /** 0..1, or undefined when the total is unknown. */
  memoryUsedFraction: number | undefined;
  utilizationCompute: number | undefined;
  utilizationMemory: number | undefined;
  pipeline: string | undefined;
  modelId: string | undefined;
}

export async function readHardwareStats(baseUrl: string, options: RequestOptions = {}): Promise<GpuStats[]> {
  const endpoint = "/hardware/stats";
  const body = await getJson(baseUrl, endpoint, z.unknown(), options);
  const entries = Array.isArray(body)
    ? body.map((e, i) => validateBody(baseUrl, endpoint, HardwareStatsEntrySchema, e, `${i}.`))
    : [validateBody(baseUrl, endpoint, HardwareStatsEntrySchema, body)];
  return entries.flatMap((entry) =>
    Object.entries(entry.gpu_stats).map(([key, g]) => ({
      id: g.id || key,
      name: g.name || undefined,
      memoryTotal: g.memory_total,
      memoryFree: g.memory_free,
      memoryUsedFraction: g.memory_total > 0 ? (g.memory_total - g.memory_free) / g.memory_total : undefined,
      utilizationCompute: g.utilization_compute,
      utilizationMemory: g.utilization_memory,
      pipeline: entry.pipeline || undefined,
      modelId: entry.model_id || undefined,
    })),
  );
}
