// Rows of both backends (same column names) to and from the model. JSON columns are text.
import type { LogEntry, NewEvent, StoredEvent, WebhookFacts } from "../model.ts";

type Row = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const num = (v: unknown): number | undefined =>
  typeof v === "number" ? v : typeof v === "bigint" || typeof v === "string" ? Number(v) : undefined;
const json = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === "string" ? (JSON.parse(v) as Record<string, unknown>) : undefined;
const present = (v: unknown) => v !== null && v !== undefined;

export function eventFromRow(r: Row): StoredEvent {
  return {
    id: String(r.id),
    userId: String(r.user_id),
    projectId: String(r.project_id),
    kind: String(r.kind),
    streamId: str(r.stream_id),
    stream: json(r.stream),
    payload: json(r.payload),
    createdAt: num(r.created_at) ?? 0,
  };
}

/**
 * A new event's values for its row, in column order: id, user_id, project_id, kind, stream_id,
 * stream, payload (both as JSON text, stored as sent), created_at (`now` when the event has none).
 */
export function eventValues(e: NewEvent & { id: string }, now: number): (string | number | null)[] {
  return [
    e.id,
    e.userId,
    e.projectId,
    e.kind,
    e.streamId ?? null,
    e.stream ? JSON.stringify(e.stream) : null,
    e.payload ? JSON.stringify(e.payload) : null,
    e.createdAt ?? now,
  ];
}

export const LOG_COLUMNS = [
  "id",
  "webhook_id",
  "event_id",
  "event",
  "created_at",
  "duration_ms",
  "success",
  "request_url",
  "request_method",
  "request_headers",
  "request_body",
  "response_status",
  "response_status_text",
  "response_body",
  "error",
] as const;

/** The log entry's values in LOG_COLUMNS order (success as 0/1; PostgreSQL casts it). */
export function logValues(e: LogEntry): (string | number | null)[] {
  return [
    e.id,
    e.webhookId,
    e.eventId,
    e.event,
    e.createdAt,
    e.durationMs,
    e.success ? 1 : 0,
    e.request.url,
    e.request.method,
    JSON.stringify(e.request.headers),
    e.request.body,
    e.response?.status ?? null,
    e.response?.statusText ?? null,
    e.response?.body ?? null,
    e.error ?? null,
  ];
}

export function logFromRow(r: Row): LogEntry {
  const entry: LogEntry = {
    id: String(r.id),
    webhookId: String(r.webhook_id),
    eventId: String(r.event_id),
    event: String(r.event),
    createdAt: num(r.created_at) ?? 0,
    durationMs: num(r.duration_ms) ?? 0,
    success: r.success === true || r.success === 1 || r.success === 1n,
    request: {
      url: String(r.request_url),
      method: String(r.request_method),
      headers: (json(r.request_headers) ?? {}) as Record<string, string>,
      body: String(r.request_body),
    },
  };
  if (present(r.response_status)) {
    entry.response = {
      status: num(r.response_status) ?? 0,
      statusText: str(r.response_status_text) ?? "",
      body: str(r.response_body) ?? "",
    };
  }
  if (present(r.error)) entry.error = String(r.error);
  return entry;
}

export function factsFromRow(r: Row): WebhookFacts {
  const facts: WebhookFacts = { webhookId: String(r.webhook_id), updatedAt: num(r.updated_at) ?? 0 };
  if (present(r.last_triggered_at)) facts.lastTriggeredAt = num(r.last_triggered_at);
  if (present(r.last_failure_at)) {
    facts.lastFailure = { timestamp: num(r.last_failure_at) ?? 0, error: str(r.last_failure_error) ?? "" };
    if (present(r.last_failure_response)) facts.lastFailure.response = str(r.last_failure_response);
    if (present(r.last_failure_status)) facts.lastFailure.statusCode = num(r.last_failure_status);
  }
  if (present(r.delivering))
    facts.delivering = r.delivering === true || r.delivering === 1 || r.delivering === 1n;
  if (present(r.gone_revision)) facts.gone = { revision: String(r.gone_revision), at: num(r.gone_at) ?? 0 };
  return facts;
}
