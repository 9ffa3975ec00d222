// Status fields every resource shares, and the facts the controller reports (contract:
// ARCHITECTURE.md "Resources").
import { z } from "zod";
import { ConditionListSchema } from "./condition.ts";
import { FindingListSchema } from "./finding.ts";

export const commonStatusFields = {
  observedGeneration: z
    .int()
    .min(0)
    .optional()
    .describe(
      "The metadata.generation this status describes; older than metadata.generation while a change is being applied.",
    ),
  conditions: ConditionListSchema.optional(),
  findings: FindingListSchema.optional(),
};

export const statusFacts = {
  maxSessions: z
    .int()
    .min(0)
    .optional()
    .describe("The session limit the node runs with (-maxSessions): concurrent streams it accepts."),
  maxSessionsReason: z
    .string()
    .max(1024)
    .optional()
    .describe("How maxSessions was derived, for example: 2 GPUs x 4 streams (NVENC cap 8 / 2 renditions)."),
  node: z.string().max(253).optional().describe("The Kubernetes node the pod runs on."),
  gpuProduct: z
    .string()
    .max(63)
    .optional()
    .describe(
      "GPU model of that node (nvidia.com/gpu.product), for example NVIDIA-GeForce-RTX-3090; absent on CPU.",
    ),
  serviceAddr: z
    .string()
    .max(512)
    .optional()
    .describe("The host:port the node advertises (-serviceAddr), for example orch-a.livepeer.svc:8935."),
  serviceURI: z
    .string()
    .max(2048)
    .optional()
    .describe(
      "The service URI registered on chain, for example https://orch.example.com:8935; on chain only.",
    ),
  pricePerUnit: z
    .string()
    .max(96)
    .optional()
    .describe(
      'The orchestrator\'s price per pixelsPerUnit pixels, from where priceSource says: wei ("1000"), or with a currency suffix when configured.',
    ),
  pixelsPerUnit: z.int().min(1).optional().describe("How many pixels pricePerUnit buys."),
  priceSource: z
    .enum(["advertised", "configured"])
    .optional()
    .describe(
      "Where pricePerUnit comes from: advertised (the node's GetOrchestrator answer to the controller, ticket overhead included) or configured (the spec: no answer carried a price. Off chain the node quotes none; on chain it quotes only a signed, funded asker: see quotes for what it quoted each Gateway).",
    ),
  quotes: z
    .array(
      z
        .strictObject({
          gateway: z.string().max(253).describe("The Gateway resource in this namespace."),
          pricePerUnit: z
            .string()
            .max(96)
            .describe(
              "What the orchestrator quoted that gateway per pixelsPerUnit pixels, in wei (ticket overhead included).",
            ),
          pixelsPerUnit: z.int().min(1).describe("How many pixels pricePerUnit buys."),
          quotedAt: z
            .string()
            .max(64)
            .optional()
            .describe("When the controller first read this quote from the gateway's node (RFC 3339)."),
        })
        .describe("A price the orchestrator quoted a gateway, as that gateway's node lists it."),
    )
    .max(256)
    .optional()
    .describe(
      "On chain: the price the orchestrator quoted each Gateway that selects it, read from that gateway's node (GET /getNetworkCapabilities on its CLI port, which lists the answers its orchestrators gave it).",
    ),
  deposit: z
    .string()
    .max(96)
    .optional()
    .describe(
      "The gateway's TicketBroker deposit in ETH as a decimal string, for example 0.25 (0 means it cannot pay).",
    ),
  reserve: z
    .string()
    .max(96)
    .optional()
    .describe(
      "The gateway's TicketBroker reserve in ETH as a decimal string, for example 0.1 (0 means it cannot pay).",
    ),
  balance: z
    .string()
    .max(96)
    .optional()
    .describe(
      "The node account's wallet balance in ETH as a decimal string, for example 0.05; under 0.02 it may not pay for gas. On chain only.",
    ),
  activeSet: z
    .boolean()
    .optional()
    .describe(
      "Whether the orchestrator is in the current round's active set (the top 100 by stake), which alone gets work. On chain only.",
    ),
  lastRewardRound: z
    .int()
    .min(0)
    .optional()
    .describe("The last round the orchestrator called reward in, as the chain records it. On chain only."),
};
