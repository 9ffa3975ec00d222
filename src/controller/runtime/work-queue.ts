// A work queue with client-go's semantics, which reconcilers depend on:
// - a key is never handed to two workers at once (it is "processing" until done());
// - a key added while processing is not dropped: it is marked dirty and handed out again after
//   done(), once (adds coalesce);
// - addAfter() delays a key (keeping the earliest time if added twice); addRateLimited() delays it
//   by the rate limiter (per-key exponential backoff, overall token bucket); forget() on success;
// - addCoalesced() holds a key for a short window so that the events arriving together (a pod
//   created, scheduled, started; its StatefulSet's status following) wake one reconcile, not one
//   each; a key handed out meanwhile drops its window (the reconcile reads the cache as it is now).
//   An add may say how to tell, when the window ends, whether it is still news (an event that
//   turned out to be the echo of the controller's own write is not); the key is added if any
//   add of the window is.
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limiter.ts";

export interface QueueMetrics {
  depth(n: number): void;
  /** A key entered the queue (not counted when it was already waiting), and what asked for it. */
  added(cause: string): void;
  /** Seconds a key waited in the queue before a worker took it. */
  queued(seconds: number): void;
  /** Seconds a worker held a key. */
  worked(seconds: number): void;
  retried(): void;
}

const noMetrics: QueueMetrics = { depth() {}, added() {}, queued() {}, worked() {}, retried() {} };

export interface WorkQueueOptions {
  rateLimiter?: RateLimiter;
  metrics?: QueueMetrics;
}

export class WorkQueue {
  readonly #queue: string[] = [];
  readonly #dirty = new Set<string>();
  readonly #processing = new Map<string, number>();
  readonly #enqueuedAt = new Map<string, number>();
  readonly #waiting = new Map<string, { readyAt: number; timer: NodeJS.Timeout }>();
  readonly #coalescing = new Map<string, { timer: NodeJS.Timeout; news: (() => boolean)[] | true }>();
  readonly #getters: Array<(key: string | undefined) => void> = [];
  readonly #drainers: Array<() => void> = [];
  readonly #limiter: RateLimiter;
  readonly #metrics: QueueMetrics;
  #shuttingDown = false;

  constructor(opts: WorkQueueOptions = {}) {
    this.#limiter = opts.rateLimiter ?? defaultControllerRateLimiter();
    this.#metrics = opts.metrics ?? noMetrics;
  }

  /** `cause`: what asked for the key (a kind whose event mapped to it, "requeue", ...), for metrics. */
  add(key: string, cause = "add"): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#metrics.added(cause);
    this.#dirty.add(key);
    this.#enqueuedAt.set(key, Date.now());
    if (this.#processing.has(key)) return; // handed out again by done()
    this.#push(key);
  }

  addAfter(key: string, delayMs: number, cause = "requeue"): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key, cause);
      return;
    }
    const readyAt = Date.now() + delayMs;
    const existing = this.#waiting.get(key);
    if (existing && existing.readyAt <= readyAt) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.#waiting.delete(key);
      this.add(key, cause);
    }, delayMs);
    timer.unref?.();
    this.#waiting.set(key, { readyAt, timer });
  }

  /**
   * Adds `key` once `windowMs` has passed, absorbing every other coalesced add of it until then;
   * nothing if it is already due (waiting for a worker, or to run again after the one in flight):
   * that reconcile reads this change. A key being processed and not due is held too (the
   * reconcile in flight may have read the cache before the change). With `isNews`, this add
   * counts only if it still says true when the window ends.
   */
  addCoalesced(key: string, windowMs: number, cause = "add", isNews?: () => boolean): void {
    if (this.#shuttingDown) return;
    const held = this.#coalescing.get(key);
    if (held) {
      if (!isNews) held.news = true;
      else if (held.news !== true) held.news.push(isNews);
      return;
    }
    if (windowMs <= 0 || this.#dirty.has(key)) {
      if (!isNews || isNews()) this.add(key, cause);
      return;
    }
    const timer = setTimeout(() => {
      const entry = this.#coalescing.get(key);
      this.#coalescing.delete(key);
      if (entry && (entry.news === true || entry.news.some((f) => f()))) this.add(key, cause);
    }, windowMs);
    timer.unref?.();
    this.#coalescing.set(key, { timer, news: isNews ? [isNews] : true });
  }

  /** Keys held in a coalescing window or waiting for their time (tests and diagnostics). */
  get holding(): number {
    return this.#coalescing.size + this.#waiting.size;
  }

  /** Returns the delay chosen (ms). */
  addRateLimited(key: string): number {
    this.#metrics.retried();
    const delay = this.#limiter.when(key);
    this.addAfter(key, delay, "retry");
    return delay;
  }

  forget(key: string): void {
    this.#limiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.#limiter.numRequeues(key);
  }

  /** Waits for the next key; undefined once the queue is shut down (the worker should exit). */
  get(): Promise<string | undefined> {
    if (this.#shuttingDown) return Promise.resolve(undefined);
    const key = this.#queue.shift();
    if (key !== undefined) return Promise.resolve(this.#take(key));
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  done(key: string): void {
    const started = this.#processing.get(key);
    if (started === undefined) return;
    this.#processing.delete(key);
    this.#metrics.worked((Date.now() - started) / 1000);
    if (this.#dirty.has(key) && !this.#shuttingDown) this.#push(key);
    if (this.#processing.size === 0) for (const d of this.#drainers.splice(0)) d();
  }

  /** Stops handing out keys (waiting workers get undefined); keys being processed may finish. */
  shutDown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    for (const w of this.#waiting.values()) clearTimeout(w.timer);
    this.#waiting.clear();
    for (const t of this.#coalescing.values()) clearTimeout(t.timer);
    this.#coalescing.clear();
    for (const g of this.#getters.splice(0)) g(undefined);
  }

  /** Resolves when no key is being processed (call after shutDown()). */
  drained(): Promise<void> {
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainers.push(resolve));
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Keys ready to be handed out (not counting delayed or processing ones). */
  len(): number {
    return this.#queue.length;
  }

  processing(): string[] {
    return [...this.#processing.keys()];
  }

  #push(key: string): void {
    const getter = this.#getters.shift();
    if (getter) {
      getter(this.#take(key));
      return;
    }
    this.#queue.push(key);
    this.#metrics.depth(this.#queue.length);
  }

  #take(key: string): string {
    this.#dirty.delete(key);
    const held = this.#coalescing.get(key);
    if (held) {
      clearTimeout(held.timer);
      this.#coalescing.delete(key);
    }
    const now = Date.now();
    this.#processing.set(key, now);
    const enqueued = this.#enqueuedAt.get(key);
    this.#enqueuedAt.delete(key);
    if (enqueued !== undefined) this.#metrics.queued((now - enqueued) / 1000);
    this.#metrics.depth(this.#queue.length);
    return key;
  }
}
