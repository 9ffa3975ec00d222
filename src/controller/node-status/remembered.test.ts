import { describe, expect, it } from "vitest";
import { Remembered } from "./remembered.ts";

describe("Remembered", () => {
  const at = (start: number) => {
    let t = start;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it.each([
    ["just written", 0, "v"],
    ["just before the lifetime ends", 999, "v"],
    ["at the end of the lifetime", 1_000, undefined],
    ["long after", 60_000, undefined],
  ])("%s: %s", (_, after, want) => {
    const clock = at(5_000);
    const r = new Remembered<string>(1_000, clock.now);
    r.set("k", "v");
    clock.advance(after);
    expect(r.get("k")).toBe(want);
  });

  it("forgets a deleted key, and sweeps expired keys when any is read after a lifetime", () => {
    const clock = at(0);
    const r = new Remembered<number>(1_000, clock.now);
    r.set("a", 1);
    r.set("b", 2);
    r.delete("a");
    expect(r.get("a")).toBeUndefined();
    clock.advance(500);
    r.set("c", 3);
    clock.advance(600); // b expired, c has 400 ms left
    expect(r.get("other")).toBeUndefined();
    expect(r.size).toBe(1);
    expect(r.get("c")).toBe(3);
  });
});
