// Registration of the Gateway controller.
import { ConfigMaps, Services, StatefulSets } from "../../kube/index.ts";
import { Gateways } from "../../schema/resources.ts";
import type { ControllerDefinition } from "../runtime/index.ts";
import { type GatewayOptions, GatewayReconciler } from "./reconcile.ts";
import { gatewayCaches, gatewayWatches } from "./watch.ts";

export function gatewayController(options: GatewayOptions): ControllerDefinition {
  return {
    name: "gateway",
    resource: Gateways,
    // Generated Secrets are checked by name, not watched (node-status/owned-secrets.ts).
    owns: [StatefulSets, Services, ConfigMaps],
    watches: gatewayWatches,
    cache: gatewayCaches,
    setup: (ctx) => new GatewayReconciler(ctx, options),
  };
}
