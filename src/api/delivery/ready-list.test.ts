import { describe, expect, it } from "vitest";
import { ReadyList } from "./ready-list.ts";

const item = (webhookId: string, n: number) => ({ webhookId, n });

describe("ReadyList: leased deliveries waiting for a slot", () => {
  it("gives each webhook's items oldest first, webhooks in arrival order", () => {
    const l = new ReadyList<ReturnType<typeof item>>();
    for (const i of [item("a", 1), item("b", 2), item("a", 3)]) l.push(i);
    const all = () => true;
    expect([l.shift(all), l.shift(all), l.shift(all), l.shift(all)]).toEqual([
      item("a", 1),
      item("a", 3),
      item("b", 2),
      undefined,
    ]);
    expect(l.size).toBe(0);
  });

  it("skips a webhook that may not start (at its share) without losing its items", () => {
    const l = new ReadyList<ReturnType<typeof item>>();
    for (const i of [item("busy", 1), item("idle", 2)]) l.push(i);
    expect(l.shift((w) => w !== "busy")).toEqual(item("idle", 2));
    expect(l.shift((w) => w !== "busy")).toBeUndefined();
    expect(l.size).toBe(1);
    expect(l.drain()).toEqual([item("busy", 1)]);
    expect(l.size).toBe(0);
  });

  it("keeps order across compaction of a long list", () => {
    const l = new ReadyList<ReturnType<typeof item>>();
    for (let n = 0; n < 5_000; n++) l.push(item("a", n));
    const got: number[] = [];
    for (let n = 0; n < 3_000; n++) got.push(l.shift(() => true)!.n);
    for (let n = 5_000; n < 5_010; n++) l.push(item("a", n));
    const rest = l.drain().map((i) => i.n);
    expect(got).toEqual(Array.from({ length: 3_000 }, (_, n) => n));
    expect(rest).toEqual([
      ...Array.from({ length: 2_000 }, (_, n) => 3_000 + n),
      ...Array.from({ length: 10 }, (_, n) => 5_000 + n),
    ]);
  });
});
