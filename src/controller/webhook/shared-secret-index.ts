// The Webhook cache's index by the Secret each Webhook references, so a Secret's change wakes
// the Webhooks that read it.
import type { StoredWebhook } from "../../schema/webhook.ts";

/** Index of the Webhook cache: `namespace/secretName` of the Secret each Webhook references. */
export const BY_SHARED_SECRET = "sharedSecret";

export function sharedSecretKeys(webhook: StoredWebhook): string[] {
  const ref = webhook.spec?.sharedSecretRef;
  return ref?.name ? [`${webhook.metadata?.namespace}/${ref.name}`] : [];
}
