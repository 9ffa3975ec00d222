// Webhook writes against the Kubernetes API, reads from the cache (see webhook-cache.ts).
// - create: the Webhook, then its Secret with an ownerReference to it; if the Secret cannot be
//   created the Webhook is deleted again, so no webhook exists without the secret it was given.
// - update: optimistic concurrency on resourceVersion. Writes to one id in this process are
//   serialised; a conflict with another writer re-reads the object and re-applies the change
//   (a PUT replaces every writable field, so re-applying it is exact), and after several
//   conflicts in a row the client gets a 409 rather than a silently lost write.
// - delete: with a uid precondition, so a same-named newer object is never deleted by mistake.
// - every call to the API server is retried a few times when it pushes back or a stream is reset
//   (kube-retry.ts), so a client sees a 503 only when the cluster stays unavailable.
import { isConflict, isNotFound } from "../../kube/api-error.ts";
import { backoffDelay, sleep } from "../../kube/backoff.ts";
import type { KubeClient } from "../../kube/kube-client.ts";
import { resourcePath } from "../../kube/resources.ts";
import type { Logger } from "../../process/log.ts";
import { Webhooks } from "../../schema/resources.ts";
import type { SecretKeyRef, StoredWebhook, WebhookSpec } from "../../schema/webhook.ts";
import { conflict } from "../errors/http-error.ts";
import { KeyedLock } from "./keyed-lock.ts";
import { translateKubeError } from "./kube-errors.ts";
import { isAlreadyExists, withKubeRetries } from "./kube-retry.ts";
import { createSecret, deleteOurSecret, newSecretRef } from "./shared-secrets.ts";
import type { WebhookCache } from "./webhook-cache.ts";

export interface WebhookChange {
  spec: Omit<WebhookSpec, "sharedSecretRef">;
  labels: Record<string, string>;
  /** undefined: keep the stored secret; "": remove it; otherwise the new value. */
  sharedSecret: string | undefined;
}

/** Decides the change from the current object (undefined = gone); throws an HttpError to refuse. */
export type Decide = (current: StoredWebhook | undefined) => WebhookChange;

interface NewSecret {
  ref: SecretKeyRef;
  ownerUid: string | undefined;
  value: string;
}

export interface RepositoryOptions {
  client: KubeClient;
  cache: WebhookCache;
  fieldManager: string;
  log: Logger;
  maxUpdateAttempts?: number;
}

export class WebhookRepository {
  readonly #client: KubeClient;
  readonly #cache: WebhookCache;
  readonly #fieldManager: string;
  readonly #log: Logger;
  readonly #lock = new KeyedLock();
  readonly #maxAttempts: number;

  constructor(o: RepositoryOptions) {
    this.#client = o.client;
    this.#cache = o.cache;
    this.#fieldManager = o.fieldManager;
    this.#log = o.log;
    this.#maxAttempts = o.maxUpdateAttempts ?? 8;
  }

  get namespace(): string {
    return this.#cache.namespace;
  }

  get(id: string): StoredWebhook | undefined {
    return this.#cache.get(id);
  }

  list(): StoredWebhook[] {
    return this.#cache.list();
  }

  async create(resource: StoredWebhook, sharedSecret: string | undefined): Promise<StoredWebhook> {
    const id = resource.metadata?.name ?? "";
    const ref = sharedSecret ? newSecretRef(id) : undefined;
    const body: StoredWebhook = ref
      ? { ...resource, spec: { ...resource.spec, sharedSecretRef: ref } }
      : resource;
    let created: StoredWebhook;
    try {
      created = await this.#retrying("create webhook", id, async (attempt) => {
        try {
          return await this.#client.create(Webhooks, body, this.#fieldManager);
        } catch (err) {
          // The name is this request's own: an earlier try landed after all.
          if (attempt > 1 && isAlreadyExists(err))
            return this.#client.get<StoredWebhook>(Webhooks, this.namespace, id);
          throw err;
        }
      });
    } catch (err) {
      throw translateKubeError(err);
    }
    if (ref && sharedSecret) {
      try {
        await this.#createSecret(ref, created, sharedSecret);
      } catch (err) {
        await this.#rollBackCreate(created);
        throw translateKubeError(err);
      }
    }
    this.#cache.wrote(created);
    return created;
  }

  /** Creates the Secret, retried; a later try finding it means an earlier one landed (the name is new). */
  #createSecret(ref: SecretKeyRef, owner: StoredWebhook, value: string): Promise<void> {
    return this.#retrying("create secret", owner.metadata?.name ?? "", async (attempt) => {
      try {
        await createSecret(this.#client, ref, owner, value, this.#fieldManager);
      } catch (err) {
        if (!(attempt > 1 && isAlreadyExists(err))) throw err;
      }
    });
  }

  #retrying<T>(what: string, id: string, step: (attempt: number) => Promise<T>): Promise<T> {
    return withKubeRetries(step, {
      onRetry: (why, attempt) => this.#log.info(`${what}: ${why}; trying again`, { webhook: id, attempt }),
    });
  }

  async #rollBackCreate(created: StoredWebhook): Promise<void> {
    const id = created.metadata?.name ?? "";
    try {
      await this.#deleteWebhook(id, created.metadata?.uid);
    } catch (err) {
      // The Webhook stays without its Secret: delivery reports the missing Secret on it.
      this.#log.error("could not roll back a webhook whose secret failed to save", {
        webhook: id,
        error: (err as Error).message,
      });
    }
  }

  async update(id: string, decide: Decide): Promise<StoredWebhook> {
    // A new secret value goes into its own Secret before the serialised part, so concurrent
    // updates only queue for the Webhook write itself.
    const seen = this.#cache.get(id);
    const first = decide(seen);
    let made: NewSecret | undefined;
    try {
      if (first.sharedSecret) made = await this.#newSecret(seen!, first.sharedSecret);
      const { updated, replaced } = await this.#lock.run(id, () => this.#replace(id, decide, made));
      made = undefined; // referenced now
      if (replaced) await this.#dropSecret(replaced, id);
      return updated;
    } catch (err) {
      if (made) await this.#dropSecret(made.ref.name, id);
      throw translateKubeError(err);
    }
  }

  async #newSecret(owner: StoredWebhook, value: string): Promise<NewSecret> {
    const ref = newSecretRef(owner.metadata?.name ?? "");
    await this.#createSecret(ref, owner, value);
    return { ref, ownerUid: owner.metadata?.uid, value };
  }

  /** The serialised part: write the Webhook, re-reading and re-applying on conflicts. */
  async #replace(
    id: string,
    decide: Decide,
    made: NewSecret | undefined,
  ): Promise<{ updated: StoredWebhook; replaced: string | undefined }> {
    let current = this.#cache.get(id);
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      const change = decide(current);
      const live = current!; // decide() throws when there is nothing to update
      if (made && made.ownerUid !== live.metadata?.uid) {
        // Deleted and re-created under the same name meanwhile: the Secret must be owned anew.
        await this.#dropSecret(made.ref.name, id);
        Object.assign(made, await this.#newSecret(live, made.value));
      }
      const oldRef = live.spec?.sharedSecretRef;
      const ref = change.sharedSecret ? made?.ref : change.sharedSecret === "" ? undefined : oldRef;
      const spec: WebhookSpec = ref ? { ...change.spec, sharedSecretRef: ref } : { ...change.spec };
      const next: StoredWebhook = {
        ...live,
        metadata: { ...live.metadata, labels: { ...live.metadata?.labels, ...change.labels } },
        spec,
      };
      try {
        // resourceVersion makes a repeated PUT safe; a conflict is handled below.
        const updated = await this.#retrying("update webhook", id, () =>
          this.#client.replace(Webhooks, next),
        );
        this.#cache.wrote(updated);
        return { updated, replaced: oldRef && oldRef.name !== ref?.name ? oldRef.name : undefined };
      } catch (err) {
        if (isNotFound(err)) decide(undefined); // throws the 404
        if (!isConflict(err)) throw err;
        this.#log.debug("webhook changed while updating it: re-reading and re-applying", {
          webhook: id,
          attempt,
        });
        await sleep(backoffDelay(attempt, { initialMs: 5, maxMs: 200, jitter: 0.5 }));
        current = await this.#fetch(id);
      }
    }
    throw conflict(
      `webhook ${id} kept changing while this update was applied (${this.#maxAttempts} attempts): read it again and retry`,
    );
  }

  /** Deletes the webhook `decide` accepts; returns it as it was. */
  remove(id: string, decide: (current: StoredWebhook | undefined) => void): Promise<StoredWebhook> {
    return this.#lock.run(id, async () => {
      const current = this.#cache.get(id);
      decide(current);
      const live = current!;
      try {
        await this.#deleteWebhook(id, live.metadata?.uid);
      } catch (err) {
        if (isNotFound(err)) decide(undefined);
        throw translateKubeError(err);
      }
      this.#cache.deleted(id, live);
      return live;
    });
  }

  async #deleteWebhook(id: string, uid: string | undefined): Promise<void> {
    await this.#retrying("delete webhook", id, async (attempt) => {
      try {
        await this.#client.request(
          "DELETE",
          resourcePath(Webhooks, { namespace: this.namespace, name: id }),
          {
            body: {
              kind: "DeleteOptions",
              apiVersion: "v1",
              propagationPolicy: "Background",
              preconditions: { uid },
            },
          },
        );
      } catch (err) {
        // Gone on a later try: the earlier one deleted it.
        if (!(attempt > 1 && isNotFound(err))) throw err;
      }
    });
  }

  async #fetch(id: string): Promise<StoredWebhook | undefined> {
    try {
      return await this.#client.get<StoredWebhook>(Webhooks, this.namespace, id);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async #dropSecret(name: string, webhookId: string): Promise<void> {
    try {
      await deleteOurSecret(this.#client, this.namespace, name, webhookId);
    } catch (err) {
      // Harmless: it is owned by the webhook and goes with it.
      this.#log.warn("could not delete a replaced webhook secret", {
        secret: name,
        error: (err as Error).message,
      });
    }
  }
}
