// The API's schemas: the shared ones from src/schema (the single source of truth, imported, not
// copied) plus what this API adds on top, all in one place for the rest of src/api.
import { z } from "zod";
import {
  ErrorObjectSchema,
  SharedSecretSchema,
  WebhookObjectSchema,
  WebhookRequestSchema,
} from "../../schema/webhook-api.ts";

export type { ApiWebhook } from "../../schema/webhook-api.ts";
export { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from "../../schema/webhook-events.ts";
export { ErrorObjectSchema as ErrorObject, WebhookObjectSchema };

/**
 * Added here: on update an empty `sharedSecret` removes the stored secret (the shared schema
 * requires 1-512 characters, which is what a stored secret is). On create "" means none.
 */
export const RequestSharedSecret = z
  .union([z.literal(""), SharedSecretSchema])
  .meta({ writeOnly: true })
  .describe(
    "Secret used to sign delivered payloads: printable ASCII, 1 to 512 characters. Write-only: never returned. On update, omit it to keep the stored secret; an empty string removes it (on create an empty string means none).",
  );

/** A create or update body: the shared strict webhook object, with the sharedSecret rule above. */
export const WebhookRequestBody = WebhookRequestSchema.extend({
  sharedSecret: RequestSharedSecret.optional(),
});
export type WebhookRequestBody = z.infer<typeof WebhookRequestBody>;
