// Every controller `livepeer-operator controller` runs. A new reconciler adds one line here.
import { orchestratorController } from "./orchestrator/controller.ts";
import type { ControllerDefinition } from "./runtime/index.ts";
import { webhookController } from "./webhook/controller.ts";

export const controllers: ControllerDefinition[] = [webhookController, orchestratorController()];
