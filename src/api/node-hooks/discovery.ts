// What -orchWebhookUrl answers, and who may ask: pure functions over a cached Gateway.
import { hookTokenMatches } from "../../schema/node-hooks.ts";
import type { GatewayHooks } from "./gateway-hooks-cache.ts";

export interface DiscoveredOrchestrator {
  address: string;
}

export function hookAllowed(gateway: GatewayHooks | undefined, token: string | undefined): boolean {
  return !!gateway && hookTokenMatches(token, gateway.status?.hookTokenDigest);
}

/** The node dials orchestrators over TLS: a bare host:port becomes https://host:port. */
export function discoveryAnswer(gateway: GatewayHooks): DiscoveredOrchestrator[] {
  return (gateway.status?.orchestrators ?? []).map((o) => ({
    address: /^[a-z][a-z0-9+.-]*:\/\//i.test(o.address) ? o.address : `https://${o.address}`,
  }));
}
