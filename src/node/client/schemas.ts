// Node responses as the spec names them and as the real node (Go encoding/json of its structs and
// protobuf messages) writes them. Unknown fields pass through: nodes add fields across versions.
import { z } from "zod";

const count = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/).transform(Number)]);
/** Go writes nil slices and maps as null. */
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((v) => v ?? []);

export const StatusSchema = z
  .object({
    SessionLimit: count.optional(),
    PricePerUnit: z.union([z.number(), z.string()]).optional(),
    Version: z.string().optional(),
    OrchestratorPool: list(z.string()),
    RegisteredTranscodersNumber: z.number().optional(),
    RegisteredTranscoders: list(z.object({ Address: z.string(), Capacity: z.number() }).loose()),
    LocalTranscoding: z.boolean().optional(),
    // Go writes a nil map as null.
    Manifests: z.record(z.string(), z.unknown()).nullish(),
    Simulated: z.boolean().optional(),
  })
  .loose();

const u64 = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]);

const ModelConstraintSchema = z
  .object({
    warm: z.boolean().optional(),
    capacity: z.number().optional(),
    runnerVersion: z.string().optional(),
    capacityInUse: z.number().optional(),
  })
  .loose();

export const CapabilitiesSchema = z
  .object({
    bitstring: list(u64),
    mandatories: list(u64),
    capacities: z.record(z.string(), z.number()).nullish(),
    version: z.string().optional(),
    constraints: z
      .object({
        minVersion: z.string().optional(),
        PerCapability: z
          .record(
            z.string(),
            z.object({ models: z.record(z.string(), ModelConstraintSchema).nullish() }).loose(),
          )
          .nullish(),
      })
      .loose()
      .nullish(),
  })
  .loose();

export const PriceInfoSchema = z
  .object({
    pricePerUnit: z.number().optional(),
    pixelsPerUnit: z.number().optional(),
    capability: z.number().optional(),
    constraint: z.string().optional(),
  })
  .loose();

const GpuComputeInfoSchema = z
  .object({
    id: z.string().optional(),
    name: z.string().optional(),
    memory_free: z.number().optional(),
    memory_total: z.number().optional(),
  })
  .loose();

export const HardwareInformationSchema = z
  .object({
    pipeline: z.string().optional(),
    model_id: z.string().optional(),
    gpu_info: z.record(z.string(), GpuComputeInfoSchema).nullish(),
  })
  .loose();

export const OrchestratorInfoSchema = z
  .object({
    transcoder: z.string().optional(),
    price_info: PriceInfoSchema.nullish(),
    capabilities: CapabilitiesSchema,
    capabilities_prices: list(PriceInfoSchema),
    hardware: list(HardwareInformationSchema),
    Simulated: z.boolean().optional(),
  })
  .loose();

export const NetworkCapabilitiesSchema = z
  .object({
    capabilities_names: z.record(z.string(), z.string()).nullish(),
    orchestrators: z
      .array(
        z
          .object({
            address: z.string(),
            local_address: z.string().optional(),
            orch_uri: z.string().optional(),
            capabilities: CapabilitiesSchema.nullish(),
            price_info: PriceInfoSchema.nullish(),
            capabilities_prices: list(PriceInfoSchema),
          })
          .loose(),
      )
      .nullable(),
    Simulated: z.boolean().optional(),
  })
  .loose();

const GpuUtilizationSchema = z
  .object({
    id: z.string().optional(),
    name: z.string().optional(),
    memory_free: z.number(),
    memory_total: z.number(),
    utilization_compute: z.number().optional(),
    utilization_memory: z.number().optional(),
  })
  .loose();

export const HardwareStatsEntrySchema = z
  .object({
    pipeline: z.string().optional(),
    model_id: z.string().optional(),
    gpu_stats: z.record(z.string(), GpuUtilizationSchema),
  })
  .loose();
