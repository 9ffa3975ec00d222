// Retry pacing for the work queue, as client-go's default controller rate limiter: per key,
// exponential backoff from 5 ms doubling to a cap (~1000 s); overall, a token bucket so a storm
// of failures cannot hammer the API server. A retry waits for the larger of the two.

export interface RateLimiter {
  /** Milliseconds to wait before retrying `key`; each call counts one more failure. */
  when(key: string): number;
  /** The key succeeded: its backoff starts again from the base. */
  forget(key: string): void;
  numRequeues(key: string): number;
}

export class ExponentialFailureRateLimiter implements RateLimiter {
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #failures = new Map<string, number>();

  constructor(baseMs = 5, maxMs = 1_000_000) {
    this.#baseMs = baseMs;
    this.#maxMs = maxMs;
  }

  when(key: string): number {
    const n = this.#failures.get(key) ?? 0;
    this.#failures.set(key, n + 1);
    // 2**n overflows to Infinity long after the cap, so min() stays correct.
    return Math.min(this.#baseMs * 2 ** n, this.#maxMs);
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/** A token bucket: `burst` retries at once, then `qps` per second overall. */
export class BucketRateLimiter implements RateLimiter {
  readonly #qps: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #last: number;

  constructor(qps = 10, burst = 100, now: () => number = Date.now) {
    this.#qps = qps;
    this.#burst = burst;
    this.#now = now;
    this.#tokens = burst;
    this.#last = now();
  }

  when(_key: string): number {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#qps);
    this.#last = now;
    // Reserve a token even when none is left: the deficit is how long this caller waits.
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.#qps) * 1000;
  }

  forget(_key: string): void {}

  numRequeues(_key: string): number {
    return 0;
  }
}

export class MaxOfRateLimiter implements RateLimiter {
  readonly #limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.#limiters = limiters;
  }

  when(key: string): number {
    return Math.max(0, ...this.#limiters.map((l) => l.when(key)));
  }

  forget(key: string): void {
    for (const l of this.#limiters) l.forget(key);
  }

  numRequeues(key: string): number {
    return Math.max(0, ...this.#limiters.map((l) => l.numRequeues(key)));
  }
}

export interface RateLimiterOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  qps?: number;
  burst?: number;
}

export function defaultControllerRateLimiter(o: RateLimiterOptions = {}): RateLimiter {
  return new MaxOfRateLimiter(
    new ExponentialFailureRateLimiter(o.baseDelayMs ?? 5, o.maxDelayMs ?? 1_000_000),
    new BucketRateLimiter(o.qps ?? 10, o.burst ?? 100),
  );
}
