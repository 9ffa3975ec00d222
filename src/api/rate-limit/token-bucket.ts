// Per-token request budget: a token bucket of `perMinute` requests that refills continuously,
// so a client may burst up to its minute's budget and then gets a steady rate. The map of
// buckets is bounded: full (idle) buckets carry no information and are dropped first.

export interface Decision {
  allowed: boolean;
  /** Whole seconds until one request is allowed again (for Retry-After). */
  retryAfterSeconds: number;
  remaining: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  readonly perMinute: number;
  readonly #buckets = new Map<string, Bucket>();
  readonly #maxKeys: number;
  readonly #now: () => number;

  constructor(perMinute: number, opts: { maxKeys?: number; now?: () => number } = {}) {
    if (!(perMinute > 0)) throw new Error("the rate limit must be a positive number of requests per minute");
    this.perMinute = perMinute;
    this.#maxKeys = opts.maxKeys ?? 50_000;
    this.#now = opts.now ?? Date.now;
  }

  take(key: string): Decision {
    const now = this.#now();
    const perMs = this.perMinute / 60_000;
    const b = this.#buckets.get(key) ?? { tokens: this.perMinute, at: now };
    b.tokens = Math.min(this.perMinute, b.tokens + (now - b.at) * perMs);
    b.at = now;
    if (!this.#buckets.has(key)) this.#admit(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true, retryAfterSeconds: 0, remaining: Math.floor(b.tokens) };
    }
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000)),
      remaining: 0,
    };
  }

  get size(): number {
    return this.#buckets.size;
  }

  #admit(key: string, b: Bucket): void {
    if (this.#buckets.size >= this.#maxKeys) this.#sweep();
    this.#buckets.set(key, b);
  }

  #sweep(): void {
    const now = this.#now();
    const perMs = this.perMinute / 60_000;
    for (const [k, b] of this.#buckets) {
      if (b.tokens + (now - b.at) * perMs >= this.perMinute) this.#buckets.delete(k);
    }
    // Still full of active clients: forget the oldest half rather than grow without bound.
    if (this.#buckets.size >= this.#maxKeys) {
      let drop = Math.ceil(this.#buckets.size / 2);
      for (const k of this.#buckets.keys()) {
        if (drop-- <= 0) break;
        this.#buckets.delete(k);
      }
    }
  }
}
