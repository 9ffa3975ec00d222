// Every controller `livepeer-operator controller` runs. A new reconciler adds one line here.
import { ChainReads } from "../node/chain/index.ts";
import { gatewayController } from "./gateway/controller.ts";
import type { GatewayOptions } from "./gateway/reconcile.ts";
import { DEFAULT_NODE_IMAGE, orchestratorController } from "./orchestrator/controller.ts";
import type { OrchestratorOptions } from "./orchestrator/reconcile.ts";
import { DEFAULT_SIGNER_IMAGE, remoteSignerController } from "./remote-signer/controller.ts";
import type { ControllerDefinition } from "./runtime/index.ts";
import { webhookController } from "./webhook/controller.ts";

/** What the controller command's flags tune. */
export interface ControllerSettings {
  /** The node doctor's period and look rate (defaults suit production). */
  doctor?: OrchestratorOptions["doctor"];
  /** The API server's base URL as gateway pods reach it (Gateway discovery). */
  nodeHooksUrl?: string;
  /** How gateways reach the orchestrators they are given (default: their service address). */
  orchestratorAddresses?: GatewayOptions["orchestratorAddresses"];
  /**
   * Where the webhook API keeps Webhooks and their Secrets: the only namespaces in which the
   * controller lists and watches Secrets (absent: the namespaces it watches).
   */
  webhookNamespaces?: readonly string[];
  /** Where the operator runs: RemoteSigners' NetworkPolicies admit its pods from there only. */
  operatorNamespace?: string;
}

export function controllers(settings: ControllerSettings = {}): ControllerDefinition[] {
  const defaultImage = process.env.LIVEPEER_NODE_IMAGE ?? DEFAULT_NODE_IMAGE;
  const doctor = settings.doctor ? { doctor: settings.doctor } : {};
  // One for the process: nodes on the same RPC share its reads and its rate bound.
  const chain = new ChainReads();
  return [
    webhookController(settings.webhookNamespaces ? { namespaces: settings.webhookNamespaces } : {}),
    orchestratorController({ defaultImage, chain, ...doctor }),
    gatewayController({
      defaultImage,
      chain,
      ...doctor,
      ...(settings.nodeHooksUrl ? { nodeHooksUrl: settings.nodeHooksUrl } : {}),
      ...(settings.orchestratorAddresses ? { orchestratorAddresses: settings.orchestratorAddresses } : {}),
    }),
    remoteSignerController({
      defaultImage: process.env.LIVEPEER_NODE_IMAGE ?? DEFAULT_SIGNER_IMAGE,
      chain,
      ...doctor,
      ...(settings.nodeHooksUrl ? { nodeHooksUrl: settings.nodeHooksUrl } : {}),
      ...(settings.orchestratorAddresses ? { orchestratorAddresses: settings.orchestratorAddresses } : {}),
      ...(settings.operatorNamespace ? { operatorNamespace: settings.operatorNamespace } : {}),
    }),
  ];
}

export const CONTROLLER_NAMES = controllers().map((c) => c.name);
