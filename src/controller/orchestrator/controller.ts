// Registration of the Orchestrator controller.
import { ConfigMaps, Services, StatefulSets } from "../../kube/index.ts";
import { Orchestrators } from "../../schema/resources.ts";
import type { ControllerDefinition } from "../runtime/index.ts";
import { type OrchestratorOptions, OrchestratorReconciler } from "./reconcile.ts";
import { orchestratorCaches, orchestratorWatches } from "./watch.ts";

export const DEFAULT_NODE_IMAGE = "livepeer/go-livepeer:0.8.8";

export function orchestratorController(
  options: OrchestratorOptions = { defaultImage: process.env.LIVEPEER_NODE_IMAGE ?? DEFAULT_NODE_IMAGE },
): ControllerDefinition {
  return {
    name: "orchestrator",
    resource: Orchestrators,
    // Generated Secrets are checked by name, not watched (node-status/owned-secrets.ts).
    owns: [StatefulSets, Services, ConfigMaps],
    watches: orchestratorWatches,
    cache: orchestratorCaches,
    setup: (ctx) => new OrchestratorReconciler(ctx, options),
  };
}
