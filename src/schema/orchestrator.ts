// The Orchestrator resource: a go-livepeer orchestrator (plus, in a split setup, transcoders).
import { z } from "zod";
import { AiSpecSchema, AiStatusSchema } from "./ai.ts";
import { chainFields, chainRules } from "./chain.ts";
import { withRules } from "./cross-field-rule.ts";
import { customResourceSchema, type Stored } from "./custom-resource.ts";
import {
  OnchainSettingsSpecSchema,
  OnchainStatusSchema,
  RewardAssuranceSpecSchema,
  RewardStatusSchema,
} from "./duties.ts";
import { GpuSpecSchema } from "./gpu.ts";
import { priceSchema } from "./price.ts";
import { RolloutStatusSchema, rolloutField } from "./rollout.ts";
import { commonStatusFields, statusFacts } from "./status.ts";
import { serviceSpecSchema, storageImmutable, workloadFields } from "./workload.ts";

export const ORCHESTRATOR_SERVICE_PORT = 8935;

export const TranscodersSpecSchema = z
  .strictObject({
    replicas: z
      .int()
      .min(1, { error: "transcoders.replicas must be 1 or more" })
      .max(64)
      .default(1)
      .describe("Number of transcoder pods. Default 1."),
    gpu: GpuSpecSchema.optional(),
  })
  .describe(
    "Split setup: run transcoding in separate transcoder pods that connect to this orchestrator; the orchestrator then runs with -maxSessions auto (the sum of its transcoders' capacities).",
  );

const OrchestratorSpecBase = z
  .strictObject({
    ...chainFields,
    pricePerUnit: priceSchema("pricePerUnit")
      .optional()
      .describe(
        'Price per pixelsPerUnit pixels (-pricePerUnit), as a string: wei ("1000") or an amount with a currency suffix ("0.5USD"). Required on chain.',
      ),
    pixelsPerUnit: z
      .int()
      .min(1)
      .default(1)
      .describe("How many pixels pricePerUnit buys (-pixelsPerUnit). Integer >= 1, default 1."),
    gpu: GpuSpecSchema.optional(),
    maxSessions: z
      .int()
      .min(1, {
        error: "maxSessions must be 1 or more: leave it out to let the operator derive it from the GPUs",
      })
      .max(100000)
      .optional()
      .describe(
        "Override of the session limit (-maxSessions). Absent: GPUs x streams per GPU (CPU: 5). An override above what the GPUs can encode gives a warning finding.",
      ),
    transcodingOptions: z
      .string()
      .max(4096)
      .optional()
      .describe(
        "Renditions per stream (-transcodingOptions): a comma-separated list of profiles such as P240p30fps16x9,P360p30fps16x9 (the default has 2). More renditions mean fewer streams per GPU.",
      ),
    transcoders: TranscodersSpecSchema.optional(),
    ai: AiSpecSchema.optional(),
    service: serviceSpecSchema(ORCHESTRATOR_SERVICE_PORT, "gateways (gRPC and HTTP on one port)").prefault(
      {},
    ),
    serviceAddr: z
      .string()
      .max(512)
      .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+)(:[0-9]{1,5})?$/, {
        error: (iss) =>
          `serviceAddr ${JSON.stringify(iss.input)} must be host or host:port without a scheme, for example orch.example.com:8935`,
      })
      .optional()
      .describe(
        "The host:port gateways use to reach this orchestrator (-serviceAddr), registered on chain, for example orch.example.com:8935. Absent: from the Service - ClusterIP: the pod's in-cluster DNS name; LoadBalancer: its external address (the node starts once the cloud reports one); NodePort: the address of the node running the pod and the node port.",
      ),
    reward: z
      .boolean()
      .optional()
      .describe(
        "Whether the node calls the reward function every round (-reward). On chain only; default true.",
      ),
    rewardAssurance: RewardAssuranceSpecSchema.optional(),
    onchain: OnchainSettingsSpecSchema.optional(),
    ...workloadFields,
    ...rolloutField,
  })
  .describe("The desired orchestrator.");

export const OrchestratorSpecSchema = withRules(
  OrchestratorSpecBase,
  [
    ...chainRules,
    {
      rule: "self.network == 'offchain' || has(self.pricePerUnit)",
      fieldPath: ".pricePerUnit",
      reason: "FieldValueRequired",
      message:
        'pricePerUnit is required when network is not offchain: gateways need a price, for example "1000" (wei per pixelsPerUnit pixels)',
      messageExpression:
        "'pricePerUnit is required when network is ' + self.network + ': gateways need a price, for example \"1000\" (wei per pixelsPerUnit pixels)'",
      holds: (s) => s.network === "offchain" || s.pricePerUnit !== undefined,
    },
    // AI (spec.ai): an AI-only orchestrator's GPUs are its runners'.
    {
      rule: "!has(self.ai) || !self.ai.only || (!has(self.gpu) && !has(self.transcoders))",
      fieldPath: ".ai.only",
      reason: "FieldValueInvalid",
      message:
        "ai.only: true runs no video, so spec.gpu and spec.transcoders must be absent: give the GPUs to the models' runners (ai.models[].runner.gpus), or set ai.only: false for a dual orchestrator",
      messageExpression:
        '"ai.only: true runs no video, but spec." + (has(self.gpu) ? "gpu" : "transcoders") + " is set: remove it and give the GPUs to the models\' runners (ai.models[].runner.gpus), or set ai.only: false for a dual orchestrator"',
      holds: (s) => !s.ai?.only || (s.gpu === undefined && s.transcoders === undefined),
    },
  ],
  [storageImmutable],
);

export const OrchestratorStatusSchema = z
  .strictObject({
    ...commonStatusFields,
    maxSessions: statusFacts.maxSessions,
    maxSessionsReason: statusFacts.maxSessionsReason,
    node: statusFacts.node,
    gpuProduct: statusFacts.gpuProduct,
    serviceAddr: statusFacts.serviceAddr,
    serviceURI: statusFacts.serviceURI,
    balance: statusFacts.balance,
    activeSet: statusFacts.activeSet,
    lastRewardRound: statusFacts.lastRewardRound,
    pricePerUnit: statusFacts.pricePerUnit,
    pixelsPerUnit: statusFacts.pixelsPerUnit,
    priceSource: statusFacts.priceSource,
    quotes: statusFacts.quotes,
    // AI (spec.ai)
    ai: AiStatusSchema.optional(),
    reward: RewardStatusSchema.optional(),
    onchain: OnchainStatusSchema.optional(),
    rollout: RolloutStatusSchema.optional(),
  })
  .describe("What the operator observed: conditions, diagnoses and facts.");

export const OrchestratorSchema = customResourceSchema(
  "Orchestrator",
  OrchestratorSpecSchema,
  OrchestratorStatusSchema,
).describe("A Livepeer orchestrator: transcodes video and runs AI inference for gateways.");

export type OrchestratorSpec = z.infer<typeof OrchestratorSpecSchema>;
export type OrchestratorStatus = z.infer<typeof OrchestratorStatusSchema>;
export type Orchestrator = z.infer<typeof OrchestratorSchema>;
/** An Orchestrator as read from the cluster (see Stored). */
export type StoredOrchestrator = Stored<OrchestratorSpec, OrchestratorStatus>;
export type TranscodersSpec = z.infer<typeof TranscodersSpecSchema>;
export type { AiSpec } from "./ai.ts";
