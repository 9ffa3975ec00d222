import { describe, expect, it } from "vitest";
import { RateLimiter } from "./token-bucket.ts";

function clock(start = 0) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("RateLimiter", () => {
  it("allows a minute's budget at once, then refuses with a Retry-After", () => {
    const c = clock();
    const rl = new RateLimiter(3, { now: c.now });
    expect([rl.take("a"), rl.take("a"), rl.take("a")].every((d) => d.allowed)).toBe(true);
    const refused = rl.take("a");
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(20);
  });

  it("refills continuously", () => {
    const c = clock();
    const rl = new RateLimiter(60, { now: c.now });
    for (let i = 0; i < 60; i++) rl.take("a");
    expect(rl.take("a").allowed).toBe(false);
    c.advance(1000);
    expect(rl.take("a").allowed).toBe(true);
    expect(rl.take("a").allowed).toBe(false);
  });

  it("keeps tokens apart", () => {
    const rl = new RateLimiter(1, { now: clock().now });
    expect(rl.take("a").allowed).toBe(true);
    expect(rl.take("b").allowed).toBe(true);
    expect(rl.take("a").allowed).toBe(false);
  });

  it("stays bounded when many tokens appear", () => {
    const c = clock();
    const rl = new RateLimiter(10, { now: c.now, maxKeys: 100 });
    for (let i = 0; i < 1000; i++) {
      rl.take(`k${i}`);
      c.advance(1);
    }
    expect(rl.size).toBeLessThanOrEqual(100);
  });
});
