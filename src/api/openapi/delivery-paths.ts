// The OpenAPI entries of webhook delivery: the event intake and a webhook's log (the shapes the
// `livepeer` SDK's getLogs, getLog and resendLog parse).
import type { z } from "zod";
import { EVENTS_WRITE_SCOPE } from "../auth/claims.ts";
import { EventBodySchema, MAX_PAYLOAD_BYTES } from "../events/event-body.ts";
import { CursorSchema } from "../webhooks/cursor.ts";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../webhooks/list-query.ts";

type Json = Record<string, unknown>;

const errorResponse = (description: string): Json => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/error" } } },
});

const json = (schema: Json): Json => ({ "application/json": { schema } });

export const webhookLogComponent: Json = {
  type: "object",
  description: "One delivery attempt (request as sent, signatures included, never the secret).",
  required: ["id", "webhookId"],
  properties: {
    id: { type: "string" },
    webhookId: { type: "string" },
    event: { type: "string", description: "The event kind." },
    createdAt: { type: "number", description: "When the attempt started (ms)." },
    duration: { type: "number", description: "Seconds the attempt took." },
    success: { type: "boolean" },
    request: {
      type: "object",
      properties: {
        url: { type: "string" },
        method: { type: "string" },
        headers: { type: "object", additionalProperties: { type: "string" } },
        body: { type: "string" },
      },
    },
    response: {
      type: "object",
      description: "Absent when no answer came (connection refused, timeout, refused address).",
      properties: {
        status: { type: "number" },
        statusText: { type: "string" },
        body: { type: "string", description: "The first 1 KiB of the body." },
      },
    },
  },
};

const id = {
  name: "id",
  in: "path",
  required: true,
  description: "The webhook's id (another tenant's: 404).",
  schema: { type: "string" },
};
const logId = {
  name: "logId",
  in: "path",
  required: true,
  description: "The log entry's id.",
  schema: { type: "string" },
};
const logRef = { $ref: "#/components/schemas/webhookLog" };
const otherwise =
  "401 unauthenticated, 404 unknown webhook or log entry (or another tenant's), 422 invalid query, 429 rate limited, 503 (Retry-After).";

/** Paths to merge into the document; `schemaOf` turns a zod schema into a components-aware JSON Schema. */
export function deliveryPaths(schemaOf: (s: z.ZodType) => Json): Record<string, Json> {
  return {
    "/events": {
      post: {
        operationId: "publishEvent",
        tags: ["events"],
        summary: "Publish an event",
        description: `Needs the '${EVENTS_WRITE_SCOPE}' scope. The event goes to the tenant's webhooks subscribed to its kind (a webhook with a streamId only gets that stream's events). Producers publish for their token's tenant; admins may name one with userId/projectId. Answered 202 once durably recorded; the same id twice (per tenant) is one event, so retry with the same id. payload: at most ${MAX_PAYLOAD_BYTES} bytes as JSON.`,
        requestBody: { required: true, content: json(schemaOf(EventBodySchema)) },
        responses: {
          "202": {
            description: "Recorded; deliveries are queued.",
            content: json({ type: "object", required: ["id"], properties: { id: { type: "string" } } }),
          },
          default: errorResponse(
            "400 no body, 401, 403 no events:write scope or another tenant named by a non-admin, 422 invalid (naming the field), 503 store unavailable (Retry-After).",
          ),
        },
      },
    },
    "/webhook/{id}/log": {
      get: {
        operationId: "getWebhookLogs",
        tags: ["webhook"],
        summary: "List a webhook's delivery log",
        description: 'Newest first. Follow the `Link: <...>; rel="next"` header for the next page.',
        parameters: [
          id,
          {
            name: "limit",
            in: "query",
            required: false,
            description: `Page size, 1-${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`,
            schema: { type: "integer", minimum: 1, maximum: MAX_LIMIT },
          },
          {
            name: "cursor",
            in: "query",
            required: false,
            description:
              "From the previous page's Link header (`<createdAt ms>_<id>`; any value of that form is answered, empty means the first page).",
            schema: schemaOf(CursorSchema),
          },
          {
            name: "count",
            in: "query",
            required: false,
            description: "`true` adds the number of entries in `X-Total-Count`.",
            schema: { type: "boolean" },
          },
        ],
        responses: {
          "200": { description: "Log entries.", content: json({ type: "array", items: logRef }) },
          default: errorResponse(otherwise),
        },
      },
    },
    "/webhook/{id}/log/{logId}": {
      get: {
        operationId: "getWebhookLog",
        tags: ["webhook"],
        summary: "Get a log entry",
        parameters: [id, logId],
        responses: {
          "200": { description: "The log entry.", content: json(logRef) },
          default: errorResponse(otherwise),
        },
      },
    },
    "/webhook/{id}/log/{logId}/resend": {
      post: {
        operationId: "resendWebhook",
        tags: ["webhook"],
        summary: "Resend a logged request",
        description:
          "Sends the logged event again now (new timestamp, signed with the webhook's current secret, to its current URL) and answers the new log entry.",
        parameters: [id, logId],
        responses: {
          "200": { description: "The new log entry.", content: json(logRef) },
          default: errorResponse(otherwise),
        },
      },
    },
  };
}
