import { describe, expect, it } from "vitest";
import { PairMap } from "./pair-map.ts";

describe("PairMap", () => {
  it("keeps keys apart that a joined key would run together", () => {
    const m = new PairMap<number>();
    m.set("a\nb", "c", 1);
    m.set("a", "b\nc", 2);
    expect(m.get("a\nb", "c")).toBe(1);
    expect(m.get("a", "b\nc")).toBe(2);
    expect(m.get("a", "c")).toBeUndefined();
    m.set("a", "b\nc", 3);
    expect(m.get("a", "b\nc")).toBe(3);
  });

  it("deletes what the predicate picks, and nothing else", () => {
    const m = new PairMap<number>();
    m.set("x", "1", 1);
    m.set("x", "2", 2);
    m.set("y", "3", 3);
    m.deleteWhere((v) => v !== 2);
    expect([m.get("x", "1"), m.get("x", "2"), m.get("y", "3")]).toEqual([undefined, 2, undefined]);
  });
});
