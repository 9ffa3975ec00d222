// What -orchWebhookUrl answers, and who may ask: pure functions over a cached Gateway.
import { hookTokenMatches } from "../../schema/node-hooks.ts";
import type { GatewayHooks } from "./gateway-hooks-cache.ts";

export interface DiscoveredOrchestrator {
  address: string;
}

export function hookAllowed(gateway: GatewayHooks | undefined, token: string | undefined): boolean {
  return !!gateway && hookTokenMatches(token, gateway.status?.hookTokenDigest);
}

/** The repeated `caps` query values (`<pipeline>/<model>`), as the official SDK sends them. */
export function capsOf(query: string | readonly string[] | undefined): string[] {
  const values = query === undefined ? [] : typeof query === "string" ? [query] : query;
  return values.map((c) => c.trim()).filter((c) => c !== "");
}

/**
 * The node dials orchestrators over TLS: a bare host:port becomes https://host:port. With `caps`
 * (OR, as go-livepeer's remote signer discovery filters them): only the orchestrators serving one
 * of them now (their capabilities as the controller published them: ready models, live apps with
 * a healthy runner).
 */
export function discoveryAnswer(
  gateway: GatewayHooks,
  caps: readonly string[] = [],
): DiscoveredOrchestrator[] {
  return (gateway.status?.orchestrators ?? [])
    .filter((o) => caps.length === 0 || caps.some((c) => o.capabilities?.includes(c)))
    .map((o) => ({
      address: /^[a-z][a-z0-9+.-]*:\/\//i.test(o.address) ? o.address : `https://${o.address}`,
    }));
}
