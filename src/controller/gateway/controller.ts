// Registration of the Gateway controller.
import { ConfigMaps, Secrets, Services, StatefulSets } from "../../kube/index.ts";
import { Gateways } from "../../schema/resources.ts";
import type { ControllerDefinition } from "../runtime/index.ts";
import { type GatewayOptions, GatewayReconciler } from "./reconcile.ts";
import { gatewayCaches, gatewayWatches } from "./watch.ts";

export function gatewayController(options: GatewayOptions): ControllerDefinition {
  return {
    name: "gateway",
    resource: Gateways,
    owns: [StatefulSets, Services, ConfigMaps, Secrets],
    watches: gatewayWatches,
    cache: gatewayCaches,
    setup: (ctx) => new GatewayReconciler(ctx, options),
  };
}
