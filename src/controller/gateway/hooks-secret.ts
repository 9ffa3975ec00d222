// The gateway's hooks Secret (pure): a token drawn once, the URLs that carry it (the pod reads the
// discovery URL as LP_ORCHWEBHOOKURL, the stream auth URL as LP_AUTHWEBHOOKURL; the controller
// reports ended streams to the third), and, readable without the values, the token's digest (published
// in the Gateway's status, for the API server to check the node's calls against) and the base URL
// the URL was made for (a new --node-hooks-url re-renders the URL with the same token).
import type { V1Secret } from "@kubernetes/client-node";
import { hookTokenDigest, type NodeHook, nodeHookUrl } from "../../schema/node-hooks.ts";
import { generatedSecret } from "../node-pod/index.ts";
import { gatewayChildNames, HOOKS_SECRET_KEYS } from "./names.ts";

export const TOKEN_DIGEST_ANNOTATION = "livepeer.org/token-digest";
export const HOOKS_BASE_ANNOTATION = "livepeer.org/node-hooks-url";

export interface HooksSecretInput {
  gateway: string;
  namespace: string;
  token: string;
  /** The API server's base URL as node pods reach it, e.g. http://livepeer-operator-api.livepeer-system.svc. */
  base: string;
}

export function hooksSecret(i: HooksSecretInput): V1Secret {
  const url = (hook: NodeHook) => nodeHookUrl(i.base, i.namespace, i.gateway, hook, i.token);
  return generatedSecret({
    name: gatewayChildNames(i.gateway).hooksSecret,
    namespace: i.namespace,
    values: {
      [HOOKS_SECRET_KEYS.token]: i.token,
      [HOOKS_SECRET_KEYS.orchWebhookUrl]: url("orchestrators"),
      [HOOKS_SECRET_KEYS.authWebhookUrl]: url("auth"),
      [HOOKS_SECRET_KEYS.streamEventsUrl]: url("stream-events"),
    },
    annotations: { [TOKEN_DIGEST_ANNOTATION]: hookTokenDigest(i.token), [HOOKS_BASE_ANNOTATION]: i.base },
  });
}

/**
 * What the cached Secret (key names and metadata only) says: its digest, and whether its URLs are
 * current (made for this base URL, every key present: a Secret made before a hook existed is stale).
 */
export function hooksSecretState(
  cached: { metadata?: { annotations?: Record<string, string> }; dataKeys?: readonly string[] } | undefined,
  base: string,
  /** The keys a current Secret holds (default: the gateway's). */
  keys: readonly string[] = Object.values(HOOKS_SECRET_KEYS),
): { state: "missing" } | { state: "current"; digest: string } | { state: "stale"; digest: string } {
  const a = cached?.metadata?.annotations ?? {};
  const digest = a[TOKEN_DIGEST_ANNOTATION];
  if (!cached || !digest || !/^[0-9a-f]{64}$/.test(digest)) return { state: "missing" };
  const present = new Set(cached.dataKeys ?? keys);
  const complete = keys.every((k) => present.has(k));
  return a[HOOKS_BASE_ANNOTATION] === base && complete
    ? { state: "current", digest }
    : { state: "stale", digest };
}
