// An Orchestrator's AI side: the models it serves (entries of the node's aiModels.json), the runner
// pods the operator runs for each, and what the status says of them. Its own file, so the
// Orchestrator schema's other blocks change without touching it.
import { z } from "zod";
import { AiModelEntrySchema, duplicateModels } from "../node/ai-models/index.ts";
import { withRules } from "./cross-field-rule.ts";
import { GPU_PRODUCT_PATTERN } from "./gpu.ts";
import { LiveAiSpecSchema, LiveAppStatusSchema } from "./live-ai.ts";

/** The ai-runner's HTTP port (go-livepeer's managed containers use the same). */
export const AI_RUNNER_PORT = 8000;

const WeightsBase = z
  .strictObject({
    persistentVolumeClaim: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, {
        error: "weights.persistentVolumeClaim must be the name of a PersistentVolumeClaim in this namespace",
      })
      .optional()
      .describe(
        "A PersistentVolumeClaim in this namespace holding the weights (ReadOnlyMany or ReadWriteMany when the model has more than one runner), for example ai-models.",
      ),
    hostPath: z
      .string()
      .max(4096)
      .regex(/^\/.*/, { error: "weights.hostPath must be an absolute path on the node, for example /models" })
      .optional()
      .describe(
        "A directory on the GPU node holding the weights, for example /var/lib/livepeer/models (what go-livepeer's -aiModelsDir is on a bare-metal box).",
      ),
    readOnly: z
      .boolean()
      .default(true)
      .describe(
        "Mount the weights read-only (default true). Set false to let the runner download missing weights into the volume on first start.",
      ),
  })
  .describe(
    "Where the runner finds the model weights, mounted at /models: a Hugging Face cache layout (/models/models--<org>--<model>/...), as `huggingface-cli download <org>/<model> --cache-dir /models` writes it. Exactly one of persistentVolumeClaim or hostPath.",
  );

export const WeightsSpecSchema = withRules(WeightsBase, [
  {
    rule: "has(self.persistentVolumeClaim) != has(self.hostPath)",
    reason: "FieldValueInvalid",
    message:
      "runner.weights needs exactly one of persistentVolumeClaim (a claim in this namespace) or hostPath (a directory on the GPU node), for example persistentVolumeClaim: ai-models",
    messageExpression:
      '(has(self.persistentVolumeClaim) ? "runner.weights sets both persistentVolumeClaim and hostPath" : "runner.weights sets neither persistentVolumeClaim nor hostPath") + ": set exactly one, persistentVolumeClaim (a claim in this namespace) or hostPath (a directory on the GPU node), for example persistentVolumeClaim: ai-models"',
    holds: (w) => (w.persistentVolumeClaim === undefined) !== (w.hostPath === undefined),
  },
]);

export const AiRunnerSpecSchema = z
  .strictObject({
    image: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe(
        "The runner image. Absent: the image go-livepeer would pick for the pipeline (livepeer/ai-runner:latest; llm, audio-to-text, segment-anything-2 and text-to-speech have their own tags).",
      ),
    gpus: z
      .int()
      .min(0)
      .max(8)
      .default(1)
      .describe(
        "GPUs per runner pod (nvidia.com/gpu). Default 1. AI may use any GPU, encoder-less A100/H100 included. 0 runs on CPU (tests only).",
      ),
    gpuProduct: z
      .string()
      .max(63)
      .regex(GPU_PRODUCT_PATTERN, {
        error:
          "runner.gpuProduct must be a nvidia.com/gpu.product label value, for example NVIDIA-A100-SXM4-80GB",
      })
      .optional()
      .describe(
        "Pin the runner to one GPU model (nvidia.com/gpu.product), for example NVIDIA-A100-SXM4-80GB.",
      ),
    gpuMemoryMiB: z
      .int()
      .min(1)
      .max(1048576)
      .optional()
      .describe(
        "Least GPU memory the model needs, in MiB (GPU Feature Discovery's nvidia.com/gpu.memory): the runner lands only on GPUs with at least this much. Absent: the operator's table of known models, else any GPU. Example: 24576.",
      ),
    weights: WeightsSpecSchema.optional(),
    coldStartSeconds: z
      .int()
      .min(30)
      .max(1800)
      .default(180)
      .describe(
        "How long a runner may take to load its model before Kubernetes restarts it (the startup probe). Models take 30 to 120 s; default 180.",
      ),
  })
  .describe(
    "The runner pods the operator runs for this model (a Deployment of `capacity` pods behind a Service), used when url is absent.",
  );

const AiModelSpecBase = AiModelEntrySchema.safeExtend({ runner: AiRunnerSpecSchema.optional() }).describe(
  "One model the orchestrator serves: an entry of the node's aiModels.json (snake_case fields). Without url the operator runs its runner pods (runner); with url, an AI runner you run yourself.",
);

// The two model_id rules give the API server the words zod's own check (modelIdProblem) says: the
// CRD's pattern alone would answer "should match ^[A-Za-z0-9]...", which teaches nothing.
export const AiModelSpecSchema = withRules(AiModelSpecBase, [
  {
    rule: "!self.model_id.contains(':')",
    fieldPath: ".model_id",
    reason: "FieldValueInvalid",
    message:
      'model_id is a container-runtime LLM tag (it has a ":"), not a model id: use the model\'s "<org>/<model>" id as published, for example meta-llama/Meta-Llama-3.1-8B-Instruct; ids are case-sensitive',
    messageExpression:
      "'model_id ' + self.model_id + ' is a container-runtime LLM tag (it has a \":\"), not a model id: use the model\\'s \"<org>/<model>\" id as published, for example meta-llama/Meta-Llama-3.1-8B-Instruct; ids are case-sensitive'",
    holds: () => true,
  },
  {
    rule: "self.model_id.contains('/')",
    fieldPath: ".model_id",
    reason: "FieldValueInvalid",
    message:
      'model_id must be "<org>/<model>" with the organisation prefix, exactly as published, for example stabilityai/sd-turbo; ids are case-sensitive',
    messageExpression:
      "'model_id ' + self.model_id + ' has no organisation prefix: write \"<org>/<model>\" exactly as published, for example stabilityai/sd-turbo; ids are case-sensitive'",
    holds: () => true,
  },
  {
    rule: "!(has(self.url) && has(self.runner))",
    fieldPath: ".runner",
    reason: "FieldValueForbidden",
    message:
      "runner is for models whose runner pods the operator runs; this model has url (a runner you run yourself): remove one of them",
    messageExpression:
      '"model " + self.model_id + " has both url (a runner you run yourself) and runner (runner pods the operator runs): remove one of them"',
    holds: (m) => !(m.url !== undefined && m.runner !== undefined),
  },
]);

export const AiSpecSchema = z
  .strictObject({
    models: z
      .array(AiModelSpecSchema)
      .max(32)
      .superRefine(duplicateModels)
      .default([])
      .describe(
        "The models to serve, for example {pipeline: text-to-image, model_id: stabilityai/sd-turbo, warm: true, runner: {gpus: 1}}.",
      ),
    only: z
      .boolean()
      .default(false)
      .describe(
        "true: an AI-only orchestrator (no local transcoding; spec.gpu and spec.transcoders must be absent: the runners have the GPUs). Default false: video and AI (dual).",
      ),
    live: LiveAiSpecSchema.optional(),
  })
  .describe(
    "AI inference on this orchestrator: the operator runs each model's runner pods, renders aiModels.json (url and token of each runner) into a Secret and starts the node with -aiWorker.",
  );

export const AiModelStatusSchema = z
  .strictObject({
    pipeline: z.string().max(64).describe("The model's pipeline, for example text-to-image."),
    modelId: z.string().max(256).describe("The model id, for example stabilityai/sd-turbo."),
    runner: z
      .string()
      .max(2048)
      .describe(
        "Where the node sends this model's requests: the runner Deployment the operator runs, or the url you gave.",
      ),
    ready: z.boolean().describe("Every runner pod of the model answers /health (the model is loaded)."),
    runners: z.int().min(0).describe("Runner pods that answer /health (each serves one request at a time)."),
    capacity: z.int().min(0).describe("Requests the node sends this model at once (aiModels.json capacity)."),
    reason: z
      .string()
      .max(1024)
      .describe("Why it is (not) ready, for example: 1 of 2 runner(s) loading the model (cold start)."),
  })
  .describe("How one model maps to its runners, and whether they serve.");

export const AiStatusSchema = z
  .strictObject({
    models: z.array(AiModelStatusSchema).max(32).describe("One entry per spec.ai.models entry, in order."),
    live: z
      .array(LiveAppStatusSchema)
      .max(16)
      .optional()
      .describe("One entry per spec.ai.live app, in order."),
  })
  .describe("The AI models and their runners, as the operator saw them.");

export type AiSpec = z.infer<typeof AiSpecSchema>;
export type AiModelSpec = z.infer<typeof AiModelSpecSchema>;
export type AiRunnerSpec = z.infer<typeof AiRunnerSpecSchema>;
export type AiStatus = z.infer<typeof AiStatusSchema>;
export type AiModelStatus = z.infer<typeof AiModelStatusSchema>;
