import { describe, expect, it } from "vitest";
import { RequestPacer } from "./request-pacer.ts";

describe("RequestPacer", () => {
  it("lets a burst through, then paces at the rate", () => {
    const pacer = new RequestPacer(10, 3, 0);
    // t, wait expected (0 = taken)
    const steps: [number, number][] = [
      [0, 0],
      [0, 0],
      [0, 0],
      [0, 100],
      [50, 50],
      [100, 0],
      [100, 100],
      [1000, 0],
      [1000, 0],
      [1000, 0],
      [1000, 100],
    ];
    for (const [t, wait] of steps) expect(pacer.take(t), `at ${t} ms`).toBe(wait);
  });

  it("refuses a rate of 0", () => {
    expect(() => new RequestPacer(0, 1, 0)).toThrow(/above 0/);
  });
});
