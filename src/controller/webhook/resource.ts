// The Webhook custom resource as this controller reads it: types from the zod schema in
// src/schema (the single source of truth), plus what the cache indexes by.

import type { KubeObject, ResourceType } from "../../kube/index.ts";
import { GROUP, VERSION } from "../../schema/api-group.ts";
import type { WebhookSpec, WebhookStatus } from "../../schema/webhook.ts";

export const Webhooks: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: "webhooks",
  kind: "Webhook",
  namespaced: true,
};

export type { WebhookSpec, WebhookStatus };

export interface Webhook extends KubeObject {
  spec: WebhookSpec;
  status?: WebhookStatus;
}

/** Index of the Webhook cache: `namespace/secretName` of the Secret each Webhook references. */
export const BY_SHARED_SECRET = "sharedSecret";

export function sharedSecretKeys(webhook: Webhook): string[] {
  const ref = webhook.spec?.sharedSecretRef;
  return ref?.name ? [`${webhook.metadata?.namespace}/${ref.name}`] : [];
}
