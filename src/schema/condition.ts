// status.conditions as the Kubernetes API conventions define them, and the condition types the
// operator sets (contract: ARCHITECTURE.md "Resources").
import { z } from "zod";

export const ConditionType = {
  /** Summary: serving (every owned pod Ready, endpoints answering, no error finding stopping service). */
  Ready: "Ready",
  /** The node's pods are placed on a Kubernetes node. */
  Scheduled: "Scheduled",
  /** The node's own HTTP endpoints answer. */
  NodeReachable: "NodeReachable",
  /** The chain RPC answers and is on the expected network. */
  ChainHealthy: "ChainHealthy",
  /** The service URI registered on chain matches the node's address. */
  Registered: "Registered",
  /** Gateways: deposit and reserve are non-zero. */
  Funded: "Funded",
  /** Gateways: at least one orchestrator's price is within the gateway's cap. */
  PriceCompatible: "PriceCompatible",
  /** True when the node is the simulator, never hidden. */
  Simulated: "Simulated",
  /** Orchestrators with spec.ai: every model's runners serve (loaded, answering /health). */
  AIReady: "AIReady",
  /** Orchestrators with spec.ai.live: every app's runners are registered with the node and healthy. */
  LiveAIReady: "LiveAIReady",
  /** Orchestrators: reward was called in the current round (or, False, why not yet / why it failed). */
  RewardCurrent: "RewardCurrent",
  /**
   * Orchestrators and Gateways: whether the node image's go-livepeer release is one the operator
   * knows (False: older or newer than the supported range; Unknown: the tag names no release).
   */
  NodeVersionSupported: "NodeVersionSupported",
  /**
   * Keyless Gateways (spec.remoteSigner): whether the RemoteSigner they name exists and is Ready;
   * False holds the Gateway's rollout.
   */
  RemoteSignerReady: "RemoteSignerReady",
  /**
   * Orchestrators and Gateways: True while some node pod runs an older rendering than the spec
   * asks (the reason says what the rollout waits for: sessions on a pod, a manual delete, a pod
   * becoming Ready); False once every pod runs the current one.
   */
  RolloutPending: "RolloutPending",
  /** Webhooks: whether the endpoint takes deliveries now (False: failing, or turned off by 410 Gone). */
  Delivering: "Delivering",
} as const;
export type ConditionType = (typeof ConditionType)[keyof typeof ConditionType];
export const CONDITION_TYPES: readonly ConditionType[] = Object.values(ConditionType);

/** The types each kind sets from its first visit (as Unknown until known). */
export const ORCHESTRATOR_CONDITION_TYPES = [
  ConditionType.Ready,
  ConditionType.Scheduled,
  ConditionType.NodeReachable,
  ConditionType.ChainHealthy,
  ConditionType.Registered,
  ConditionType.RewardCurrent,
  ConditionType.Simulated,
  ConditionType.NodeVersionSupported,
] as const;
export const GATEWAY_CONDITION_TYPES = [
  ConditionType.Ready,
  ConditionType.Scheduled,
  ConditionType.NodeReachable,
  ConditionType.ChainHealthy,
  ConditionType.Funded,
  ConditionType.PriceCompatible,
  ConditionType.Simulated,
  ConditionType.NodeVersionSupported,
] as const;
export const REMOTE_SIGNER_CONDITION_TYPES = [
  ConditionType.Ready,
  ConditionType.Scheduled,
  ConditionType.NodeReachable,
  ConditionType.ChainHealthy,
  ConditionType.Funded,
  ConditionType.Simulated,
  ConditionType.NodeVersionSupported,
] as const;
export const WEBHOOK_CONDITION_TYPES = [ConditionType.Ready] as const;

export const CONDITION_STATUSES = ["True", "False", "Unknown"] as const;
export type ConditionStatus = (typeof CONDITION_STATUSES)[number];

export const ConditionSchema = z
  .strictObject({
    type: z
      .string()
      .min(1)
      .max(316)
      .regex(/^[A-Z][A-Za-z0-9]*$/)
      .describe(
        "Condition type in PascalCase: Ready (summary), Scheduled, NodeReachable, ChainHealthy, Registered, Funded, PriceCompatible, RewardCurrent, AIReady, LiveAIReady, Simulated, NodeVersionSupported, RemoteSignerReady (keyless gateways), RolloutPending or Delivering (webhooks).",
      ),
    status: z.enum(CONDITION_STATUSES).describe("True, False or Unknown (not yet known)."),
    reason: z
      .string()
      .min(1)
      .max(1024)
      .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
      .describe(
        "Why the condition has this status, one CamelCase word for tools and alerts, for example NotFunded.",
      ),
    message: z.string().max(32768).describe("What happened and what to do next, for people. May be empty."),
    observedGeneration: z
      .int()
      .min(0)
      .optional()
      .describe("The metadata.generation of the resource this condition describes."),
    lastTransitionTime: z.iso
      .datetime()
      .describe("When status last changed (RFC 3339, second precision), for example 2026-01-02T15:04:05Z."),
  })
  .describe("One observation of the resource's state, in the Kubernetes condition format.");

export type Condition = z.infer<typeof ConditionSchema>;

export const ConditionListSchema = z
  .array(ConditionSchema)
  .max(32)
  .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"] })
  .describe(
    "The resource's conditions, one per type; Ready is the summary (kubectl wait --for=condition=Ready waits on it).",
  );
