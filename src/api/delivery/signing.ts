// The request a receiver gets: the hosted service's JSON body and `Livepeer-Signature` (hex
// HMAC-SHA256 of the raw body), plus the Standard Webhooks headers (base64 HMAC-SHA256 of
// `id.timestamp.body`, keyed with the shared secret's UTF-8 bytes: receivers use the library's
// raw-secret option). The body and signatures are computed once per attempt, here, purely.
import { createHmac, createSecretKey, type KeyObject } from "node:crypto";
import type { StoredEvent } from "./model.ts";

export const DEFAULT_USER_AGENT = "livepeer-operator-webhooks/1";

/** The body's fields, in the order the hosted service sends them. */
export interface DeliveryBody {
  id: string;
  webhookId: string;
  createdAt: number;
  timestamp: number;
  event: string;
  stream?: Record<string, unknown>;
  payload?: Record<string, unknown>;
}

export function deliveryBody(event: StoredEvent, webhookId: string, attemptAt: number): DeliveryBody {
  const body: DeliveryBody = {
    id: event.id,
    webhookId,
    createdAt: event.createdAt,
    timestamp: attemptAt,
    event: event.kind,
  };
  const stream = event.stream ?? (event.streamId ? { id: event.streamId } : undefined);
  if (stream) body.stream = stream;
  if (event.payload) body.payload = event.payload;
  return body;
}

// Both signatures key HMAC with the secret's UTF-8 bytes. A KeyObject made once per secret: a
// Buffer key costs about 11 us per HMAC (a new key handle each time), a KeyObject under 2 us.
const keys = new Map<string, KeyObject>();
function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 10_000) keys.clear();
    key = createSecretKey(Buffer.from(secret, "utf8"));
    keys.set(secret, key);
  }
  return key;
}

/** `t=<ms>,v1=<hex HMAC-SHA256(secret, body)>`, as the hosted service signs. */
export function livepeerSignature(secret: string, attemptAt: number, rawBody: string): string {
  const mac = createHmac("sha256", keyOf(secret)).update(rawBody).digest("hex");
  return `t=${attemptAt},v1=${mac}`;
}

/** Standard Webhooks: `v1,<base64 HMAC-SHA256(secret bytes, "id.seconds.body")>`. */
export function standardSignature(
  secret: string,
  messageId: string,
  seconds: number,
  rawBody: string,
): string {
  const mac = createHmac("sha256", keyOf(secret))
    .update(`${messageId}.${seconds}.${rawBody}`)
    .digest("base64");
  return `v1,${mac}`;
}

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * The body and headers of one attempt at `attemptAt` (ms). `webhook-id` and `webhook-timestamp`
 * go out always (the id is the receiver's idempotency key); without a secret, no signatures.
 */
export function signedRequest(
  event: StoredEvent,
  webhookId: string,
  sharedSecret: string | undefined,
  attemptAt: number,
  userAgent = DEFAULT_USER_AGENT,
): SignedRequest {
  return signBody(deliveryBody(event, webhookId, attemptAt), sharedSecret, userAgent);
}

/** Signs a body as is (a resend re-signs a logged body with a new `timestamp`). */
export function signBody(
  body: DeliveryBody,
  sharedSecret: string | undefined,
  userAgent = DEFAULT_USER_AGENT,
): SignedRequest {
  const raw = JSON.stringify(body);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": userAgent,
  };
  const seconds = Math.floor(body.timestamp / 1000);
  headers["webhook-id"] = body.id;
  headers["webhook-timestamp"] = String(seconds);
  if (sharedSecret) {
    headers["livepeer-signature"] = livepeerSignature(sharedSecret, body.timestamp, raw);
    headers["webhook-signature"] = standardSignature(sharedSecret, body.id, seconds, raw);
  }
  return { body: raw, headers };
}
