// The node hooks: URLs the operator renders into a gateway's flags (-orchWebhookUrl,
// -authWebhookUrl) and a remote signer's (-remoteSignerWebhookUrl) and the API server answers, plus the controller's report of ended streams. The contract between the two sides lives here:
// the paths, where the per-gateway token travels, and how the API checks it without reading the
// gateway's Secret (the controller publishes the token's SHA-256 in the Gateway's status).
import { createHash, timingSafeEqual } from "node:crypto";
import { z } from "zod";

/** Outside the public API prefix: only node pods call these. */
export const NODE_HOOKS_PREFIX = "/node-hooks/v1";

/** Key of the gateway's owned Secret holding its token. */
export const NODE_HOOK_TOKEN_KEY = "token";

/**
 * `orchestrators`: -orchWebhookUrl (GET, discovery). `auth`: -authWebhookUrl (POST {"url"} per new
 * stream: stream.started). `stream-events`: the controller reports the ends of streams it read in
 * the node's log (POST StreamEndsReport: stream.idle); the node has no end-of-stream webhook.
 */
export type NodeHook = "orchestrators" | "auth" | "stream-events";

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

/**
 * A RemoteSigner's hooks: `auth` (-remoteSignerWebhookUrl: the signer POSTs {headers, state} per
 * payment and the API answers who may spend at what cap) and `orchestrators` (-orchWebhookUrl,
 * GET: the Orchestrators its spec.discovery selects, what its -remoteDiscovery offers).
 */
export type RemoteSignerHook = "auth" | "orchestrators";

/** The path of one RemoteSigner's hook (no host, no token). */
export function remoteSignerHookPath(namespace: string, name: string, hook: RemoteSignerHook): string {
  return `${NODE_HOOKS_PREFIX}/remote-signers/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${hook}`;
}

/** The URL the signer node calls, the token in the query string as the gateway hooks carry it. */
export function remoteSignerHookUrl(
  base: string,
  namespace: string,
  name: string,
  hook: RemoteSignerHook,
  token: string,
): string {
  return `${base.replace(/\/+$/, "")}${remoteSignerHookPath(namespace, name, hook)}?token=${encodeURIComponent(token)}`;
}

export const remoteSignerAuthHookPath = (namespace: string, name: string): string =>
  remoteSignerHookPath(namespace, name, "auth");

export const remoteSignerAuthHookUrl = (
  base: string,
  namespace: string,
  name: string,
  token: string,
): string => remoteSignerHookUrl(base, namespace, name, "auth", token);

export function hookTokenDigest(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Constant-time check of a presented token against the published digest. */
export function hookTokenMatches(presented: string | undefined, digest: string | undefined): boolean {
  if (!presented || !digest || !/^[0-9a-f]{64}$/.test(digest)) return false;
  return timingSafeEqual(Buffer.from(hookTokenDigest(presented), "hex"), Buffer.from(digest, "hex"));
}

/** One "Ended stream with manifestID=<id> external manifestID=<ext>" line of a gateway node's log. */
export const StreamEndSchema = z.strictObject({
  /** The node's internal manifest id. */
  manifestID: z.string().min(1).max(512),
  /** The manifest id of the ingest URL: the stream id events carry. */
  externalManifestID: z.string().min(1).max(512),
  /** The pod that printed it. */
  pod: z.string().min(1).max(253),
  /** The line's timestamp from the container log, RFC 3339 with nanoseconds (exact, part of the event id). */
  at: z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/, {
    error:
      "must be the log line's RFC 3339 timestamp in UTC, as the Kubernetes API gives it (2026-11-24T15:02:03.456789012Z)",
  }),
});

/** The body of POST .../stream-events: ends seen since the last report (at most 1,000). */
export const StreamEndsReportSchema = z.strictObject({ ends: z.array(StreamEndSchema).min(1).max(1000) });

export type StreamEnd = z.infer<typeof StreamEndSchema>;
export type StreamEndsReport = z.infer<typeof StreamEndsReportSchema>;
