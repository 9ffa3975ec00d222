import { describe, expect, it } from "vitest";
import { applyHeapGrowth, DEFAULT_HEAP_GROWING_PERCENT, parseHeapGrowingPercent } from "./heap-growth.ts";

describe("parseHeapGrowingPercent", () => {
  it.each([
    [undefined, DEFAULT_HEAP_GROWING_PERCENT],
    ["0", 0],
    ["20", 20],
    ["400", 400],
  ])("%s -> %s", (value, want) => {
    expect(parseHeapGrowingPercent(value)).toBe(want);
  });

  it.each(["-5", "1.5", "401", "twenty", "", "1e2"])("%j is refused with the range and the fix", (value) => {
    expect(() => parseHeapGrowingPercent(value)).toThrow(
      /--heap-growing-percent must be a whole number from 0 \(V8's own factor\) to 400/,
    );
  });
});

describe("applyHeapGrowth", () => {
  const calls = () => {
    const set: string[] = [];
    return { set, fn: (f: string) => void set.push(f) };
  };

  it.each([
    ["the default", 20, [], ["--heap-growing-percent=20"], "--heap-growing-percent=20"],
    ["0: V8's own factor, nothing set", 0, [], [], "V8's own factor"],
    [
      "node's command line wins",
      20,
      ["--heap-growing-percent=35"],
      [],
      "--heap-growing-percent=35 (node's command line)",
    ],
    [
      "node's command line, underscores",
      20,
      ["--heap_growing_percent=10"],
      [],
      "--heap_growing_percent=10 (node's command line)",
    ],
  ])("%s", (_what, percent, execArgv, wantSet, wantSaid) => {
    const c = calls();
    expect(applyHeapGrowth(percent, execArgv, c.fn)).toBe(wantSaid);
    expect(c.set).toEqual(wantSet);
  });
});
