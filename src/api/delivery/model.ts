// The nouns of webhook delivery, shared by the policy, the stores and the worker: an event (what
// happened, for which tenant), a delivery (one event for one webhook, retried until it settles),
// a log entry (one attempt, as the API's webhook log shows it) and the per-webhook facts the
// Webhook's status is written from.

/** An event as a producer hands it in (the intake, the gateway's stream callbacks). */
export interface NewEvent {
  /** Stable id, the receivers' idempotency key; the same id twice (per tenant) is one event. Absent: generated. */
  id?: string | undefined;
  userId: string;
  projectId: string;
  /** The event kind, e.g. stream.started. */
  kind: string;
  streamId?: string | undefined;
  /** The stream object sent as the body's `stream` (e.g. {id, name}). */
  stream?: Record<string, unknown> | undefined;
  payload?: Record<string, unknown> | undefined;
  /** Event time in ms; absent: when it was recorded. */
  createdAt?: number | undefined;
}

/** An event as stored. */
export interface StoredEvent {
  id: string;
  userId: string;
  projectId: string;
  kind: string;
  streamId?: string | undefined;
  stream?: Record<string, unknown> | undefined;
  payload?: Record<string, unknown> | undefined;
  createdAt: number;
}

/** Where a webhook delivers now, resolved when an attempt starts (URL edits apply to pending retries). */
export interface DeliveryTarget {
  url: string;
  /** The shared secret; absent: unsigned deliveries. Never stored by the delivery engine. */
  sharedSecret?: string | undefined;
  /**
   * Changes whenever the webhook's spec changes (the lead uses metadata.generation): a 410 Gone
   * turns the webhook off for this revision only, so its next update turns it back on.
   */
  revision: string;
}

/** A delivery a worker holds a lease on: it attempts it once and reports how that went. */
export interface ClaimedDelivery {
  deliveryId: number;
  /** Proves the lease is still ours when the result is recorded. */
  claimToken: string;
  webhookId: string;
  /** Attempts made before this one. */
  attempts: number;
  /** When the delivery was created: retries stop once the schedule's age limit has passed. */
  createdAt: number;
  /** The revision a 410 Gone turned the webhook off for, if any. */
  goneRevision?: string | undefined;
  event: StoredEvent;
}

/** The request of an attempt, as logged (headers carry signatures, never the secret). */
export interface LoggedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

export interface LoggedResponse {
  status: number;
  statusText: string;
  /** The first bytes of the body (1 KiB), decoded as UTF-8. */
  body: string;
}

/** One attempt, newest first in the webhook's log. */
export interface LogEntry {
  id: string;
  webhookId: string;
  eventId: string;
  /** The event kind. */
  event: string;
  /** When the attempt started, ms. */
  createdAt: number;
  durationMs: number;
  success: boolean;
  request: LoggedRequest;
  response?: LoggedResponse | undefined;
  /** Why it failed, never empty when success is false ("timeout after 10 s", "HTTP 503"). */
  error?: string | undefined;
}

/** What the Webhook's status is written from; the lead reads the changed ones and coalesces writes. */
export interface WebhookFacts {
  webhookId: string;
  lastTriggeredAt?: number | undefined;
  lastFailure?:
    | {
        timestamp: number;
        error: string;
        response?: string | undefined;
        statusCode?: number | undefined;
      }
    | undefined;
  /** Whether the latest attempt succeeded (the `Delivering` condition); absent before any attempt. */
  delivering?: boolean | undefined;
  /** Set when the endpoint answered 410 Gone: deliveries stop until the webhook's revision changes. */
  gone?: { revision: string; at: number } | undefined;
  /** When these facts last changed (ms), the cursor of `factsChangedSince`. */
  updatedAt: number;
}

/** A page of the log, newest first; `next` is where the following page starts. */
export interface LogPage {
  items: LogEntry[];
  next?: LogPosition | undefined;
}

/** A position in log order (createdAt descending, id ascending), as the API's list cursors. */
export interface LogPosition {
  createdAt: number;
  id: string;
}

/** The log entry in the shape the `livepeer` SDK parses (duration in seconds). */
export function apiLogOf(entry: LogEntry): {
  id: string;
  webhookId: string;
  event: string;
  createdAt: number;
  duration: number;
  success: boolean;
  request: LoggedRequest;
  response?: LoggedResponse;
} {
  const out: ReturnType<typeof apiLogOf> = {
    id: entry.id,
    webhookId: entry.webhookId,
    event: entry.event,
    createdAt: entry.createdAt,
    duration: entry.durationMs / 1000,
    success: entry.success,
    request: entry.request,
  };
  if (entry.response) out.response = entry.response;
  return out;
}
