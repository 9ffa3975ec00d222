// Kubernetes Events (events.k8s.io/v1) that explain what the controller did and what to do next.
// A reconciler that runs every few seconds must not flood etcd: the same object + type + reason +
// message within a window becomes one Event whose `series.count` grows, and each object gets a
// token bucket (client-go's spam filter: burst 25, then one per 5 minutes). Writes are
// asynchronous and never fail a reconcile; a failed write is logged.
import { createHash, randomBytes } from "node:crypto";
import { errorMessage } from "../../kube/api-error.ts";
import type { KubeClient } from "../../kube/kube-client.ts";
import type { KubeObject } from "../../kube/objects.ts";
import { Events } from "../../kube/resources.ts";
import { type Logger, silentLogger } from "../../process/log.ts";
import { validateReason } from "./conditions.ts";
import { flatString } from "./flat-string.ts";

export type EventType = "Normal" | "Warning";

export interface EventSpec {
  type: EventType;
  /** CamelCase, e.g. SecretNotFound. */
  reason: string;
  /** What happened and what to do next (at most 1 kB is kept). */
  message: string;
  /** What the controller did or tried (CamelCase); defaults to "Reconcile". */
  action?: string;
}

export interface EventCorrelatorOptions {
  /** Repeats within this window increment a series instead of creating a new Event. */
  windowMs?: number;
  burst?: number;
  /** Tokens regained per ms per object (default: one per 5 minutes). */
  refillPerMs?: number;
  now?: () => number;
}

/** What to do with one occurrence. */
export type EventDecision =
  | { action: "create"; key: string }
  | { action: "series"; key: string; count: number }
  | { action: "drop"; key: string };

interface SeriesState<T> {
  firstAt: number;
  count: number;
  /** What the caller keeps with the series (the recorder: the Event's write chain). */
  attached: T | undefined;
}

/**
 * A series' key: the first 16 bytes (128 bits) of the SHA-256 of object, type, reason and message,
 * in base64url, 22 characters (the whole message in the key kept a copy of it for 10 minutes:
 * several MB in a burst over 5,000 objects). Object ids hold no NUL and types and reasons are
 * CamelCase, so what is hashed tells the four apart. Two occurrences share a series only if
 * their digests match: for different ones about 2^-128 a pair; even a million series in one
 * window (2^39 pairs) leave odds under 2^-88.
 */
function seriesKey(objectId: string, spec: EventSpec): string {
  return createHash("sha256")
    .update(`${objectId}\u0000${spec.type}\u0000${spec.reason}\u0000${spec.message}`)
    .digest()
    .toString("base64url", 0, 16);
}

/**
 * The pure part: deduplication and per-object rate limiting (tested without a cluster). What the
 * caller attaches to a series lives and expires with it.
 */
export class EventCorrelator<T = unknown> {
  readonly #windowMs: number;
  readonly #burst: number;
  readonly #refill: number;
  readonly #now: () => number;
  readonly #series = new Map<string, SeriesState<T>>();
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  #sweptAt = Number.NEGATIVE_INFINITY;

  constructor(o: EventCorrelatorOptions = {}) {
    this.#windowMs = o.windowMs ?? 10 * 60_000;
    this.#burst = o.burst ?? 25;
    this.#refill = o.refillPerMs ?? 1 / 300_000;
    this.#now = o.now ?? Date.now;
  }

  decide(objectId: string, spec: EventSpec): EventDecision {
    const now = this.#now();
    const key = seriesKey(objectId, spec);
    this.#expire(now);
    const series = this.#series.get(key);
    if (!this.#take(objectId, now)) {
      // Still counted, so the next write that gets through carries the true count.
      if (series) series.count++;
      return { action: "drop", key };
    }
    if (series) {
      series.count++;
      return { action: "series", key, count: series.count };
    }
    this.#series.set(key, { firstAt: now, count: 1, attached: undefined });
    return { action: "create", key };
  }

  has(key: string): boolean {
    return this.#series.has(key);
  }

  /** What was attached to the series `key` (none once it expired or was forgotten). */
  attached(key: string): T | undefined {
    return this.#series.get(key)?.attached;
  }

  /** Keeps `value` with the series `key` until it expires (nothing if it is gone). */
  attach(key: string, value: T): void {
    const series = this.#series.get(key);
    if (series) series.attached = value;
  }

  /** Series and rate-limit buckets held (diagnostics and tests). */
  get sizes(): { series: number; buckets: number } {
    return { series: this.#series.size, buckets: this.#buckets.size };
  }

  /** The create failed: the next occurrence should try to create again. */
  forget(key: string): void {
    this.#series.delete(key);
  }

  #take(objectId: string, now: number): boolean {
    const b = this.#buckets.get(objectId) ?? { tokens: this.#burst, at: now };
    b.tokens = Math.min(this.#burst, b.tokens + (now - b.at) * this.#refill);
    b.at = now;
    this.#buckets.set(objectId, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  #expire(now: number): void {
    // A sweep walks every series: once a second is enough, and keeps a burst of events linear.
    if (now - this.#sweptAt < 1000) return;
    this.#sweptAt = now;
    for (const [k, s] of this.#series) if (now - s.firstAt > this.#windowMs) this.#series.delete(k);
    for (const [k, b] of this.#buckets) {
      if (b.tokens + (now - b.at) * this.#refill >= this.#burst) this.#buckets.delete(k);
    }
  }
}

export interface EventRecorderOptions extends EventCorrelatorOptions {
  /** events.k8s.io reportingController, e.g. livepeer.org/livepeer-operator. */
  controller: string;
  /** This replica (pod name or identity). */
  instance: string;
  log?: Logger;
}

export interface Recorder {
  event(regarding: KubeObject, spec: EventSpec): void;
}

const MAX_NOTE = 1024;

/** MicroTime: the API server wants exactly six fractional digits. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export class EventRecorder implements Recorder {
  readonly #client: KubeClient;
  readonly #o: EventRecorderOptions;
  /** Each series carries the name of its Event, as the write chain that keeps its updates in order. */
  readonly #correlator: EventCorrelator<Promise<string | undefined>>;
  readonly #log: Logger;
  readonly #pending = new Set<Promise<unknown>>();

  constructor(client: KubeClient, o: EventRecorderOptions) {
    this.#client = client;
    this.#o = o;
    this.#correlator = new EventCorrelator(o);
    this.#log = (o.log ?? silentLogger).child("events");
  }

  event(regarding: KubeObject, spec: EventSpec): void {
    validateReason(spec.reason);
    if (spec.action) validateReason(spec.action);
    const m = regarding.metadata ?? {};
    const decision = this.#correlator.decide(m.uid ?? `${m.namespace}/${m.name}`, spec);
    if (decision.action === "drop") return;
    const previous = this.#correlator.attached(decision.key);
    const write =
      decision.action === "create" || !previous
        ? this.#create(regarding, spec, decision.key)
        : previous.then((name) => (name ? this.#bump(m.namespace, name, decision.count) : undefined));
    this.#correlator.attach(decision.key, write);
    this.#track(write);
  }

  /** Series and rate-limit buckets held (diagnostics and tests). */
  get sizes(): { series: number; buckets: number } {
    return this.#correlator.sizes;
  }

  /** Waits for Event writes in flight (used on shutdown and in tests). */
  async flush(): Promise<void> {
    while (this.#pending.size) await Promise.allSettled([...this.#pending]);
  }

  #track(p: Promise<unknown>): void {
    this.#pending.add(p);
    void p.finally(() => this.#pending.delete(p));
  }

  async #create(regarding: KubeObject, spec: EventSpec, key: string): Promise<string | undefined> {
    const m = regarding.metadata ?? {};
    const namespace = m.namespace || "default";
    const now = new Date();
    // Flat: the series keeps the name for its window.
    const name = flatString(`${m.name}.${now.getTime().toString(16)}${randomBytes(2).toString("hex")}`);
    try {
      await this.#client.create(Events, {
        metadata: { name, namespace },
        eventTime: microTime(now),
        reportingController: this.#o.controller,
        reportingInstance: this.#o.instance.slice(0, 128),
        action: spec.action ?? "Reconcile",
        reason: spec.reason,
        note: spec.message.slice(0, MAX_NOTE),
        type: spec.type,
        regarding: {
          apiVersion: regarding.apiVersion,
          kind: regarding.kind,
          name: m.name,
          namespace: m.namespace,
          uid: m.uid,
          resourceVersion: m.resourceVersion,
        },
      });
      return name;
    } catch (err) {
      this.#correlator.forget(key);
      this.#log.warn("could not record an Event", {
        object: `${namespace}/${m.name}`,
        reason: spec.reason,
        error: errorMessage(err),
      });
      return undefined;
    }
  }

  async #bump(namespace: string | undefined, name: string, count: number): Promise<string | undefined> {
    try {
      await this.#client.mergePatch(Events, namespace || "default", name, {
        series: { count, lastObservedTime: microTime(new Date()) },
      });
      return name;
    } catch (err) {
      this.#log.warn("could not update an Event series", { event: name, count, error: errorMessage(err) });
      return name;
    }
  }
}
