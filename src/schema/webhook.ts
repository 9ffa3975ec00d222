// The Webhook resource: the API's webhook as a custom resource. metadata.name is the API id; the
// secret lives in a Secret the spec points at, never in the resource.
import { z } from "zod";
import { withRules } from "./cross-field-rule.ts";
import { customResourceSchema, type Stored } from "./custom-resource.ts";
import { objectName, SecretKeySchema } from "./kubernetes-fields.ts";
import { commonStatusFields } from "./status.ts";
import {
  ProjectIdSchema,
  StreamIdSchema,
  UserIdSchema,
  WebhookDeliveryStatusSchema,
  WebhookEventsSchema,
  WebhookNameSchema,
  WebhookUrlSchema,
} from "./webhook-api.ts";

/** Labels and annotation the API writes (contract: ARCHITECTURE.md "Resources"). */
export const WEBHOOK_USER_ID_LABEL = "livepeer.org/user-id";
export const WEBHOOK_PROJECT_ID_LABEL = "livepeer.org/project-id";
/** Marks the Secrets the API generates for webhooks, so the controller adopts exactly those. */
export const WEBHOOK_SECRET_MANAGED_BY_LABEL = "livepeer.org/managed-by";
export const WEBHOOK_SECRET_MANAGED_BY_API = "livepeer-operator-api";
export const WEBHOOK_CREATED_AT_ANNOTATION = "livepeer.org/created-at-ms";

export const SecretKeyRefSchema = z
  .strictObject({
    name: objectName("Secret").describe(
      "Name of the Secret in this namespace, for example my-webhook-secret.",
    ),
    key: SecretKeySchema.describe(
      "Key in the Secret whose value signs the payload, for example sharedSecret.",
    ),
  })
  .describe(
    "The Secret key holding the webhook's shared secret (the secret itself never appears in the resource).",
  );

const WebhookSpecBase = z
  .strictObject({
    name: WebhookNameSchema,
    url: WebhookUrlSchema,
    events: WebhookEventsSchema.optional(),
    streamId: StreamIdSchema.optional(),
    projectId: ProjectIdSchema.optional().describe(
      "Identifier of the project the webhook belongs to (also in the livepeer.org/project-id label). Absent: the user's default project.",
    ),
    userId: UserIdSchema.optional().describe(
      "Identifier of the user the webhook belongs to (also in the livepeer.org/user-id label).",
    ),
    sharedSecretRef: SecretKeyRefSchema.optional(),
  })
  .describe("The desired webhook: where to send which events.");

/**
 * The tenant a webhook belongs to is fixed once named: spec.userId may be added (the API fills it
 * from the livepeer.org/user-id label) but never changed or removed, so no write moves a webhook
 * and its deliveries to another user.
 */
export const WebhookSpecSchema = withRules(
  WebhookSpecBase,
  [],
  [
    {
      rule: "!has(oldSelf.userId) || (has(self.userId) && self.userId == oldSelf.userId)",
      fieldPath: ".userId",
      reason: "FieldValueForbidden",
      message:
        "userId cannot change once set: a webhook belongs to its user; create a new Webhook for the other user (POST /api/webhook with their token) and delete this one",
      messageExpression:
        '"userId cannot change once set: this webhook belongs to user " + oldSelf.userId + "; keep userId: " + oldSelf.userId + ", or create a new Webhook for the other user (POST /api/webhook with their token) and delete this one"',
      holdsAcross: (old, next) => old.userId === undefined || next.userId === old.userId,
    },
  ],
);

export const WebhookStatusSchema = z
  .strictObject({
    ...commonStatusFields,
    lastFailure: WebhookDeliveryStatusSchema.shape.lastFailure,
    lastTriggeredAt: WebhookDeliveryStatusSchema.shape.lastTriggeredAt,
  })
  .describe("Delivery status and conditions.");

export const WebhookSchema = customResourceSchema("Webhook", WebhookSpecSchema, WebhookStatusSchema).describe(
  "A webhook of the Livepeer API: a URL that receives signed notifications for chosen event kinds.",
);

export type SecretKeyRef = z.infer<typeof SecretKeyRefSchema>;
export type WebhookSpec = z.infer<typeof WebhookSpecSchema>;
export type WebhookStatus = z.infer<typeof WebhookStatusSchema>;
export type Webhook = z.infer<typeof WebhookSchema>;
/** A Webhook as read from the cluster (see Stored). */
export type StoredWebhook = Stored<WebhookSpec, WebhookStatus>;
