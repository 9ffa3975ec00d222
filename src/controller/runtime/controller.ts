// One controller: maps informer events to keys of its primary resource, and runs workers that
// take keys from its work queue and call the reconciler. Handlers are attached once; the queue
// and workers live only while this replica leads (a new queue per leadership term).

import { errorMessage } from "../../kube/api-error.ts";
import { backoffDelay, sleep } from "../../kube/backoff.ts";
import type { Informer } from "../../kube/informer.ts";
import {
  changedBeyondStatus,
  changedBeyondVersion,
  controllerOf,
  type KubeObject,
  keyFor,
  keyOf,
  type ObjectKey,
} from "../../kube/objects.ts";
import { isOfType, resourceName } from "../../kube/resources.ts";
import type { Logger } from "../../process/log.ts";
import type { RuntimeMetrics } from "./metrics.ts";
import type { RateLimiterOptions } from "./rate-limiter.ts";
import { defaultControllerRateLimiter } from "./rate-limiter.ts";
import type { CacheReader, ControllerDefinition, ReconcileResult, Reconciler } from "./reconciler.ts";
import { WorkQueue } from "./work-queue.ts";

export interface ControllerOptions {
  workers: number;
  resyncPeriodMs: number;
  rateLimiter?: RateLimiterOptions;
  /** How long stop() waits for reconciles in flight before giving up on them. */
  stopTimeoutMs: number;
  /**
   * Events of children and watched objects wake their key after this window, one reconcile for
   * all the events of it (default 1 s); the primary's own changes wake it at once.
   */
  coalesceMs?: number;
}

/** A pod's life from created to Running, and its StatefulSet's status following, mostly fit in this. */
export const DEFAULT_COALESCE_MS = 1_000;

export class Controller {
  readonly name: string;
  readonly #def: ControllerDefinition;
  readonly #reconciler: Reconciler;
  readonly #cache: CacheReader;
  readonly #metrics: RuntimeMetrics;
  readonly #log: Logger;
  readonly #o: ControllerOptions;
  #queue: WorkQueue | undefined;
  #abort = new AbortController();
  #workers: Promise<void>[] = [];
  #resync: NodeJS.Timeout | undefined;

  constructor(
    def: ControllerDefinition,
    reconciler: Reconciler,
    cache: CacheReader,
    metrics: RuntimeMetrics,
    log: Logger,
    o: ControllerOptions,
  ) {
    this.name = def.name;
    this.#def = def;
    this.#reconciler = reconciler;
    this.#cache = cache;
    this.#metrics = metrics;
    this.#log = log;
    this.#o = o;
    metrics.controller(def.name, o.workers);
  }

  get running(): boolean {
    return this.#queue !== undefined && !this.#queue.shuttingDown;
  }

  /** The queue of the current term (tests and diagnostics). */
  get queue(): WorkQueue | undefined {
    return this.#queue;
  }

  /**
   * Wires informer events to this controller's keys (once, at manager setup). Updates that change
   * nothing a reconcile reads are dropped: a primary's status alone (the reconciler wrote it), a
   * cached fact's resourceVersion alone (a Node heartbeat would otherwise wake every Orchestrator).
   */
  attach(informers: (t: ControllerDefinition["resource"]) => Informer): void {
    const primary = this.#def.resource;
    informers(primary).addHandlers({
      onAdd: (o) => this.enqueue(keyOf(o), primary.kind),
      onUpdate: (old, o) => {
        if (changedBeyondStatus(old, o)) this.enqueue(keyOf(o), primary.kind);
      },
      onDelete: (o) => this.enqueue(keyOf(o), primary.kind),
    });
    for (const owned of this.#def.owns ?? []) {
      const informer = informers(owned);
      const toOwner = (o: KubeObject, isNews?: () => boolean) => {
        const ref = controllerOf(o);
        if (ref && isOfType(primary, ref)) {
          this.enqueue(
            keyFor(primary.namespaced ? o.metadata?.namespace : undefined, ref.name),
            owned.kind,
            this.#coalesceMs,
            isNews,
          );
        }
      };
      // A child this controller wrote wakes no one: the reconcile that wrote it reads the cache
      // after the write. Cached when written (`written`), its watch event is no news; when the
      // watch brought it before the API server's answer was read, the coalescing window tells
      // (isOwnWrite). Only a previous controller owner it was taken from hears of it.
      const unlessOwn = (o: KubeObject) => () => !informer.isOwnWrite(o);
      informer.addHandlers({
        onAdd: (o, origin) => {
          if (origin !== "written") toOwner(o, unlessOwn(o));
        },
        onUpdate: (old, o, origin) => {
          if (!changedBeyondVersion(old, o)) return;
          if (origin !== "written") toOwner(o, unlessOwn(o));
          if (controllerOf(old)?.uid !== controllerOf(o)?.uid) toOwner(old);
        },
        onDelete: (o) => toOwner(o),
      });
    }
    for (const w of this.#def.watches ?? []) {
      const map = (o: KubeObject) => {
        for (const key of w.map(o, this.#cache)) this.enqueue(key, w.resource.kind, this.#coalesceMs);
      };
      informers(w.resource).addHandlers({
        onAdd: map,
        onUpdate: (old, o) => {
          if (!changedBeyondVersion(old, o)) return;
          map(old);
          map(o);
        },
        onDelete: map,
      });
    }
  }

  /**
   * `cause` labels the enqueues metric: what asked for this key (default: a wake). With
   * `coalesceMs`, the key waits that long for the other events of it (WorkQueue.addCoalesced);
   * `isNews`, asked when the window ends, may then say this event was no news after all.
   */
  enqueue(key: ObjectKey, cause = "wake", coalesceMs = 0, isNews?: () => boolean): void {
    if (coalesceMs > 0 || isNews) this.#queue?.addCoalesced(key, coalesceMs, cause, isNews);
    else this.#queue?.add(key, cause);
  }

  get #coalesceMs(): number {
    return this.#o.coalesceMs ?? DEFAULT_COALESCE_MS;
  }

  /** Starts a leadership term: a fresh queue holding every cached primary key, and the workers. */
  start(): void {
    if (this.running) return;
    this.#abort = new AbortController();
    this.#queue = new WorkQueue({
      rateLimiter: defaultControllerRateLimiter(this.#o.rateLimiter),
      metrics: this.#metrics.queue(this.name),
    });
    for (const obj of this.#cache.list(this.#def.resource)) this.enqueue(keyOf(obj), "start");
    this.#log.info(`started ${this.#o.workers} workers`, {
      resource: resourceName(this.#def.resource),
      keys: this.#queue.len(),
    });
    this.#workers = Array.from({ length: this.#o.workers }, () => this.#work(this.#queue!));
    this.#scheduleResync();
  }

  /**
   * Stops taking work and waits (bounded) for reconciles in flight; their signal is aborted if
   * they outlive the bound. Returns the keys still running then.
   */
  async stop(): Promise<string[]> {
    const queue = this.#queue;
    if (!queue || queue.shuttingDown) return [];
    clearInterval(this.#resync);
    queue.shutDown();
    const inFlight = queue.processing();
    if (inFlight.length) this.#log.info("waiting for reconciles in flight", { keys: inFlight.join(",") });
    const timeout = new AbortController();
    const finished = await Promise.race([
      queue.drained().then(() => true),
      sleep(this.#o.stopTimeoutMs, timeout.signal).then(() => false),
    ]);
    timeout.abort();
    this.#abort.abort();
    const stuck = queue.processing();
    if (!finished) {
      this.#log.warn(`reconciles still running after ${this.#o.stopTimeoutMs} ms: abandoning them`, {
        keys: stuck.join(","),
      });
    } else {
      await Promise.all(this.#workers);
    }
    this.#log.info("stopped");
    return stuck;
  }

  /**
   * Every cached key once per resync period, spread evenly over it (a slice each second): a
   * round of thousands of keys enqueued at once would make every event behind them wait.
   */
  #scheduleResync(): void {
    const period = this.#o.resyncPeriodMs;
    if (!(period > 0)) return;
    const slice = Math.min(1_000, period);
    // Jitter so replicas (and controllers) do not resync in lockstep.
    const jittered = () => backoffDelay(1, { initialMs: period, maxMs: period, jitter: 0.1 });
    let keys: ObjectKey[] = [];
    let next = 0;
    let roundAt = Date.now() + jittered();
    this.#resync = setInterval(() => {
      if (next >= keys.length) {
        if (Date.now() < roundAt) return;
        keys = this.#cache.list(this.#def.resource).map((o) => keyOf(o));
        next = 0;
        roundAt = Date.now() + jittered();
      }
      const count = Math.ceil((keys.length * slice) / period);
      for (const key of keys.slice(next, next + count)) this.enqueue(key, "resync");
      next += count;
    }, slice);
    this.#resync.unref?.();
  }

  async #work(queue: WorkQueue): Promise<void> {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      await this.#reconcileOne(queue, key);
    }
  }

  async #reconcileOne(queue: WorkQueue, key: ObjectKey): Promise<void> {
    const labels = { controller: this.name };
    const attempt = queue.numRequeues(key);
    const log = this.#log.child(key);
    const t0 = performance.now();
    this.#metrics.activeWorkers.inc(labels);
    try {
      let result: ReconcileResult;
      try {
        result = await this.#reconciler.reconcile(key, { signal: this.#abort.signal, attempt, log });
      } catch (err) {
        const retryInMs = queue.addRateLimited(key);
        this.#metrics.reconciled(this.name, "error", (performance.now() - t0) / 1000);
        log.warn(`reconcile failed; retrying in ${Math.round(retryInMs)} ms`, {
          failures: attempt + 1,
          error: errorMessage(err),
        });
        return;
      }
      const seconds = (performance.now() - t0) / 1000;
      if ("requeueAfter" in result && result.requeueAfter > 0) {
        queue.forget(key);
        queue.addAfter(key, result.requeueAfter);
        this.#metrics.reconciled(this.name, "requeue_after", seconds);
      } else if ("requeue" in result) {
        queue.addRateLimited(key);
        this.#metrics.reconciled(this.name, "requeue", seconds);
      } else {
        queue.forget(key);
        this.#metrics.reconciled(this.name, "success", seconds);
      }
    } finally {
      this.#metrics.activeWorkers.dec(labels);
      queue.done(key);
    }
  }
}
