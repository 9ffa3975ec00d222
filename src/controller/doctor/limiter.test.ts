import { describe, expect, it } from "vitest";
import { Limiter } from "./limiter.ts";

describe("Limiter", () => {
  it("runs at most N tasks at once, the rest in order, and frees slots on failure", async () => {
    const l = new Limiter(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const task = (i: number) =>
      l.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        order.push(i);
        if (i === 1) throw new Error("boom");
        return i;
      });
    const results = await Promise.allSettled([0, 1, 2, 3, 4].map(task));
    expect(peak).toBe(2);
    expect(results.map((r) => r.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
    expect([...order].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(l.active).toBe(0);
    expect(l.waiting).toBe(0);
  });

  it("refuses a limiter without a slot", () => {
    expect(() => new Limiter(0)).toThrow(/at least one slot/);
  });
});
