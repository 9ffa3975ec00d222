// Reads come from an informer's cache of the namespace's Webhooks (no API server round trip per
// GET). Read-your-writes: the result of every write this process makes is laid over the cache,
// keyed by resourceVersion, until the watch delivers that version (or a newer one), so a GET
// right after a write sees it even when the watch lags.
import { Informer, type InformerHealth } from "../../kube/informer.ts";
import type { KubeClient } from "../../kube/kube-client.ts";
import { keyFor } from "../../kube/objects.ts";
import type { Logger } from "../../process/log.ts";
import { Webhooks } from "../../schema/resources.ts";
import type { StoredWebhook } from "../../schema/webhook.ts";

interface Overlay {
  /** undefined: deleted by us (a tombstone). */
  obj: StoredWebhook | undefined;
  version: bigint | undefined;
  at: number;
}

/** resourceVersions are etcd revisions in practice; anything else is treated as unordered. */
function versionOf(obj: StoredWebhook | undefined): bigint | undefined {
  const rv = obj?.metadata?.resourceVersion;
  return rv && /^\d{1,30}$/.test(rv) ? BigInt(rv) : undefined;
}

// Beyond this, an overlay entry the watch never confirmed is dropped (the cache then rules).
const OVERLAY_TTL_MS = 60_000;

export class WebhookCache {
  readonly namespace: string;
  readonly #informer: Informer<StoredWebhook>;
  readonly #overlay = new Map<string, Overlay>();
  /** Deletes the watch reported recently, so a write answered after them is not resurrected. */
  readonly #recentDeletes = new Map<string, { version: bigint | undefined; at: number }>();
  readonly #deleteListeners: ((id: string) => void)[] = [];

  constructor(client: KubeClient, namespace: string, log: Logger) {
    this.namespace = namespace;
    this.#informer = new Informer<StoredWebhook>(client, {
      resource: Webhooks,
      namespaces: [namespace],
      log,
    });
    const settle = (obj: StoredWebhook, deleted: boolean) => {
      const name = obj.metadata?.name;
      if (name) this.#settle(name, versionOf(obj), deleted);
    };
    this.#informer.addHandlers({
      onAdd: (o) => settle(o, false),
      onUpdate: (_old, o) => settle(o, false),
      onDelete: (o) => {
        settle(o, true);
        const name = o.metadata?.name;
        if (name) for (const l of this.#deleteListeners) l(name);
      },
    });
  }

  /** `listener` runs for every Webhook the watch reports deleted (by the API, kubectl or GC). */
  onDeleted(listener: (id: string) => void): void {
    this.#deleteListeners.push(listener);
  }

  start(): void {
    this.#informer.start();
  }

  stop(): Promise<void> {
    return this.#informer.stop();
  }

  synced(): boolean {
    return this.#informer.hasSynced();
  }

  waitForSync(signal?: AbortSignal): Promise<boolean> {
    return this.#informer.waitForSync(signal);
  }

  health(): InformerHealth {
    return this.#informer.health();
  }

  get(name: string): StoredWebhook | undefined {
    const cached = this.#informer.store.get(keyFor(this.namespace, name));
    const o = this.#overlay.get(name);
    if (!o) return cached;
    if (this.#cacheCaughtUp(cached, o)) {
      this.#overlay.delete(name);
      return cached;
    }
    return o.obj;
  }

  list(): StoredWebhook[] {
    const out: StoredWebhook[] = [];
    for (const cached of this.#informer.store.list(this.namespace)) {
      const name = cached.metadata?.name ?? "";
      if (!this.#overlay.has(name)) out.push(cached);
    }
    for (const name of [...this.#overlay.keys()]) {
      const obj = this.get(name);
      if (obj) out.push(obj);
    }
    return out;
  }

  /** Call with what the API server returned for a create or update. */
  wrote(obj: StoredWebhook): void {
    const name = obj.metadata?.name;
    if (!name) return;
    const current = this.#overlay.get(name);
    const version = versionOf(obj);
    if (this.#watchSaw(name, version)) return;
    // Two writes finishing out of order: keep the newer.
    if (current?.version !== undefined && version !== undefined && current.version > version) return;
    this.#overlay.set(name, { obj, version, at: Date.now() });
  }

  /** Call after a delete succeeded (`last` = the object as it was). */
  deleted(name: string, last: StoredWebhook | undefined): void {
    this.#overlay.set(name, { obj: undefined, version: versionOf(last), at: Date.now() });
  }

  /** Whether the watch already delivered `version` of `name` (or its deletion after it). */
  #watchSaw(name: string, version: bigint | undefined): boolean {
    if (version === undefined) return false;
    const cached = versionOf(this.#informer.store.get(keyFor(this.namespace, name)));
    if (cached !== undefined && cached >= version) return true;
    const gone = this.#recentDeletes.get(name);
    return gone?.version !== undefined && gone.version >= version;
  }

  #cacheCaughtUp(cached: StoredWebhook | undefined, o: Overlay): boolean {
    if (Date.now() - o.at > OVERLAY_TTL_MS) return true;
    if (o.obj === undefined) {
      // A tombstone holds until the watch reports the delete (the object leaves the cache) or
      // the name is reused by a newer object.
      const v = versionOf(cached);
      return cached === undefined || (v !== undefined && o.version !== undefined && v > o.version);
    }
    const v = versionOf(cached);
    return cached !== undefined && v !== undefined && o.version !== undefined && v >= o.version;
  }

  #settle(name: string, version: bigint | undefined, deleted: boolean): void {
    if (deleted) this.#rememberDelete(name, version);
    const o = this.#overlay.get(name);
    if (!o) return;
    if (deleted) {
      // Our tombstone is confirmed, or someone deleted what we had written.
      if (o.obj === undefined || (version !== undefined && o.version !== undefined && version >= o.version)) {
        this.#overlay.delete(name);
      }
      return;
    }
    if (
      version !== undefined &&
      o.version !== undefined &&
      (o.obj ? version >= o.version : version > o.version)
    ) {
      this.#overlay.delete(name);
    }
  }

  #rememberDelete(name: string, version: bigint | undefined): void {
    const now = Date.now();
    this.#recentDeletes.set(name, { version, at: now });
    if (this.#recentDeletes.size > 1000) {
      for (const [k, d] of this.#recentDeletes)
        if (now - d.at > OVERLAY_TTL_MS) this.#recentDeletes.delete(k);
    }
  }
}
