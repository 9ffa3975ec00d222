import { describe, expect, it } from "vitest";
import {
  type AttemptOutcome,
  backoffDelay,
  DEFAULT_RETRY_SCHEDULE,
  type Decision,
  type DecisionContext,
  decide,
  type RetrySchedule,
  scheduleProblem,
} from "./retry-policy.ts";

const now = 1_000_000_000;
const noJitter: RetrySchedule = { ...DEFAULT_RETRY_SCHEDULE, jitter: 0 };
const ctx: DecisionContext = { attemptsMade: 1, createdAt: now, now, schedule: noJitter, random: 0.5 };
const response = (status: number, retryAfter?: string): AttemptOutcome => ({
  kind: "response",
  status,
  statusText: "",
  body: "",
  retryAfter,
});

describe("decide", () => {
  it.each<[string, AttemptOutcome, Decision["kind"], RegExp | undefined]>([
    ["200", response(200), "delivered", undefined],
    ["204", response(204), "delivered", undefined],
    ["299", response(299), "delivered", undefined],
    ["500", response(500), "retry", /^HTTP 500$/],
    ["503", response(503), "retry", /^HTTP 503$/],
    ["599", response(599), "retry", /^HTTP 599$/],
    ["408", response(408), "retry", /^HTTP 408$/],
    ["429", response(429), "retry", /^HTTP 429$/],
    ["400", response(400), "failed", /^HTTP 400: .*not retried/],
    ["401", response(401), "failed", /^HTTP 401/],
    ["404", response(404), "failed", /^HTTP 404/],
    ["301", response(301), "failed", /^HTTP 301: redirects are not followed/],
    ["302", response(302), "failed", /redirects are not followed/],
    ["308", response(308), "failed", /redirects are not followed/],
    ["410", response(410), "gone", /^HTTP 410 Gone: .*off until it is updated/],
    ["600", response(600), "failed", /not a valid HTTP status/],
    ["timeout", { kind: "error", error: "timeout after 10 s" }, "retry", /^timeout after 10 s$/],
    [
      "connection refused",
      { kind: "error", error: "connect ECONNREFUSED 127.0.0.1:9" },
      "retry",
      /^connect ECONNREFUSED 127\.0\.0\.1:9$/,
    ],
    ["refused target", { kind: "refused", error: "refused: 10.0.0.1 is private" }, "failed", /^refused/],
  ])("%s -> %s", (_, outcome, kind, error) => {
    const d = decide(outcome, ctx);
    expect(d.kind).toBe(kind);
    if (error) expect("error" in d ? d.error : "").toMatch(error);
    if (d.kind !== "delivered") expect(d.error.length).toBeGreaterThan(0);
  });

  it("retries 5 s after the first failure, then doubles", () => {
    const at = (attemptsMade: number) => {
      const d = decide(response(500), { ...ctx, attemptsMade });
      return d.kind === "retry" ? d.at - now : undefined;
    };
    expect([1, 2, 3, 4].map(at)).toEqual([5_000, 10_000, 20_000, 40_000]);
  });

  it("waits at least the receiver's Retry-After (seconds or HTTP-date), capped by the schedule", () => {
    const wait = (header: string, attemptsMade = 1) => {
      const d = decide(response(429, header), { ...ctx, attemptsMade });
      return d.kind === "retry" ? d.at - now : undefined;
    };
    expect(wait("120")).toBe(120_000);
    expect(wait(new Date(now + 60_000).toUTCString())).toBe(60_000);
    expect(wait("1")).toBe(5_000); // shorter than the schedule: the schedule wins
    expect(wait("86400")).toBe(noJitter.maxRetryAfterMs);
    expect(wait("garbage")).toBe(5_000);
  });

  it("gives up once the next attempt would start after the age limit, saying how long it tried", () => {
    const d = decide(response(503), {
      ...ctx,
      attemptsMade: 33,
      createdAt: now - 23.5 * 3_600_000,
    });
    expect(d).toEqual({ kind: "failed", error: "HTTP 503; gave up after 33 attempts over 24 h" });
  });
});

describe("backoffDelay", () => {
  it("stays within +-jitter of the base and never exceeds the cap", () => {
    const s = DEFAULT_RETRY_SCHEDULE;
    expect(backoffDelay(s, 1, 0)).toBe(4_000);
    expect(backoffDelay(s, 1, 0.999999)).toBe(6_000);
    for (let n = 1; n < 40; n++) {
      for (const r of [0, 0.3, 0.99]) expect(backoffDelay(s, n, r)).toBeLessThanOrEqual(s.maxDelayMs);
    }
  });

  it("spreads the default schedule over about 24 h in about 33 attempts", () => {
    let t = 0;
    let attempts = 1;
    const s = DEFAULT_RETRY_SCHEDULE;
    for (;;) {
      const d = decide(response(500), {
        attemptsMade: attempts,
        createdAt: 0,
        now: t,
        schedule: s,
        random: 0.5,
      });
      if (d.kind !== "retry") break;
      t = d.at;
      attempts++;
    }
    expect(attempts).toBeGreaterThanOrEqual(30);
    expect(attempts).toBeLessThanOrEqual(36);
    expect(t).toBeGreaterThan(23 * 3_600_000);
    expect(t).toBeLessThanOrEqual(24 * 3_600_000);
  });
});

describe("scheduleProblem", () => {
  it.each<[Partial<RetrySchedule>, RegExp | undefined]>([
    [{}, undefined],
    [{ multiplier: 1 }, undefined],
    [{ multiplier: 0.5 }, /multiplier must be >= 1/],
    [{ jitter: 1 }, /jitter must be >= 0 and < 1/],
    [{ firstDelayMs: -1 }, /firstDelayMs must be a number of ms >= 0/],
    [{ maxDelayMs: 1_000 }, /maxDelayMs \(1000\) must be >= firstDelayMs \(5000\)/],
    [{ giveUpAfterMs: Number.NaN }, /giveUpAfterMs/],
  ])("%j -> %s", (over, problem) => {
    const p = scheduleProblem({ ...DEFAULT_RETRY_SCHEDULE, ...over });
    if (problem) expect(p).toMatch(problem);
    else expect(p).toBeUndefined();
  });
});
