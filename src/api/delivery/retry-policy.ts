// What an attempt's outcome means for its delivery: delivered, retried at a time, failed for
// good, or gone (410: the endpoint asked us to stop). Retried: 5xx, 408, 429, network errors and
// timeouts, with capped exponential backoff and jitter until the schedule's age limit; other 4xx
// and 3xx (redirects are never followed) are final. Pure: the clock and randomness come in.
import { retryAfterMs } from "./retry-after.ts";

export interface RetrySchedule {
  /** Delay before the first retry. */
  firstDelayMs: number;
  /** Each retry waits this many times longer than the one before... */
  multiplier: number;
  /** ...up to this. */
  maxDelayMs: number;
  /** No attempt starts later than this after the delivery was created. */
  giveUpAfterMs: number;
  /** Spread: each delay is scaled by a random factor in [1 - jitter, 1 + jitter]. */
  jitter: number;
  /** A receiver's Retry-After is honoured up to this. */
  maxRetryAfterMs: number;
}

/** 5 s doubling, capped at 1 h, for 24 h (about 33 attempts), +-20 %: the hosted service's curve with jitter. */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  firstDelayMs: 5_000,
  multiplier: 2,
  maxDelayMs: 3_600_000,
  giveUpAfterMs: 24 * 3_600_000,
  jitter: 0.2,
  maxRetryAfterMs: 3_600_000,
};

/** Why a schedule cannot work, naming the field and the fix; undefined when it is fine. */
export function scheduleProblem(s: RetrySchedule): string | undefined {
  const positive = ["firstDelayMs", "maxDelayMs", "giveUpAfterMs", "maxRetryAfterMs"] as const;
  for (const k of positive) {
    if (!Number.isFinite(s[k]) || s[k] < 0)
      return `retry schedule ${k} must be a number of ms >= 0 (got ${s[k]})`;
  }
  if (!Number.isFinite(s.multiplier) || s.multiplier < 1) {
    return `retry schedule multiplier must be >= 1 (got ${s.multiplier}): 1 retries at a fixed interval`;
  }
  if (!Number.isFinite(s.jitter) || s.jitter < 0 || s.jitter >= 1) {
    return `retry schedule jitter must be >= 0 and < 1 (got ${s.jitter}), e.g. 0.2 for +-20 %`;
  }
  if (s.maxDelayMs < s.firstDelayMs) {
    return `retry schedule maxDelayMs (${s.maxDelayMs}) must be >= firstDelayMs (${s.firstDelayMs})`;
  }
  return undefined;
}

/** The delay after the `attemptsMade`-th failed attempt (1 = after the first), jittered by `random` in [0, 1). */
export function backoffDelay(s: RetrySchedule, attemptsMade: number, random: number): number {
  const exponent = Math.max(0, attemptsMade - 1);
  const base = Math.min(s.maxDelayMs, s.firstDelayMs * s.multiplier ** exponent);
  return Math.round(Math.min(s.maxDelayMs, base * (1 + s.jitter * (2 * random - 1))));
}

/** How an attempt ended, as the sender saw it. */
export type AttemptOutcome =
  | { kind: "response"; status: number; statusText: string; body: string; retryAfter?: string | undefined }
  /** No usable answer: connection failure, reset, timeout. Retried. */
  | { kind: "error"; error: string }
  /** The target's address is not allowed (SSRF guard); not retried. */
  | { kind: "refused"; error: string };

export type Decision =
  | { kind: "delivered" }
  | { kind: "retry"; at: number; error: string }
  | { kind: "failed"; error: string }
  | { kind: "gone"; error: string };

export interface DecisionContext {
  /** Attempts made, this one included. */
  attemptsMade: number;
  /** When the delivery was created (the age limit counts from here). */
  createdAt: number;
  now: number;
  schedule: RetrySchedule;
  /** In [0, 1), for the jitter. */
  random: number;
}

export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

export function decide(outcome: AttemptOutcome, ctx: DecisionContext): Decision {
  if (outcome.kind === "refused") return { kind: "failed", error: outcome.error };
  if (outcome.kind === "error") return retryOrGiveUp(outcome.error, ctx, undefined);
  const { status } = outcome;
  if (status >= 200 && status < 300) return { kind: "delivered" };
  if (status === 410) {
    return {
      kind: "gone",
      error:
        "HTTP 410 Gone: the endpoint asked for no more deliveries; the webhook is off until it is updated",
    };
  }
  if (isRetryableStatus(status) && status < 600) {
    return retryOrGiveUp(`HTTP ${status}`, ctx, retryAfterMs(outcome.retryAfter, ctx.now));
  }
  if (status >= 300 && status < 400) {
    return {
      kind: "failed",
      error: `HTTP ${status}: redirects are not followed; point the webhook at the final URL`,
    };
  }
  if (status >= 400 && status < 500) {
    return {
      kind: "failed",
      error: `HTTP ${status}: the endpoint refused the request (4xx other than 408, 429 are not retried)`,
    };
  }
  return { kind: "failed", error: `HTTP ${status}: not a valid HTTP status` };
}

function retryOrGiveUp(error: string, ctx: DecisionContext, retryAfter: number | undefined): Decision {
  const { schedule } = ctx;
  let delay = backoffDelay(schedule, ctx.attemptsMade, ctx.random);
  if (retryAfter !== undefined) delay = Math.max(delay, Math.min(retryAfter, schedule.maxRetryAfterMs));
  const at = ctx.now + delay;
  if (at > ctx.createdAt + schedule.giveUpAfterMs) {
    return {
      kind: "failed",
      error: `${error}; gave up after ${ctx.attemptsMade} attempt${ctx.attemptsMade === 1 ? "" : "s"} over ${duration(ctx.now - ctx.createdAt)}`,
    };
  }
  return { kind: "retry", at, error };
}

/** "36 s", "12 min", "24 h": for people reading a failure. */
export function duration(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}
