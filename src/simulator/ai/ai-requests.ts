// What the node's AI HTTP handlers share: reading a JSON job, the request id, the pipelines the
// simulator serves and the node's answers to a body it cannot use.
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { readBody } from "../orchestrator-routes.ts";

/** The pipelines whose job is a JSON body (the others are multipart forms, not simulated). */
export const SIMULATED_AI_PIPELINES = ["text-to-image"] as const;

/** The gateway's default model per pipeline when the request names none (server/ai_process.go). */
export const DEFAULT_MODEL_IDS: Record<string, string> = {
  "text-to-image": "stabilityai/sdxl-turbo",
};

/** core.RandomManifestID: 4 random bytes in hex. */
export function aiRequestId(): string {
  return randomBytes(4).toString("hex");
}

export type JobBody = Record<string, unknown>;

/** Go's encoding/json errors for a body that is not a JSON object, else the object. */
export async function readJsonJob(req: IncomingMessage): Promise<{ job: JobBody } | { error: string }> {
  const raw = (await readBody(req, 16 * 1024 * 1024)).toString("utf8");
  if (raw.trim() === "") return { error: "EOF" };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    const c = raw.trimStart()[0];
    return { error: `invalid character '${c}' looking for beginning of value` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return {
      error: `json: cannot unmarshal ${Array.isArray(value) ? "array" : value === null ? "null" : typeof value} into Go value of type worker.GenTextToImageJSONRequestBody`,
    };
  }
  return { job: value as JobBody };
}

/** The node's OpenAPI request validator (kin-openapi) on a text-to-image body without a prompt. */
export function schemaProblem(pipeline: string, job: JobBody): string | undefined {
  if (pipeline === "text-to-image" && typeof job.prompt !== "string") {
    return `request body has an error: doesn't match schema #/components/schemas/TextToImageParams: Error at "/prompt": property "prompt" is missing`;
  }
  return undefined;
}
