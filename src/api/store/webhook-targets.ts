// What the delivery engine needs from the Webhook resources: where a webhook delivers now (URL,
// shared secret from the Secret its spec references, revision = generation) and which webhooks
// an event may go to. The secret is read by name (the API may not list Secrets) and cached per
// Webhook resourceVersion: every secret change writes a new Secret and a new reference, so a
// cached value is never stale. Secret values are never logged.

import { errorMessage, isNotFound } from "../../kube/api-error.ts";
import type { KubeClient } from "../../kube/kube-client.ts";
import type { KubeObject } from "../../kube/objects.ts";
import { Secrets } from "../../kube/resources.ts";
import type { StoredWebhook } from "../../schema/webhook.ts";
import type { DeliveryTarget, SubscribedWebhook } from "../delivery/index.ts";
import { tenantOf } from "./webhook-resource.ts";

interface WebhookSource {
  readonly namespace: string;
  get(name: string): StoredWebhook | undefined;
  list(): StoredWebhook[];
}

type SecretObject = KubeObject & { data?: Record<string, string> };

/** A webhook as matching sees it; undefined for one no tenant owns (nobody can publish for it). */
export function subscribedWebhookOf(r: StoredWebhook): SubscribedWebhook | undefined {
  const tenant = tenantOf(r);
  const id = r.metadata?.name;
  if (!tenant || !id || r.metadata?.deletionTimestamp || !r.spec?.url) return undefined;
  return {
    id,
    userId: tenant.userId,
    projectId: tenant.projectId,
    events: r.spec.events,
    streamId: r.spec.streamId || undefined,
    disabled: turnedOff(r),
  };
}

/** Delivering=False for Gone on the current generation: the endpoint said 410 until the next update. */
function turnedOff(r: StoredWebhook): boolean {
  const c = r.status?.conditions?.find((x) => x.type === "Delivering");
  return c?.status === "False" && c.reason === "Gone" && c.observedGeneration === r.metadata?.generation;
}

export class WebhookTargets {
  readonly #client: KubeClient;
  readonly #webhooks: WebhookSource;
  readonly #secrets = new Map<string, { resourceVersion: string; value: string }>();

  constructor(client: KubeClient, webhooks: WebhookSource) {
    this.#client = client;
    this.#webhooks = webhooks;
  }

  /** The webhooks of the namespace an event may be delivered to. */
  *subscribed(): Iterable<SubscribedWebhook> {
    for (const r of this.#webhooks.list()) {
      const s = subscribedWebhookOf(r);
      if (s) yield s;
    }
  }

  /** undefined when the webhook does not exist (the engine retries for a while, then drops it). */
  async resolve(id: string): Promise<DeliveryTarget | undefined> {
    const r = this.#webhooks.get(id);
    if (!r?.spec?.url || r.metadata?.deletionTimestamp) {
      this.#secrets.delete(id);
      return undefined;
    }
    const revision = String(r.metadata?.generation ?? r.metadata?.resourceVersion ?? "0");
    return { url: r.spec.url, sharedSecret: await this.#secretOf(id, r), revision };
  }

  // A referenced secret that cannot be read is an error (the attempt is retried shortly), never
  // an unsigned delivery: the receiver expects signatures.
  async #secretOf(id: string, r: StoredWebhook): Promise<string | undefined> {
    const ref = r.spec?.sharedSecretRef;
    if (!ref) return undefined;
    const rv = r.metadata?.resourceVersion ?? "";
    const cached = this.#secrets.get(id);
    if (cached && cached.resourceVersion === rv) return cached.value;
    const where = `Secret ${this.#webhooks.namespace}/${ref.name} key ${ref.key} (webhook ${id})`;
    let secret: SecretObject;
    try {
      secret = await this.#client.get<SecretObject>(Secrets, this.#webhooks.namespace, ref.name);
    } catch (err) {
      if (isNotFound(err)) throw new Error(`${where} does not exist: create it or remove sharedSecretRef`);
      throw new Error(`cannot read ${where}: ${errorMessage(err)}`);
    }
    const encoded = secret.data?.[ref.key];
    if (encoded === undefined) throw new Error(`${where} is missing that key: add it or fix sharedSecretRef`);
    const value = Buffer.from(encoded, "base64").toString("utf8");
    this.#secrets.set(id, { resourceVersion: rv, value });
    return value;
  }
}
