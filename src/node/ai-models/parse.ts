// Reads aiModels.json text into checked entries, or into messages naming the entry and field
// that is wrong and what to write instead.
import type { z } from "zod";
import { type AiModels, AiModelsSchema } from "./entry.ts";

export type AiModelsParseResult = { models: AiModels } | { errors: string[] };

export function parseAiModels(jsonText: string): AiModelsParseResult {
  let data: unknown;
  try {
    data = JSON.parse(jsonText);
  } catch (e) {
    return {
      errors: [
        `aiModels.json is not valid JSON (${(e as Error).message}): it must be a JSON array such as [{"pipeline": "text-to-image", "model_id": "stabilityai/sd-turbo", "warm": true}]`,
      ],
    };
  }
  return checkAiModels(data);
}

/** The same checks for an already-decoded value (for example `spec.ai.models` of a resource). */
export function checkAiModels(data: unknown): AiModelsParseResult {
  const result = AiModelsSchema.safeParse(data);
  if (result.success) return { models: result.data };
  return { errors: result.error.issues.map(describeIssue) };
}

export function describeIssue(issue: z.core.$ZodIssue): string {
  const [index, field, ...rest] = issue.path;
  if (index === undefined) return issue.message;
  const where =
    field === undefined
      ? `entry ${String(index)}`
      : `entry ${String(index)}, field ${[field, ...rest].map(String).join(".")}`;
  return `${where}: ${issue.message}`;
}
