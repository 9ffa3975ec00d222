import { describe, expect, it } from "vitest";
import {
  goTimeMs,
  isPaymentType,
  type RemotePaymentState,
  RemotePaymentStateSchema,
} from "./payment-state.ts";
import { add, ceilInt, compare, mul, parseRational, type Rational, rational } from "./rational.ts";
import {
  FIRST_CALL_SECONDS,
  LV2V_PIXELS_PER_SECOND,
  ratStringParts,
  type SessionStart,
  sessionPrice,
  sessionPriceParts,
  sessionSpend,
  weiPerSecond,
} from "./session-spend.ts";

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

describe("ratStringParts: a Balance's integers", () => {
  it.each<[string, { num: bigint; den: bigint } | undefined]>([
    ["1500/1", { num: 1500n, den: 1n }],
    ["-2000/1", { num: -2000n, den: 1n }],
    ["6/4", { num: 6n, den: 4n }],
    ["0/1", { num: 0n, den: 1n }],
    ["123456789012345678901234567890/7", { num: 123456789012345678901234567890n, den: 7n }],
    ["007/010", { num: 7n, den: 10n }],
    ["1/0", undefined],
    ["1/000", undefined],
    ["/1", undefined],
    ["-/1", undefined],
    ["1/", undefined],
    ["1", undefined],
    ["1.5", undefined],
    [" 1/2", undefined],
    ["1/2 ", undefined],
    ["1/-2", undefined],
    ["+1/2", undefined],
    ["1//2", undefined],
    ["1/2/3", undefined],
    ["--1/2", undefined],
    ["", undefined],
  ])("%s", (text, parts) => {
    expect(ratStringParts(text)).toEqual(parts);
  });

  it("is parseRational's value wherever it answers", () => {
    for (const text of ["1500/1", "-2000/1", "6/4", "0/1", "007/010", "99999999999999999999/3"]) {
      const p = ratStringParts(text)!;
      expect(rational(p.num, p.den)).toEqual(parseRational(text));
    }
  });
});

// sessionSpend as it was written with reduced fractions at each step (the reference it is tested against).
function sessionSpendByRationals(state: RemotePaymentState, start: SessionStart): bigint | undefined {
  const price = sessionPrice(state);
  const type = state.Type;
  if (!price || !isPaymentType(type)) return undefined;
  const balance = state.Balance ? parseRational(state.Balance) : rational(0n);
  if (!balance) return undefined;
  let units: Rational;
  if (type === "fixed") {
    units = rational(BigInt(Math.max(0, state.SequenceNumber - start.seq) + 1));
  } else {
    const at = goTimeMs(state.LastUpdate);
    if (at === undefined) return undefined;
    const first = start.seq === 0 ? FIRST_CALL_SECONDS[type] * 1000n : 0n;
    const elapsedMs = BigInt(Math.max(0, at - start.at));
    const ms = type === "live" ? ((first + elapsedMs + 999n) / 1000n) * 1000n : first + elapsedMs;
    const seconds = rational(ms, 1000n);
    units = type === "live" ? seconds : mul(seconds, rational(LV2V_PIXELS_PER_SECOND));
  }
  const spent = ceilInt(add(mul(units, price), balance));
  return spent > 0n ? spent : 0n;
}

describe("sessionSpend: one denominator, no reduction per step", () => {
  it("counts what reduced fractions at each step count", () => {
    const types = ["live", "lv2v", "fixed", ""];
    const balances = [
      "",
      "0/1",
      "1500/1",
      "-2000/1",
      "7/3",
      "-7/3",
      "1000000000000000000001/1000",
      "2.5",
      "lots",
      "1/0",
    ];
    const prices: [number, number][] = [
      [1200, 1],
      [1, 1000],
      [7, 3],
      [1000, 1],
      [0, 1],
      [5, 0],
      [9_007_199_254_740_991, 7],
    ];
    const updates = [
      "2026-11-28T10:00:00Z",
      "2026-11-28T10:00:25.2Z",
      "2026-11-28T10:00:05.000000001Z",
      "2026-11-28T09:59:00Z",
      "0001-01-01T00:00:00Z",
      "junk",
    ];
    const starts: SessionStart[] = [
      { at: T0, seq: 0 },
      { at: T0, seq: 5 },
      { at: T0 + 999, seq: 0 },
      { at: T0 - 1, seq: 2 },
    ];
    let counted = 0;
    for (const Type of types)
      for (const Balance of balances)
        for (const [InitialPricePerUnit, InitialPixelsPerUnit] of prices)
          for (const LastUpdate of updates)
            for (const start of starts) {
              const s = state({
                Type,
                Balance,
                InitialPricePerUnit,
                InitialPixelsPerUnit,
                LastUpdate,
                SequenceNumber: 9,
              });
              const spent = sessionSpend(s, start);
              expect(
                spent,
                JSON.stringify({
                  Type,
                  Balance,
                  InitialPricePerUnit,
                  InitialPixelsPerUnit,
                  LastUpdate,
                  start,
                }),
              ).toBe(sessionSpendByRationals(s, start));
              if (spent !== undefined) counted++;
            }
    expect(counted).toBeGreaterThan(500);
  });
});

describe("sessionPriceParts: the price as the state gives it", () => {
  it.each<[number, number, Rational | undefined]>([
    [1200, 1, { num: 1200n, den: 1n }],
    [6, 4, { num: 6n, den: 4n }],
    [0, 1, undefined],
    [5, 0, undefined],
    [-1, 1, undefined],
  ])("%d/%d", (InitialPricePerUnit, InitialPixelsPerUnit, parts) => {
    expect(sessionPriceParts(state({ InitialPricePerUnit, InitialPixelsPerUnit }))).toEqual(parts);
  });

  it("compares and divides as the reduced price does", () => {
    const caps = [rational(1n), rational(3n, 2n), rational(1500n), rational(7n, 3n), rational(1n, 1000n)];
    const budgets = [0n, 1n, 999n, 10n ** 18n + 7n];
    for (const [p, q] of [
      [6, 4],
      [1500, 1],
      [3000, 2],
      [7, 3],
      [14, 6],
      [1, 1000],
      [27, 9],
    ] as const) {
      for (const Type of ["live", "lv2v"]) {
        const s = state({ Type, InitialPricePerUnit: p, InitialPixelsPerUnit: q });
        const parts = sessionPriceParts(s)!;
        const reduced = sessionPrice(s)!;
        for (const cap of caps) expect(compare(parts, cap)).toBe(compare(reduced, cap));
        const rateParts = weiPerSecond(s, parts)!;
        const rate = weiPerSecond(s)!;
        for (const left of budgets)
          expect((left * rateParts.den) / rateParts.num).toBe((left * rate.den) / rate.num);
      }
    }
  });
});
