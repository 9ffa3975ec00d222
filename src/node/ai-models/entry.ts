// One entry of the node's aiModels.json, with errors that teach the file's rules: where the real
// node silently ignores a typo or misreads a value, the operator says what to write instead.
import { z } from "zod";

/** `<org>/<model>` exactly as published (Hugging Face style); case-sensitive. */
export const MODEL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
const PIPELINE_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const CURRENCY_PATTERN = /^[A-Za-z][A-Za-z0-9]*$/;
/** A price with a currency suffix, the way `-pricePerUnit` takes it (`0.5USD`). */
const PRICE_WITH_SUFFIX = /^(\d+(?:\.\d+)?)([A-Za-z][A-Za-z0-9]*)?$/;
const GATEWAY_PATTERN = /^(default|0x[0-9a-fA-F]{40})$/;

/** Pipelines the AI runner serves today (a new one is accepted if it is a lower-case-dashed name). */
export const KNOWN_PIPELINES = [
  "text-to-image",
  "image-to-image",
  "image-to-video",
  "upscale",
  "audio-to-text",
  "segment-anything-2",
  "llm",
  "image-to-text",
  "text-to-speech",
  "live-video-to-video",
] as const;

const EXAMPLE_ID = "stabilityai/sd-turbo";

export function modelIdProblem(input: unknown): string {
  if (input === undefined)
    return `model_id is required: the model's "<org>/<model>" id, for example "${EXAMPLE_ID}"`;
  if (typeof input !== "string") return `model_id must be a string such as "${EXAMPLE_ID}"`;
  if (input.includes(":")) {
    return `model_id ${JSON.stringify(input)} is a container-runtime LLM tag, not a model id: use the model's "<org>/<model>" id as published (for example "meta-llama/Meta-Llama-3.1-8B-Instruct"); ids are case-sensitive`;
  }
  return `model_id ${JSON.stringify(input)} is not "<org>/<model>": write the organisation prefix and the model name exactly as published (for example "${EXAMPLE_ID}"); ids are case-sensitive`;
}

function numberProblem(field: string, input: unknown, unit: string): string {
  if (typeof input === "string") {
    const m = PRICE_WITH_SUFFIX.exec(input.trim());
    if (m?.[2]) {
      return `${field} must be a JSON number, not the string ${JSON.stringify(input)}: write "${field}": ${m[1]} and put the currency in its own field, "currency": "${m[2]}"`;
    }
    return `${field} must be a JSON number, not the string ${JSON.stringify(input)}: drop the quotes${m ? ` ("${field}": ${m[1]})` : ""}; a currency goes in the separate "currency" field`;
  }
  return `${field} must be a JSON number (${unit})`;
}

export const OptimizationFlagsSchema = z
  .record(
    z.string().min(1),
    z.union([z.string(), z.number(), z.boolean()], {
      error: "each optimization flag value must be a string, number or boolean",
    }),
    {
      error: "optimization_flags must be an object of flag names to string, number or boolean values",
    },
  )
  .describe(
    'Runner optimisation flags passed to the AI runner as environment variables, for example {"SFAST": true} or {"DEEPCACHE": true}; values are strings, numbers or booleans.',
  );

export const AiModelEntrySchema = z
  .strictObject(
    {
      pipeline: z
        .string({
          error: (iss) =>
            iss.input === undefined
              ? 'pipeline is required: the AI pipeline this model serves, for example "text-to-image"'
              : 'pipeline must be a string such as "text-to-image"',
        })
        .max(64)
        .regex(PIPELINE_PATTERN, {
          error: (iss) =>
            `pipeline ${JSON.stringify(iss.input)} is not a pipeline name: use a lower-case dashed name such as ${KNOWN_PIPELINES.map((p) => `"${p}"`).join(", ")}`,
        })
        .describe(
          `The AI pipeline this model serves, a lower-case dashed name: ${KNOWN_PIPELINES.join(", ")}. Example: text-to-image.`,
        ),
      model_id: z
        .string({ error: (iss) => modelIdProblem(iss.input) })
        .max(256)
        .regex(MODEL_ID_PATTERN, { error: (iss) => modelIdProblem(iss.input) })
        .describe(
          `The model id, "<org>/<model>" exactly as published (case-sensitive), for example ${EXAMPLE_ID}. Container-runtime LLM tags such as llama3:8b are not ids.`,
        ),
      warm: z
        .boolean({ error: "warm must be true or false (a JSON boolean, not a string)" })
        .optional()
        .describe(
          "Keep the model loaded in GPU memory from start-up (true) instead of loading it on the first request (cold start takes 30 to 120 s). Default false.",
        ),
      capacity: z
        .int({ error: "capacity must be a whole number >= 1" })
        .min(1, {
          error:
            "capacity must be >= 1: it is how many requests this model serves at once (without url, how many runner containers the node starts)",
        })
        .max(1024)
        .optional()
        .describe(
          "How many requests this model serves at once; without url, the number of runner containers the node starts. Integer >= 1, default 1.",
        ),
      url: z
        .string({ error: "url must be a string such as http://runner:8000" })
        .max(2048)
        .regex(/^https?:\/\//, {
          error: (iss) =>
            `url ${JSON.stringify(iss.input)} must start with http:// or https://: it is the address of an external AI runner, for example http://runner:8000`,
        })
        .optional()
        .describe(
          "Address of an AI runner you run yourself (external runner), for example http://runner:8000. Absent: the node starts managed runner containers, which needs the host's container runtime socket.",
        ),
      token: z
        .string({ error: "token must be a string" })
        .max(4096)
        .optional()
        .describe("Bearer token the node sends to the external runner at url. Only used with url."),
      optimization_flags: OptimizationFlagsSchema.optional(),
      price_per_unit: z
        .number({
          error: (iss) => numberProblem("price_per_unit", iss.input, "wei, or an amount of currency"),
        })
        .min(0, { error: "price_per_unit must be >= 0" })
        .optional()
        .describe(
          "Price per pixels_per_unit units of work, as a JSON number: wei, or an amount of the currency named in currency (for example 0.5 with currency USD). Never a string.",
        ),
      pixels_per_unit: z
        .number({ error: (iss) => numberProblem("pixels_per_unit", iss.input, "units priced together, > 0") })
        .positive({ error: "pixels_per_unit must be > 0" })
        .optional()
        .describe("How many units of work price_per_unit buys, as a JSON number > 0. Default 1."),
      currency: z
        .string({ error: 'currency must be a string such as "USD"' })
        .max(16)
        .regex(CURRENCY_PATTERN, {
          error: (iss) => `currency ${JSON.stringify(iss.input)} must be a currency code such as "USD"`,
        })
        .optional()
        .describe("Currency of price_per_unit, for example USD; absent means wei."),
      gateway: z
        .string({ error: 'gateway must be a string: "default" or a gateway\'s 0x Ethereum address' })
        .regex(GATEWAY_PATTERN, {
          error: (iss) =>
            `gateway ${JSON.stringify(iss.input)} must be "default" or a gateway's Ethereum address (0x followed by 40 hex digits)`,
        })
        .optional()
        .describe(
          "The gateway this entry's price is for: a gateway's Ethereum address (0x...), or default for every gateway. Absent means default.",
        ),
    },
    {
      error: (iss) => {
        if (iss.code === "unrecognized_keys") return unknownKeysProblem(iss.keys);
        if (iss.code === "invalid_type")
          return `each entry must be a JSON object such as {"pipeline": "text-to-image", "model_id": "${EXAMPLE_ID}"}`;
        return undefined;
      },
    },
  )
  .superRefine((entry, ctx) => {
    if (entry.token !== undefined && entry.url === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["token"],
        message: "token is only sent to an external runner: set url too, or remove token",
      });
    }
    if (entry.currency !== undefined && entry.price_per_unit === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["currency"],
        message: "currency names the unit of price_per_unit: set price_per_unit too, or remove currency",
      });
    }
  })
  .describe("One model the orchestrator serves, as an entry of the node's aiModels.json.");

const SNAKE_CASE_OF: Record<string, string> = {
  modelId: "model_id",
  modelID: "model_id",
  model: "model_id",
  pricePerUnit: "price_per_unit",
  pixelsPerUnit: "pixels_per_unit",
  optimizationFlags: "optimization_flags",
};

function unknownKeysProblem(keys: readonly string[]): string {
  return keys
    .map((k) => {
      const hint = SNAKE_CASE_OF[k];
      return hint
        ? `unknown field "${k}": did you mean "${hint}"? aiModels.json uses snake_case names`
        : `unknown field "${k}": the node would ignore it; known fields are ${Object.keys(AiModelEntryShape).join(", ")}`;
    })
    .join("; ");
}

// Read lazily by unknownKeysProblem (declared after the schema that uses it).
const AiModelEntryShape = AiModelEntrySchema.shape;

/** Two entries for the same pipeline and model: the node would advertise one (and panic on warm/cold). */
export function duplicateModels(
  entries: readonly { pipeline: string; model_id: string }[],
  ctx: z.core.$RefinementCtx<unknown>,
): void {
  const seen = new Map<string, number>();
  entries.forEach((e, i) => {
    const key = `${e.pipeline} ${e.model_id}`;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else
      ctx.addIssue({
        code: "custom",
        path: [i, "model_id"],
        message: `pipeline ${e.pipeline} with model_id ${e.model_id} is already entry ${first}: merge the two entries (raise capacity instead)`,
      });
  });
}

export const AiModelsSchema = z
  .array(AiModelEntrySchema, { error: "aiModels.json must be a JSON array of model entries" })
  .superRefine(duplicateModels)
  .describe("The models the orchestrator serves: the entries of the node's aiModels.json.");

export type AiModelEntry = z.infer<typeof AiModelEntrySchema>;
export type AiModels = z.infer<typeof AiModelsSchema>;
