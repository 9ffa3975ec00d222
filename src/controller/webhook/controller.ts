// Registration of the Webhook controller: Webhooks are primary, Secrets they own (the ones the
// API server generated) map back through their ownerReference, and any Secret named by a
// Webhook's spec.sharedSecretRef wakes that Webhook (so creating the missing Secret, or adding
// the key, makes it Ready without waiting for a resync).
//
// Both are cached only in the namespaces the webhook API keeps them in (the chart's release
// namespace): the API serves and delivers only the Webhooks there, and this is the one place
// the controller lists and watches Secrets, so it needs that right nowhere else.
import { type KubeObject, keyOf, Secrets } from "../../kube/index.ts";
import { Webhooks } from "../../schema/resources.ts";
import type { StoredWebhook } from "../../schema/webhook.ts";
import type { ControllerDefinition } from "../runtime/index.ts";
import { WebhookReconciler } from "./reconcile.ts";
import { secretKeysOnly } from "./secret-cache.ts";
import { BY_SHARED_SECRET, sharedSecretKeys } from "./shared-secret-index.ts";

export interface WebhookControllerOptions {
  /** Where the webhook API keeps Webhooks and their Secrets; absent = the manager's namespaces. */
  namespaces?: readonly string[];
}

export function webhookController(options: WebhookControllerOptions = {}): ControllerDefinition {
  const where = options.namespaces?.length ? { namespaces: options.namespaces } : {};
  return {
    name: "webhook",
    resource: Webhooks,
    owns: [Secrets],
    watches: [
      {
        resource: Secrets,
        map: (secret, cache) =>
          cache.byIndex<StoredWebhook>(Webhooks, BY_SHARED_SECRET, keyOf(secret)).map(keyOf),
      },
    ],
    cache: [
      { resource: Secrets, transform: secretKeysOnly, ...where },
      {
        resource: Webhooks,
        indexes: { [BY_SHARED_SECRET]: (o: KubeObject) => sharedSecretKeys(o as StoredWebhook) },
        ...where,
      },
    ],
    setup: (ctx) => new WebhookReconciler(ctx),
  };
}
