// The hosted API's webhook object, request body and error object (the spec's "Resources and
// their fields"), for request validation and the OpenAPI document. The Webhook custom resource
// reuses the field schemas, so the API and the CRD accept the same values.
import { z } from "zod";
import { WebhookEventKindSchema } from "./webhook-events.ts";

/** The spec's pattern, verbatim (a JS RegExp's `source` would escape the slashes). */
export const WEBHOOK_URL_PATTERN = "^http(s)?://";

export const WebhookNameSchema = z
  .string()
  .max(1024)
  .describe("Name of the webhook, for people, for example my-webhook.");

/** The characters an RFC 3986 URI may contain (unreserved, reserved and "%"): ASCII only. */
const RFC3986_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;

/** The WHATWG parser's serialisation: punycode host, percent-encoded path, query and fragment. */
function asciiForm(u: string): string {
  return URL.canParse(u) ? new URL(u).href : u;
}

export const WebhookUrlSchema = z
  .string({ error: "url must be a string such as https://example.com/hooks/livepeer" })
  .max(2048)
  .regex(new RegExp(WEBHOOK_URL_PATTERN), {
    error: (iss) =>
      `url ${JSON.stringify(iss.input)} must start with http:// or https://, for example https://example.com/hooks/livepeer`,
  })
  .refine((u) => !new RegExp(WEBHOOK_URL_PATTERN).test(u) || URL.canParse(u), {
    error: (iss) =>
      `url ${JSON.stringify(iss.input)} is not a valid URI: percent-encode spaces and special characters`,
  })
  .refine((u) => !URL.canParse(u) || RFC3986_CHARACTERS.test(u), {
    error: (iss) =>
      `url ${JSON.stringify(iss.input)} is not an ASCII URI (RFC 3986): write it as ${JSON.stringify(asciiForm(String(iss.input)))} (punycode host, percent-encoded path)`,
  })
  .meta({ format: "uri", pattern: WEBHOOK_URL_PATTERN })
  .describe(
    "Where notifications are POSTed: an http:// or https:// URI (ASCII, RFC 3986: punycode for international host names), for example https://example.com/hooks/livepeer.",
  );

export const WebhookEventsSchema = z
  .array(WebhookEventKindSchema)
  .max(64)
  .describe(
    "Event kinds to send, for example [stream.started, stream.idle]. Absent: every kind; an empty list: none. A kind listed twice is kept once.",
  );

export const StreamIdSchema = z
  .string()
  .max(256)
  .describe(
    "Only send events of this stream (its id). Absent or empty: events of every stream of the project.",
  );
export const ProjectIdSchema = z
  .string()
  .max(256)
  .describe(
    "Identifier of the project the webhook belongs to. Absent or empty: the token's project (on update: unchanged).",
  );
export const UserIdSchema = z.string().max(256).describe("Identifier of the user the webhook belongs to.");

/** Printable ASCII, 1-512 characters. */
export const SharedSecretSchema = z
  .string({ error: "sharedSecret must be a string" })
  .min(1, { error: "sharedSecret must not be empty: leave it out for unsigned deliveries" })
  .max(512, { error: "sharedSecret must be at most 512 characters" })
  .regex(/^[\x20-\x7E]*$/, {
    error: "sharedSecret must be printable ASCII (letters, digits, punctuation and space)",
  })
  .describe(
    "Secret used to sign the webhook payload (printable ASCII, 1 to 512 characters). Write-only: never returned.",
  );

export const TimestampMsSchema = z.int().min(0);

export const WebhookLastFailureSchema = z
  .strictObject({
    timestamp: TimestampMsSchema.optional().describe(
      "When the last delivery failed, in milliseconds since the epoch.",
    ),
    error: z
      .string()
      .max(4096)
      .optional()
      .describe("Why the last delivery failed, for example: timeout after 30 s."),
    response: z
      .string()
      .max(4096)
      .optional()
      .describe("Start of the response body of the last failed delivery (up to 1 KiB kept)."),
    statusCode: z
      .int()
      .optional()
      .describe("HTTP status code of the last failed delivery; absent when no response came."),
  })
  .describe("Details of the most recent failed delivery.");

export const WebhookDeliveryStatusSchema = z
  .strictObject({
    lastFailure: WebhookLastFailureSchema.optional(),
    lastTriggeredAt: TimestampMsSchema.optional().describe(
      "When the webhook was last triggered, in milliseconds since the epoch.",
    ),
  })
  .describe("Delivery status of the webhook.");

const readOnly = { readOnly: true } as const;
const deprecatedReadOnly = { readOnly: true, deprecated: true } as const;

const webhookObjectShape = {
  id: z.string().max(256).meta(readOnly).optional().describe("Identifier of the webhook."),
  name: WebhookNameSchema,
  kind: z.string().max(64).meta(deprecatedReadOnly).optional().describe("Always webhook. Deprecated."),
  userId: UserIdSchema.meta(deprecatedReadOnly)
    .optional()
    .describe("Identifier of the owning user. Deprecated."),
  projectId: ProjectIdSchema.optional(),
  createdAt: z
    .number()
    .meta(readOnly)
    .optional()
    .describe("Timestamp of creation, in milliseconds since the epoch."),
  events: WebhookEventsSchema.optional(),
  url: WebhookUrlSchema,
  sharedSecret: SharedSecretSchema.meta({ writeOnly: true }).optional(),
  streamId: StreamIdSchema.optional(),
  status: WebhookDeliveryStatusSchema.meta(readOnly).optional(),
};

/**
 * The spec's webhook object: request body of create/update and (without sharedSecret) the
 * response. Strict: unknown properties are rejected. Read-only fields are accepted in a request
 * and ignored by the API (see WEBHOOK_READ_ONLY_FIELDS).
 */
export const WebhookObjectSchema = z
  .strictObject(webhookObjectShape, {
    error: (iss) =>
      iss.code === "unrecognized_keys"
        ? `unknown properties ${iss.keys.map((k) => JSON.stringify(k)).join(", ")}: a webhook has only ${Object.keys(webhookObjectShape).join(", ")}`
        : undefined,
  })
  .describe("A webhook: a URL that receives notifications for chosen event kinds, optionally of one stream.");

export const WebhookRequestSchema = WebhookObjectSchema;

/** What the API returns: never the secret. */
export const WebhookResponseSchema = WebhookObjectSchema.omit({ sharedSecret: true }).describe(
  "A webhook as the API returns it (sharedSecret is write-only and never returned).",
);

export const WEBHOOK_READ_ONLY_FIELDS = ["id", "kind", "userId", "createdAt", "status"] as const;
export const WEBHOOK_WRITABLE_FIELDS = [
  "name",
  "projectId",
  "events",
  "url",
  "sharedSecret",
  "streamId",
] as const;

export const ErrorObjectSchema = z
  .strictObject({
    errors: z
      .array(z.string())
      .min(1)
      .describe("Human-readable messages, at least one, each saying what went wrong and what to do."),
  })
  .describe("The body of every non-2xx response.");

export type WebhookObject = z.infer<typeof WebhookObjectSchema>;
export type WebhookRequest = z.infer<typeof WebhookRequestSchema>;
export type WebhookResponse = z.infer<typeof WebhookResponseSchema>;
/** The webhook object as the API returns it: every field it always fills is present. */
export type ApiWebhook = WebhookResponse & {
  id: string;
  kind: "webhook";
  userId: string;
  projectId: string;
  createdAt: number;
};
export type WebhookLastFailure = z.infer<typeof WebhookLastFailureSchema>;
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatusSchema>;
export type ErrorObject = z.infer<typeof ErrorObjectSchema>;
