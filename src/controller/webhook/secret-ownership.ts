// Which Secrets a Webhook may own. The API server creates a Secret for each webhook it creates
// and marks it; the controller adopts exactly those (so the garbage collector deletes the Secret
// with its Webhook). A Secret a user brought is only referenced, never owned: deleting the
// Webhook must not delete the user's Secret.

import { controllerOf, type KubeObject } from "../../kube/index.ts";
import {
  type StoredWebhook,
  WEBHOOK_SECRET_MANAGED_BY_API,
  WEBHOOK_SECRET_MANAGED_BY_LABEL,
} from "../../schema/webhook.ts";

/** Set by the API server (src/api) on the Secrets it generates for webhooks. */
export const MANAGED_BY_LABEL = WEBHOOK_SECRET_MANAGED_BY_LABEL;
export const MANAGED_BY_API = WEBHOOK_SECRET_MANAGED_BY_API;

export type Ownership = "owned" | "adopt" | "user" | "other-controller";

export function secretOwnership(webhook: StoredWebhook, secret: KubeObject): Ownership {
  const ref = controllerOf(secret);
  if (ref?.uid && ref.uid === webhook.metadata?.uid) return "owned";
  if (ref) return "other-controller";
  return secret.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_API ? "adopt" : "user";
}
