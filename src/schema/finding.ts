// A diagnosis the node doctor recognised (from the catalog in src/node), as shown in status.findings.
import { z } from "zod";

export const FINDING_SEVERITIES = ["normal", "warning", "error"] as const;
export type FindingSeverity = (typeof FINDING_SEVERITIES)[number];

export const FindingSchema = z
  .strictObject({
    id: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Z][A-Za-z0-9]*$/)
      .describe(
        "Catalog id of the diagnosis in CamelCase, for example OrchestratorCapped or NvencSessionLimit.",
      ),
    severity: z
      .enum(FINDING_SEVERITIES)
      .describe(
        "normal (recognised and expected, for example a timed-out loop), warning (needs attention, never flips Ready) or error (stops service: Ready=False).",
      ),
    message: z
      .string()
      .max(32768)
      .describe(
        "What was seen and what to do about it, for example: deposit is 0, fund it with the node CLI.",
      ),
    since: z.iso
      .datetime()
      .describe("When the finding was first seen (RFC 3339), for example 2026-01-02T15:04:05Z."),
  })
  .describe("One diagnosis of the node doctor.");

export type Finding = z.infer<typeof FindingSchema>;

export const FindingListSchema = z
  .array(FindingSchema)
  .max(64)
  .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["id"] })
  .describe(
    "Diagnoses of the node doctor currently in force, one per catalog id; normal ones are listed but never alarm.",
  );
