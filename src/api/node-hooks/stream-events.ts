// What a gateway's stream calls mean as events (pure): which ingest URL is a new stream, whose
// events they are, and the stable event ids that make a retried call or a log line read twice
// one event. The stream id is the manifest id of the ingest URL (/live/<name>/<seq>.ts,
// rtmp://host/live/<name>): the name a user pushes to, the id a Webhook's `streamId` names. The
// auth hook answers an empty 200, so the node keeps that id as its own (its end line then names
// it twice).
import { createHash } from "node:crypto";
import type { StreamEnd } from "../../schema/node-hooks.ts";
import { DEFAULT_PROJECT } from "../auth/claims.ts";
import type { NewEvent } from "../delivery/index.ts";
import type { GatewayHooks } from "./gateway-hooks-cache.ts";

export interface IngestStream {
  /** The manifest id of the ingest URL: the events' stream id. */
  streamId: string;
  protocol: "http" | "rtmp";
}

/**
 * The stream a -authWebhookUrl call opens, or undefined when the call is not a new stream (the
 * node also asks the hook before serving /recordings/). The node's parseStreamID: the path
 * without its extension, "live/" and a leading "stream/" removed, then the part before "/".
 */
export function ingestStreamOf(url: unknown): IngestStream | undefined {
  if (typeof url !== "string") return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url, "http://node.invalid");
  } catch {
    return undefined;
  }
  const protocol = parsed.protocol === "rtmp:" ? "rtmp" : parsed.protocol === "http:" ? "http" : undefined;
  // HTTP ingest is served at /live/ only; RTMP takes any app path.
  if (!protocol || (protocol === "http" && !/^\/+live\//.test(parsed.pathname))) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(parsed.pathname);
  } catch {
    return undefined;
  }
  const ext = /\.[^./]*$/.exec(path)?.[0] ?? "";
  const clean = path.slice(0, path.length - ext.length).replace(/^[ /]*(stream\/)?|(live\/)?/g, "");
  const streamId = clean.split("/")[0] ?? "";
  return streamId ? { streamId, protocol } : undefined;
}

export interface StreamEventTenant {
  userId: string;
  projectId: string;
}

/** Whose webhooks get the gateway's stream events; undefined when it does not send them. */
export function streamEventTenant(gateway: GatewayHooks): StreamEventTenant | undefined {
  const s = gateway.spec?.streamEvents;
  if (!s?.enabled || !s.userId) return undefined;
  return { userId: s.userId, projectId: s.projectId ?? DEFAULT_PROJECT };
}

/** A UUID-shaped (version 8) id from a hash of the parts: the same parts, the same id. */
export function stableEventId(...parts: string[]): string {
  const h = createHash("sha256").update(parts.join("\u0000")).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

const gatewayOf = (g: GatewayHooks) => ({
  namespace: g.metadata?.namespace ?? "",
  name: g.metadata?.name ?? "",
});

/** stream.started: one per stream start, however often the node asks about it (startedAt is the first call's). */
export function startedEvent(
  gateway: GatewayHooks,
  tenant: StreamEventTenant,
  stream: IngestStream,
  startedAt: number,
): NewEvent {
  return {
    ...tenant,
    id: stableEventId("stream.started", gateway.metadata?.uid ?? "", stream.streamId, String(startedAt)),
    kind: "stream.started",
    streamId: stream.streamId,
    stream: { id: stream.streamId, name: stream.streamId },
    payload: { gateway: gatewayOf(gateway), protocol: stream.protocol },
    createdAt: startedAt,
  };
}

/** stream.idle: one per end line (pod and the line's exact time), however often it is read. */
export function idleEvent(gateway: GatewayHooks, tenant: StreamEventTenant, end: StreamEnd): NewEvent {
  const streamId = end.externalManifestID;
  return {
    ...tenant,
    id: stableEventId("stream.idle", gateway.metadata?.uid ?? "", streamId, end.pod, end.at),
    kind: "stream.idle",
    streamId,
    stream: { id: streamId, name: streamId },
    payload: { gateway: gatewayOf(gateway), pod: end.pod },
    createdAt: Date.parse(end.at),
  };
}
