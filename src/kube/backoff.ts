// Capped exponential backoff with jitter, for loops that must never give up (informers, leader
// election): spread out so replicas that failed together do not retry together.

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** 0..1: the delay is drawn from [d * (1 - jitter), d]. */
  jitter?: number;
}

export function backoffDelay(attempt: number, o: BackoffOptions, random: () => number = Math.random): number {
  const d = Math.min(o.initialMs * 2 ** Math.max(0, attempt - 1), o.maxMs);
  const jitter = o.jitter ?? 0.2;
  return Math.round(d * (1 - jitter * random()));
}

/** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
