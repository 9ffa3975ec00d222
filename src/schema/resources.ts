// The custom resources as CRD definitions (names, columns and schemas), and their REST
// resources derived from them.
import { customResourceType } from "./api-group.ts";
import { ConditionType } from "./condition.ts";
import type { CrdDefinition, PrinterColumn } from "./crd.ts";
import { GatewaySpecSchema, GatewayStatusSchema } from "./gateway.ts";
import { OrchestratorSpecSchema, OrchestratorStatusSchema } from "./orchestrator.ts";
import { RemoteSignerSpecSchema, RemoteSignerStatusSchema } from "./remote-signer.ts";
import { WebhookSpecSchema, WebhookStatusSchema } from "./webhook.ts";

function conditionColumn(
  type: ConditionType,
  field: "status" | "reason",
  name: string,
  priority = 0,
): PrinterColumn {
  return {
    name,
    type: "string",
    jsonPath: `.status.conditions[?(@.type=="${type}")].${field}`,
    description: field === "status" ? `Status of the ${type} condition.` : `Reason of the ${type} condition.`,
    ...(priority ? { priority } : {}),
  };
}

const age: PrinterColumn = {
  name: "Age",
  type: "date",
  jsonPath: ".metadata.creationTimestamp",
  description: "Time since creation.",
};

const network: PrinterColumn = {
  name: "Network",
  type: "string",
  jsonPath: ".spec.network",
  description: "Network the node joins.",
  priority: 1,
};

/** -o wide: how many pods run the current rendering, and what a pending change waits for. */
const rolloutColumns: PrinterColumn[] = [
  {
    name: "Updated",
    type: "integer",
    jsonPath: ".status.rollout.updatedReplicas",
    description: "Node pods running the current rendering.",
    priority: 1,
  },
  conditionColumn(ConditionType.RolloutPending, "reason", "Rollout", 1),
];

export const OrchestratorCrd: CrdDefinition = {
  kind: "Orchestrator",
  plural: "orchestrators",
  singular: "orchestrator",
  shortNames: ["orch"],
  description:
    "A Livepeer orchestrator (go-livepeer -orchestrator) on a suitable GPU node, with a session limit derived from its GPUs, a reachable service address and a status that tells the truth.",
  spec: OrchestratorSpecSchema,
  status: OrchestratorStatusSchema,
  printerColumns: [
    conditionColumn(ConditionType.Ready, "status", "Ready"),
    {
      name: "Sessions",
      type: "integer",
      jsonPath: ".status.maxSessions",
      description: "Session limit the node runs with.",
    },
    {
      name: "GPU",
      type: "string",
      jsonPath: ".status.gpuProduct",
      description: "GPU model of the node the pod runs on.",
    },
    {
      name: "Node",
      type: "string",
      jsonPath: ".status.node",
      description: "Kubernetes node the pod runs on.",
    },
    conditionColumn(ConditionType.Ready, "reason", "Reason", 1),
    // AI (spec.ai): -o wide.
    conditionColumn(ConditionType.AIReady, "status", "AI", 1),
    ...rolloutColumns,
    // Live AI (spec.ai.live): whether every app's runners are offered by the node; -o wide.
    conditionColumn(ConditionType.LiveAIReady, "status", "Live", 1),
    network,
    age,
  ],
};

export const GatewayCrd: CrdDefinition = {
  kind: "Gateway",
  plural: "gateways",
  singular: "gateway",
  shortNames: ["gw"],
  description:
    "A Livepeer gateway (go-livepeer -gateway) that finds the cluster's orchestrators, with its deposit, reserve and price cap checked.",
  spec: GatewaySpecSchema,
  status: GatewayStatusSchema,
  printerColumns: [
    conditionColumn(ConditionType.Ready, "status", "Ready"),
    {
      name: "Orchs",
      type: "integer",
      jsonPath: ".status.orchestratorCount",
      description: "How many orchestrators the gateway was given.",
    },
    conditionColumn(ConditionType.PriceCompatible, "status", "Price"),
    conditionColumn(ConditionType.Funded, "status", "Funded"),
    ...rolloutColumns,
    {
      name: "Deposit",
      type: "string",
      jsonPath: ".status.deposit",
      description: "TicketBroker deposit, in ETH.",
    },
    {
      name: "Reserve",
      type: "string",
      jsonPath: ".status.reserve",
      description: "TicketBroker reserve, in ETH.",
    },
    conditionColumn(ConditionType.Ready, "reason", "Reason", 1),
    network,
    age,
  ],
};

export const RemoteSignerCrd: CrdDefinition = {
  kind: "RemoteSigner",
  plural: "remotesigners",
  singular: "remotesigner",
  shortNames: ["lpsigner"],
  description:
    "A Livepeer remote signer (go-livepeer -remoteSigner): the wallet key in its own pods, signing and paying for keyless Gateways and SDK apps, with per-tenant caps the operator's API decides.",
  spec: RemoteSignerSpecSchema,
  status: RemoteSignerStatusSchema,
  printerColumns: [
    conditionColumn(ConditionType.Ready, "status", "Ready"),
    {
      name: "Replicas",
      type: "integer",
      jsonPath: ".status.readyReplicas",
      description: "Signer pods that are Ready.",
    },
    conditionColumn(ConditionType.Funded, "status", "Funded"),
    {
      name: "Address",
      type: "string",
      jsonPath: ".status.address",
      description: "The signer's Ethereum address (the account that pays).",
    },
    {
      name: "Deposit",
      type: "string",
      jsonPath: ".status.deposit",
      description: "TicketBroker deposit, in ETH.",
      priority: 1,
    },
    {
      name: "Reserve",
      type: "string",
      jsonPath: ".status.reserve",
      description: "TicketBroker reserve, in ETH.",
      priority: 1,
    },
    conditionColumn(ConditionType.Ready, "reason", "Reason", 1),
    network,
    age,
  ],
};

export const WebhookCrd: CrdDefinition = {
  kind: "Webhook",
  plural: "webhooks",
  singular: "webhook",
  shortNames: ["wh"],
  description:
    "A webhook of the Livepeer API: events of the chosen kinds are delivered to url, signed with the referenced secret, retried and logged. metadata.name is the API id.",
  spec: WebhookSpecSchema,
  status: WebhookStatusSchema,
  printerColumns: [
    {
      name: "Display Name",
      type: "string",
      jsonPath: ".spec.name",
      description: "The webhook's name in the API (metadata.name is its id).",
    },
    { name: "URL", type: "string", jsonPath: ".spec.url", description: "Where events are delivered." },
    conditionColumn(ConditionType.Ready, "status", "Ready"),
    {
      name: "Events",
      type: "string",
      jsonPath: ".spec.events",
      description: "Event kinds sent (empty: all).",
      priority: 1,
    },
    {
      name: "Project",
      type: "string",
      jsonPath: ".spec.projectId",
      description: "Project the webhook belongs to.",
      priority: 1,
    },
    age,
  ],
};

export const CUSTOM_RESOURCES: readonly CrdDefinition[] = [
  OrchestratorCrd,
  GatewayCrd,
  RemoteSignerCrd,
  WebhookCrd,
];

export const Orchestrators = customResourceType(OrchestratorCrd);
export const Gateways = customResourceType(GatewayCrd);
export const RemoteSigners = customResourceType(RemoteSignerCrd);
export const Webhooks = customResourceType(WebhookCrd);
