import { describe, expect, it } from "vitest";
import { type RemotePaymentState, RemotePaymentStateSchema } from "./payment-state.ts";
import { sessionSpend, weiPerSecond } from "./session-spend.ts";

const T0 = Date.parse("2026-11-28T10:00:00Z");
const state = (s: Partial<RemotePaymentState>): RemotePaymentState =>
  RemotePaymentStateSchema.parse({
    StateID: "s1",
    LastUpdate: "2026-11-28T10:00:00Z",
    InitialPricePerUnit: 1200,
    InitialPixelsPerUnit: 1,
    Type: "live",
    Balance: "0/1",
    ...s,
  });

describe("sessionSpend: expected value paid = fees charged + the balance left", () => {
  it.each<[string, Partial<RemotePaymentState>, { at: number; seq: number }, bigint | undefined]>([
    ["live, first call: 10 s preloaded", {}, { at: T0, seq: 0 }, 12_000n],
    ["live, first call with credit left", { Balance: "500/1" }, { at: T0, seq: 0 }, 12_500n],
    [
      "live, 25.2 s later: 10 + 26 s",
      { LastUpdate: "2026-11-28T10:00:25.2Z", SequenceNumber: 4 },
      { at: T0, seq: 0 },
      36n * 1200n,
    ],
    [
      "live, nanosecond times are read",
      { LastUpdate: "2026-11-28T10:00:05.000000001Z", SequenceNumber: 1 },
      { at: T0, seq: 0 },
      15n * 1200n,
    ],
    [
      "live first seen mid-session: no preload",
      { LastUpdate: "2026-11-28T10:00:30Z", SequenceNumber: 6 },
      { at: T0, seq: 5 },
      30n * 1200n,
    ],
    [
      "lv2v, first call: 60 s of 1280x720x30 pixels",
      { Type: "lv2v", InitialPricePerUnit: 1, InitialPixelsPerUnit: 1000 },
      { at: T0, seq: 0 },
      (60n * 27_648_000n) / 1000n,
    ],
    [
      "fixed: one unit per call",
      { Type: "fixed", InitialPricePerUnit: 5, SequenceNumber: 9 },
      { at: T0, seq: 0 },
      50n,
    ],
    ["a negative balance lowers the count", { Balance: "-2000/1" }, { at: T0, seq: 0 }, 10_000n],
    ["no type: not countable", { Type: "" }, { at: T0, seq: 0 }, undefined],
    ["no price: not countable", { InitialPixelsPerUnit: 0 }, { at: T0, seq: 0 }, undefined],
    ["zero time: not countable", { LastUpdate: "0001-01-01T00:00:00Z" }, { at: T0, seq: 0 }, undefined],
    ["junk balance: not countable", { Balance: "lots" }, { at: T0, seq: 0 }, undefined],
  ])("%s", (_, s, start, expected) => {
    expect(sessionSpend(state(s), start)).toBe(expected);
  });

  it("knows a second's price for live and lv2v only", () => {
    expect(weiPerSecond(state({}))).toEqual({ num: 1200n, den: 1n });
    expect(weiPerSecond(state({ Type: "lv2v", InitialPricePerUnit: 1, InitialPixelsPerUnit: 1000 }))).toEqual(
      {
        num: 27_648n,
        den: 1n,
      },
    );
    expect(weiPerSecond(state({ Type: "fixed" }))).toBeUndefined();
  });
});
