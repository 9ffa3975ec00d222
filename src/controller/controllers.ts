// Every controller `livepeer-operator controller` runs. A new reconciler adds one line here.
import { DEFAULT_NODE_IMAGE, orchestratorController } from "./orchestrator/controller.ts";
import type { OrchestratorOptions } from "./orchestrator/reconcile.ts";
import type { ControllerDefinition } from "./runtime/index.ts";
import { webhookController } from "./webhook/controller.ts";

/** What the controller command's flags tune. */
export interface ControllerSettings {
  /** The node doctor's period and look rate (defaults suit production). */
  doctor?: OrchestratorOptions["doctor"];
}

export function controllers(settings: ControllerSettings = {}): ControllerDefinition[] {
  return [
    webhookController,
    orchestratorController({
      defaultImage: process.env.LIVEPEER_NODE_IMAGE ?? DEFAULT_NODE_IMAGE,
      ...(settings.doctor ? { doctor: settings.doctor } : {}),
    }),
  ];
}

export const CONTROLLER_NAMES = controllers().map((c) => c.name);
