// An informer: list, then watch from the list's resourceVersion, keeping a cache of what
// reconcilers need (managedFields dropped, optional transform) and telling handlers what changed.
//
// Written on the runtime's own list/watch rather than client-node's ListWatch because ListWatch
// stops for good on any error other than 410/timeout (the operator would have to notice and call
// start() again), stores objects untransformed, has no synced/health signal, and reports watch
// errors without the server's message. Here one loop per namespace never exits until stop():
// - 410 Gone (at connect, or as a watch ERROR event): relist at once, diff against the cache,
//   and emit add/update/delete for what changed meanwhile, so no update is missed;
// - a server-side watch timeout or a quiet connection: resume from the last resourceVersion;
// - any other error (403, 5xx, connection refused): retry with capped, jittered backoff,
//   resuming the watch from the last resourceVersion (relisting only if that is gone).

import { type Logger, silentLogger } from "../process/log.ts";
import { errorMessage, isGone, KubeApiError } from "./api-error.ts";
import { type BackoffOptions, backoffDelay, sleep } from "./backoff.ts";
import type { KubeClient, StatusObject } from "./kube-client.ts";
import { type KubeObject, keyOf, type ObjectKey } from "./objects.ts";
import { apiVersionOf, type ResourceType, resourceName } from "./resources.ts";
import { Store } from "./store.ts";
import { type StringPool, sharedStrings } from "./string-pool.ts";
import { sharedValues, shareParts, type ValuePool } from "./value-pool.ts";

/**
 * Where a change came from: the watch (or a relist), or this process's own write cached as the
 * API server answered it (`Informer.applyWritten`), which its watch event will then not repeat.
 */
export type ChangeOrigin = "watch" | "written";

export interface InformerHandlers<T extends KubeObject> {
  onAdd?(obj: T, origin?: ChangeOrigin): void;
  onUpdate?(old: T, obj: T, origin?: ChangeOrigin): void;
  onDelete?(obj: T): void;
}

export interface InformerMetrics {
  synced(resource: string, namespace: string, synced: boolean): void;
  restarted(resource: string, reason: "gone" | "error" | "timeout"): void;
}

export interface InformerOptions<T extends KubeObject> {
  resource: ResourceType;
  /** Namespaces to watch; absent or empty = all namespaces (one cluster-wide watch). */
  namespaces?: string[] | undefined;
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  /** Applied to every object before it is cached (after managedFields are dropped). */
  transform?: ((obj: T) => T) | undefined;
  /** Where cached objects' repeated strings are kept once (default: the process's shared pool). */
  strings?: StringPool;
  /** Where cached objects' repeated labels, owners, specs and conditions are kept once, frozen. */
  values?: ValuePool;
  backoff?: BackoffOptions;
  /** The server closes each watch after a random 5-10 min (like client-go), spreading reconnects. */
  watchTimeoutSeconds?: () => number;
  pageSize?: number;
  /** Failing continuously for this long marks the informer dead (/healthz fails). */
  deadAfterMs?: number;
  log?: Logger;
  metrics?: InformerMetrics;
}

export interface InformerHealth {
  resource: string;
  synced: boolean;
  /** A watch is open for every namespace. */
  watching: boolean;
  dead: boolean;
  lastError?: string;
  failingForMs: number;
  relists: number;
  restarts: number;
}

/** Drops what no reconciler reads and what makes caches large: managedFields. */
export function dropManagedFields<T extends KubeObject>(obj: T): T {
  if (!obj.metadata?.managedFields) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

class GoneError extends Error {}

/** How long isOwnWrite remembers a write (its watch event comes within milliseconds). */
const WRITTEN_MEMORY_MS = 60_000;

/** An etcd-backed API server's resourceVersion as a number; undefined for any other form. */
function numericVersion(v: string | undefined): bigint | undefined {
  return v && /^\d{1,30}$/.test(v) ? BigInt(v) : undefined;
}

export class Informer<T extends KubeObject = KubeObject> {
  readonly store = new Store<T>();
  readonly resource: ResourceType;
  readonly #client: KubeClient;
  readonly #opts: InformerOptions<T>;
  readonly #handlers: InformerHandlers<T>[] = [];
  readonly #log: Logger;
  readonly #name: string;
  readonly #reflectors: Reflector<T>[] = [];
  /** What this process wrote lately: key -> resourceVersion, in time order (isOwnWrite). */
  readonly #written = new Map<ObjectKey, { version: string; at: number }>();
  #abort = new AbortController();
  #runs: Promise<void>[] = [];
  #started = false;

  constructor(client: KubeClient, opts: InformerOptions<T>) {
    this.#client = client;
    this.#opts = opts;
    this.resource = opts.resource;
    this.#name = resourceName(opts.resource);
    this.#log = (opts.log ?? silentLogger).child(`informer ${this.#name}`);
    const namespaces = opts.resource.namespaced && opts.namespaces?.length ? opts.namespaces : [undefined];
    for (const ns of namespaces) this.#reflectors.push(new Reflector(this, ns));
  }

  get name(): string {
    return this.#name;
  }

  /** Handlers added after start() first receive an add for every cached object. */
  addHandlers(h: InformerHandlers<T>): void {
    this.#handlers.push(h);
    if (this.#started) for (const obj of this.store.list()) this.#call(() => h.onAdd?.(obj));
  }

  /**
   * Starts listing and watching. A stopped informer resumes its watches from the last
   * resourceVersion it saw (relisting if the API server no longer has it); `resumeFrom` overrides
   * that version (tests force a 410 with one older than the API server's watch cache).
   */
  start(opts: { resumeFrom?: string } = {}): void {
    if (this.#started) return;
    this.#started = true;
    this.#abort = new AbortController();
    this.#runs = this.#reflectors.map((r) => r.run(this.#abort.signal, opts.resumeFrom));
  }

  /** Closes the watches and waits for the loops to end. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.all(this.#runs);
    this.#started = false;
  }

  hasSynced(): boolean {
    return this.#reflectors.every((r) => r.synced);
  }

  async waitForSync(signal?: AbortSignal): Promise<boolean> {
    while (!this.hasSynced()) {
      if (signal?.aborted) return false;
      await sleep(50, signal);
    }
    return true;
  }

  health(now = Date.now()): InformerHealth {
    const failingSince = Math.min(...this.#reflectors.map((r) => r.failingSince ?? now));
    const failingForMs = now - failingSince;
    const lastError = this.#reflectors.map((r) => r.lastError).find((e) => e !== undefined);
    return {
      resource: this.#name,
      synced: this.hasSynced(),
      watching: this.#reflectors.every((r) => r.watching),
      dead:
        this.#reflectors.some((r) => r.exited && !this.#abort.signal.aborted) ||
        failingForMs > (this.#opts.deadAfterMs ?? 5 * 60_000),
      failingForMs,
      relists: this.#reflectors.reduce((n, r) => n + r.relists, 0),
      restarts: this.#reflectors.reduce((n, r) => n + r.restarts, 0),
      ...(lastError ? { lastError } : {}),
    };
  }

  // ---- used by the reflectors ----

  get client(): KubeClient {
    return this.#client;
  }
  get options(): InformerOptions<T> {
    return this.#opts;
  }
  get log(): Logger {
    return this.#log;
  }

  /**
   * What is cached of an object: managedFields dropped, transformed, its strings pooled, its
   * repeated parts shared (frozen: a cached object is read, never changed in place).
   */
  prepare(obj: T): T {
    const slim = dropManagedFields(obj);
    const facts = (this.#opts.strings ?? sharedStrings).internAll(
      this.#opts.transform ? this.#opts.transform(slim) : slim,
    );
    return shareParts(facts, this.#opts.values ?? sharedValues);
  }

  applyUpsert(obj: T): void {
    const old = this.store.upsert(obj);
    if (!old) this.#emit((h) => h.onAdd?.(obj));
    else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
      this.#emit((h) => h.onUpdate?.(old, obj));
    }
  }

  /**
   * Caches what this process just wrote, as the API server answered it (managedFields dropped,
   * transformed), so the rest of the reconcile that wrote it reads its own write, and the watch
   * event that follows (the same resourceVersion) is no news to anyone: a controller is not woken
   * by the echo of its own write. Handlers hear the change now, marked `written`.
   * Cached only when certainly not older than what the watch brought: newer than the cached
   * version, or, for an object not cached, newer than the last event the watch delivered (one
   * the watch already passed was deleted since). That needs the API server's resourceVersions to
   * be numbers, as etcd's are; any other version, a field selector, a label selector other than
   * `key=value` terms, or an object outside the informer's namespaces or selector is left to the
   * watch. Returns whether it was cached.
   */
  applyWritten(written: T): boolean {
    const obj = this.prepare(written);
    if (!this.#admits(obj)) return false;
    this.#rememberWritten(obj);
    const version = numericVersion(obj.metadata?.resourceVersion);
    if (version === undefined) return false;
    const cached = this.store.get(keyOf(obj));
    const floor = cached
      ? numericVersion(cached.metadata?.resourceVersion)
      : numericVersion(this.#reflectorOf(obj)?.syncedVersion);
    if (floor === undefined || version <= floor) return false;
    const old = this.store.upsert(obj);
    if (!old) this.#emit((h) => h.onAdd?.(obj, "written"));
    else this.#emit((h) => h.onUpdate?.(old, obj, "written"));
    return true;
  }

  /**
   * Whether `obj` (a version the watch brought) is one this process wrote: its watch event can
   * come before the API server's answer is read, and is then told as any other; a handler that
   * waits a moment (a coalescing window) can ask this afterwards. Remembered for a minute.
   */
  isOwnWrite(obj: T): boolean {
    const v = obj.metadata?.resourceVersion;
    return v !== undefined && this.#written.get(keyOf(obj))?.version === v;
  }

  #rememberWritten(obj: T): void {
    const now = Date.now();
    for (const [key, w] of this.#written) {
      if (now - w.at < WRITTEN_MEMORY_MS) break;
      this.#written.delete(key);
    }
    const key = keyOf(obj);
    this.#written.delete(key); // re-inserted last: the map stays in time order
    this.#written.set(key, { version: obj.metadata?.resourceVersion ?? "", at: now });
  }

  /** Whether the watch would deliver `obj` at all (namespaces, selectors). */
  #admits(obj: T): boolean {
    const { namespaces, labelSelector, fieldSelector } = this.#opts;
    if (fieldSelector) return false;
    if (
      this.resource.namespaced &&
      namespaces?.length &&
      !namespaces.includes(obj.metadata?.namespace ?? "")
    ) {
      return false;
    }
    if (!labelSelector) return true;
    const labels = obj.metadata?.labels ?? {};
    return labelSelector.split(",").every((term) => {
      const m = /^([\w./-]+)==?([\w.-]*)$/.exec(term.trim());
      return m !== null && labels[m[1]!] === m[2];
    });
  }

  #reflectorOf(obj: T): Reflector<T> | undefined {
    return this.#reflectors.find((r) => r.namespace === undefined || r.namespace === obj.metadata?.namespace);
  }

  applyDelete(obj: T): void {
    const old = this.store.remove(keyOf(obj));
    this.#emit((h) => h.onDelete?.(old ?? obj));
  }

  /** Replaces one namespace's slice of the cache with a fresh list, emitting the differences. */
  applyList(namespace: string | undefined, items: T[]): void {
    const seen = new Set(items.map((o) => keyOf(o)));
    for (const old of this.store.list(namespace)) {
      if (!seen.has(keyOf(old))) this.applyDelete(old);
    }
    for (const obj of items) this.applyUpsert(obj);
  }

  #emit(fn: (h: InformerHandlers<T>) => void): void {
    for (const h of this.#handlers) this.#call(() => fn(h));
  }

  #call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      // A handler bug must not stop the informer: log it and keep the cache current.
      this.#log.error("event handler threw", { error: errorMessage(err) });
    }
  }
}

/** One list/watch loop (one namespace, or the whole cluster). */
class Reflector<T extends KubeObject> {
  readonly #informer: Informer<T>;
  readonly #namespace: string | undefined;
  synced = false;
  watching = false;
  exited = false;
  failingSince: number | undefined;
  lastError: string | undefined;
  relists = 0;
  restarts = 0;
  lastResourceVersion = "";

  constructor(informer: Informer<T>, namespace: string | undefined) {
    this.#informer = informer;
    this.#namespace = namespace;
  }

  get namespace(): string | undefined {
    return this.#namespace;
  }

  /** The last resourceVersion the watch delivered; undefined until the cache synced. */
  get syncedVersion(): string | undefined {
    return this.synced ? this.lastResourceVersion : undefined;
  }

  get #where(): string {
    return this.#namespace ? `namespace ${this.#namespace}` : "all namespaces";
  }

  async run(stop: AbortSignal, resumeFrom?: string): Promise<void> {
    const { log, options } = this.#informer;
    const backoff = options.backoff ?? { initialMs: 500, maxMs: 30_000 };
    let resourceVersion = this.synced ? (resumeFrom ?? this.lastResourceVersion) : "";
    let failures = 0;
    this.exited = false;
    try {
      while (!stop.aborted) {
        try {
          if (!resourceVersion) {
            resourceVersion = await this.#list(stop);
            this.relists++;
            this.#ok();
            if (!this.synced) {
              this.synced = true;
              options.metrics?.synced(this.#informer.name, this.#namespace ?? "", true);
              log.info(`synced ${this.#where}`, {
                objects: this.#informer.store.list(this.#namespace).length,
                resourceVersion,
              });
            }
          }
          this.lastResourceVersion = resourceVersion;
          const watchStarted = Date.now();
          const ended = await this.#watch(resourceVersion, stop, (rv, event) => {
            this.#ok();
            this.lastResourceVersion = rv;
            // Only a watch that delivered something resets the backoff: one that is accepted
            // and then fails at once must not reconnect in a tight loop.
            if (event) failures = 0;
          });
          resourceVersion = ended.resourceVersion;
          failures = 0;
          if (ended.timedOut) options.metrics?.restarted(this.#informer.name, "timeout");
          // A server (or proxy) that closes watches at once must not get a reconnect storm.
          if (Date.now() - watchStarted < 1000) await sleep(1000, stop);
        } catch (err) {
          this.watching = false;
          if (stop.aborted) break;
          if (err instanceof GoneError || isGone(err)) {
            log.info(
              `resourceVersion ${resourceVersion} is too old for the API server (410 Gone): listing ${this.#where} again`,
            );
            options.metrics?.restarted(this.#informer.name, "gone");
            resourceVersion = "";
            continue;
          }
          failures++;
          this.restarts++;
          this.lastError = errorMessage(err);
          this.failingSince ??= Date.now();
          options.metrics?.restarted(this.#informer.name, "error");
          const delay = backoffDelay(failures, backoff);
          log.warn(`list/watch of ${this.#where} failed; retrying in ${delay} ms`, {
            attempt: failures,
            error: this.lastError,
            hint: nextStep(err, this.#informer.name),
          });
          await sleep(delay, stop);
        }
      }
    } catch (err) {
      // Only a bug gets here; /healthz reports the informer dead so the pod is restarted.
      log.error("informer loop crashed", { error: errorMessage(err) });
    } finally {
      this.exited = true;
      this.watching = false;
    }
  }

  #ok(): void {
    this.failingSince = undefined;
    this.lastError = undefined;
  }

  async #list(stop: AbortSignal): Promise<string> {
    const { client, options, resource } = this.#informer;
    const items: T[] = [];
    let continueToken: string | undefined;
    let limit = options.pageSize ?? 500;
    for (;;) {
      let page: Awaited<ReturnType<typeof client.list<T>>>;
      try {
        page = await client.list<T>(resource, {
          namespace: this.#namespace,
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          limit,
          continue: continueToken,
        });
      } catch (err) {
        if (!(continueToken && isGone(err))) throw err;
        // The continue token expired (etcd compacted between pages): list everything at once.
        this.#informer.log.info(`paged list of ${this.#where} expired mid-way: listing without pages`);
        items.length = 0;
        continueToken = undefined;
        limit = 0;
        continue;
      }
      for (const item of page.items) {
        // List items carry no apiVersion/kind; handlers and owner mapping want them.
        items.push(
          this.#informer.prepare({ ...item, apiVersion: apiVersionOf(resource), kind: resource.kind }),
        );
      }
      // A partial list must never replace the cache (it would look like deletions).
      if (stop.aborted) throw new Error("informer stopped while listing");
      continueToken = page.metadata?.continue || undefined;
      if (!continueToken) {
        this.#informer.applyList(this.#namespace, items);
        return page.metadata?.resourceVersion ?? "";
      }
    }
  }

  async #watch(
    from: string,
    stop: AbortSignal,
    /** Called when the watch is open, then with each newer resourceVersion. */
    progressed: (resourceVersion: string, event: boolean) => void,
  ): Promise<{ resourceVersion: string; timedOut: boolean }> {
    const { client, options, resource, log } = this.#informer;
    const timeoutSeconds = options.watchTimeoutSeconds?.() ?? Math.round(300 * (1 + Math.random()));
    // A connection that went silent (no events, no bookmarks, no server close) is abandoned after
    // the server's own timeout plus a margin, then resumed.
    const inactivityMs = (timeoutSeconds + 60) * 1000;
    const quiet = new AbortController();
    let timer = setTimeout(() => quiet.abort(), inactivityMs);
    const touch = () => {
      clearTimeout(timer);
      timer = setTimeout(() => quiet.abort(), inactivityMs);
    };
    let resourceVersion = from;
    try {
      const events = await client.openWatch<T>(resource, {
        namespace: this.#namespace,
        resourceVersion: from,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        timeoutSeconds,
        signal: AbortSignal.any([stop, quiet.signal]),
      });
      this.watching = true;
      progressed(from, false);
      log.debug(`watching ${this.#where}`, { resourceVersion: from });
      for await (const event of events) {
        touch();
        if (event.type === "ERROR") {
          const status = event.object as StatusObject;
          if (status.code === 410) throw new GoneError(status.message ?? "resourceVersion too old");
          throw new KubeApiError(
            status.code ?? 500,
            status.reason ?? "WatchError",
            status.message ?? "",
            "WATCH",
            resource.plural,
          );
        }
        const obj = event.object;
        resourceVersion = obj.metadata?.resourceVersion ?? resourceVersion;
        progressed(resourceVersion, true);
        if (event.type === "BOOKMARK") continue;
        const prepared = this.#informer.prepare({
          ...obj,
          apiVersion: apiVersionOf(resource),
          kind: resource.kind,
        });
        if (event.type === "DELETED") this.#informer.applyDelete(prepared);
        else this.#informer.applyUpsert(prepared);
      }
      return { resourceVersion, timedOut: true };
    } catch (err) {
      if (quiet.signal.aborted && !stop.aborted) {
        log.info(`watch of ${this.#where} was quiet for ${inactivityMs / 1000} s: reconnecting`);
        return { resourceVersion, timedOut: true };
      }
      throw err;
    } finally {
      clearTimeout(timer);
      quiet.abort(); // releases the connection if we left the loop early (ERROR event)
      this.watching = false;
    }
  }
}

function nextStep(err: unknown, resource: string): string | undefined {
  if (!(err instanceof KubeApiError)) return undefined;
  if (err.status === 404)
    return `the API server does not serve ${resource}: install its CRD (deploy/crds) or check the namespace exists`;
  if (err.status === 403 || err.status === 401) {
    return `RBAC: the operator's identity needs list and watch on ${resource} (see the chart's ClusterRole)`;
  }
  return undefined;
}
