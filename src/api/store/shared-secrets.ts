// The write-only `sharedSecret` lives in a Secret owned by its Webhook (garbage-collected with
// it), referenced from spec.sharedSecretRef. Every write of a new secret value creates a new
// Secret and switches the reference in the same Webhook update, so the Webhook and its secret
// change together (a concurrent reader never pairs one write's URL with another's secret); the
// replaced Secret is deleted afterwards, but only if this API created it for this Webhook.
import { randomBytes } from "node:crypto";
import type { KubeClient } from "../../kube/kube-client.ts";
import { controllerReference, type KubeObject } from "../../kube/objects.ts";
import { resourcePath, Secrets } from "../../kube/resources.ts";
import type { SecretKeyRef, StoredWebhook } from "../../schema/webhook.ts";
import { labelValue, MANAGED_BY_API, MANAGED_BY_LABEL } from "./webhook-resource.ts";

export const SECRET_KEY = "sharedSecret";
export const WEBHOOK_LABEL = "livepeer.org/webhook";

/** A fresh Secret name for `webhookName` (names must be unique per write, see above). */
export function newSecretRef(webhookName: string): SecretKeyRef {
  // Cut long names where the result stays a valid DNS subdomain (no trailing '.' or '-').
  const base = webhookName.slice(0, 230).replace(/[.-]+$/, "");
  return { name: `${base}-secret-${randomBytes(4).toString("hex")}`, key: SECRET_KEY };
}

export function secretObject(ref: SecretKeyRef, owner: StoredWebhook, value: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: ref.name,
      namespace: owner.metadata?.namespace,
      labels: {
        [MANAGED_BY_LABEL]: MANAGED_BY_API,
        [WEBHOOK_LABEL]: labelValue(owner.metadata?.name ?? ""),
      },
      ownerReferences: [controllerReference(owner)],
    },
    type: "Opaque",
    data: { [ref.key]: Buffer.from(value, "utf8").toString("base64") },
  };
}

export async function createSecret(
  client: KubeClient,
  ref: SecretKeyRef,
  owner: StoredWebhook,
  value: string,
  fieldManager: string,
): Promise<void> {
  await client.create(Secrets, secretObject(ref, owner, value), fieldManager);
}

/**
 * Deletes the Secret `name` if (and only if) this API created it for `webhookName`: a Secret a
 * user referenced from a hand-written Webhook is theirs. One call: a delete-collection narrowed
 * to that name by a field selector and to our Secrets by labels.
 */
export async function deleteOurSecret(
  client: KubeClient,
  namespace: string,
  name: string,
  webhookName: string,
): Promise<void> {
  await client.request("DELETE", resourcePath(Secrets, { namespace }), {
    query: {
      labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY_API},${WEBHOOK_LABEL}=${labelValue(webhookName)}`,
      fieldSelector: `metadata.name=${name}`,
    },
  });
}
