// The node hooks: URLs the operator renders into a gateway's flags (-orchWebhookUrl, later
// -authWebhookUrl) and the API server answers. The contract between the two sides lives here:
// the paths, where the per-gateway token travels, and how the API checks it without reading the
// gateway's Secret (the controller publishes the token's SHA-256 in the Gateway's status).
import { createHash, timingSafeEqual } from "node:crypto";

/** Outside the public API prefix: only node pods call these. */
export const NODE_HOOKS_PREFIX = "/node-hooks/v1";

/** Key of the gateway's owned Secret holding its token. */
export const NODE_HOOK_TOKEN_KEY = "token";

export type NodeHook = "orchestrators";

/** The path of one gateway's hook (no host, no token). */
export function nodeHookPath(namespace: string, gateway: string, hook: NodeHook): string {
  return `${NODE_HOOKS_PREFIX}/gateways/${encodeURIComponent(namespace)}/${encodeURIComponent(gateway)}/${hook}`;
}

/**
 * The URL the node calls: the token rides in the query string, which the API never logs (the node
 * sends no custom headers to these hooks).
 */
export function nodeHookUrl(
  base: string,
  namespace: string,
  gateway: string,
  hook: NodeHook,
  token: string,
): string {
  return `${base.replace(/\/+$/, "")}${nodeHookPath(namespace, gateway, hook)}?token=${encodeURIComponent(token)}`;
}

export function hookTokenDigest(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Constant-time check of a presented token against the published digest. */
export function hookTokenMatches(presented: string | undefined, digest: string | undefined): boolean {
  if (!presented || !digest || !/^[0-9a-f]{64}$/.test(digest)) return false;
  return timingSafeEqual(Buffer.from(hookTokenDigest(presented), "hex"), Buffer.from(digest, "hex"));
}
