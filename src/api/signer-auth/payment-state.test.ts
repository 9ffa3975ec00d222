import { describe, expect, it } from "vitest";
import {
  goTimeMs,
  goTimeMsParsed,
  headerValue,
  parseSignerAuthBodyFast,
  SignerAuthBodySchema,
  utcTimeMsFast,
} from "./payment-state.ts";

// What go-livepeer's authLivePayment sends: every field of RemotePaymentState.
const state = {
  StateID: "session-1",
  PMSessionID: "pm",
  LastUpdate: "2026-11-28T10:00:00.123456789Z",
  OrchestratorAddress: "0x1234567890123456789012345678901234567890",
  App: "",
  AuthExpiry: 0,
  SenderNonce: 3,
  Balance: "1500/1",
  InitialPricePerUnit: 1000,
  InitialPixelsPerUnit: 1,
  Type: "live",
  SequenceNumber: 3,
  AuthID: "tenant-a",
};
const headers = { Authorization: ["Bearer x.y.z"], "Content-Type": ["application/json"] };
const body = (over: Record<string, unknown> = {}, stateOver: Record<string, unknown> = {}) => ({
  headers,
  state: { ...state, ...stateOver },
  ...over,
});

describe("parseSignerAuthBodyFast: the schema's answer for a complete body, else undefined", () => {
  it.each<[string, unknown]>([
    ["a payment as the signer sends it", body()],
    ["unknown fields kept (a newer node)", body({ extra: 1 }, { NewField: "x" })],
    ["a null state", body({ state: null })],
    ["no headers", { headers: {}, state }],
    ["a header with several values", body({ headers: { Authorization: ["a", "b"] } })],
    ["the longest strings", body({}, { StateID: "s".repeat(512), Type: "t".repeat(32) })],
  ])("%s: same as the schema", (_, input) => {
    const fast = parseSignerAuthBodyFast(input);
    expect(fast).toBeDefined();
    expect(fast).toStrictEqual(SignerAuthBodySchema.parse(input));
  });

  it.each<[string, unknown]>([
    ["not an object", [1]],
    ["headers an array", body({ headers: [["Authorization", "x"]] })],
    ["a header value not a list", body({ headers: { Authorization: "Bearer x" } })],
    ["a header list with a number", body({ headers: { Authorization: [1] } })],
    ["state an array", body({ state: [] })],
    ["a string too long", body({}, { StateID: "s".repeat(513) })],
    ["LastUpdate too long", body({}, { LastUpdate: "2".repeat(65) })],
    ["a fractional price", body({}, { InitialPricePerUnit: 1.5 })],
    ["an unsafe integer", body({}, { SenderNonce: 2 ** 60 })],
    ["a negative sequence number", body({}, { SequenceNumber: -1 })],
    ["a number as a string", body({}, { Balance: 1500 })],
    ["a null field", body({}, { App: null })],
  ])("refused by both: %s", (_, input) => {
    expect(parseSignerAuthBodyFast(input)).toBeUndefined();
    expect(SignerAuthBodySchema.safeParse(input).success).toBe(false);
  });

  it.each<[string, unknown]>([
    ["no headers key", { state }],
    ["no state key", { headers }],
    ["an optional field missing", body({}, { PMSessionID: undefined })],
    ["a defaulted field missing", body({}, { SequenceNumber: undefined, App: undefined })],
  ])("left to the schema (it fills defaults): %s", (_, input) => {
    const json = JSON.parse(JSON.stringify(input)) as unknown;
    expect(parseSignerAuthBodyFast(json)).toBeUndefined();
    expect(SignerAuthBodySchema.safeParse(json).success).toBe(true);
  });
});

describe("goTimeMs: a Go time's milliseconds", () => {
  it.each<[string, string | undefined, number | undefined]>([
    ["nanoseconds, UTC", "2026-11-28T10:00:00.123456789Z", Date.UTC(2026, 10, 28, 10, 0, 0, 123)],
    ["milliseconds, UTC", "2026-11-28T10:00:00.123Z", Date.UTC(2026, 10, 28, 10, 0, 0, 123)],
    ["one fraction digit", "2026-11-28T10:00:00.5Z", Date.UTC(2026, 10, 28, 10, 0, 0, 500)],
    ["whole seconds", "2026-11-28T10:00:00Z", Date.UTC(2026, 10, 28, 10, 0, 0)],
    ["an offset", "2026-11-28T11:00:00.25+01:00", Date.UTC(2026, 10, 28, 10, 0, 0, 250)],
    ["Go's zero time", "0001-01-01T00:00:00Z", undefined],
    ["junk in the fraction", "2026-11-28T10:00:00.12xZ", undefined],
    ["empty", "", undefined],
    ["absent", undefined, undefined],
  ])("%s", (_, text, ms) => {
    expect(goTimeMs(text)).toBe(ms);
  });
});

describe("utcTimeMsFast: LastUpdate read by hand", () => {
  it.each<[string, string, number | undefined]>([
    ["nanoseconds", "2026-11-28T10:00:00.123456789Z", Date.UTC(2026, 10, 28, 10, 0, 0, 123)],
    ["milliseconds", "2026-11-28T23:59:59.999Z", Date.UTC(2026, 10, 28, 23, 59, 59, 999)],
    ["two fraction digits", "2026-01-01T00:00:00.05Z", Date.UTC(2026, 0, 1, 0, 0, 0, 50)],
    ["one fraction digit", "2026-11-28T10:00:00.5Z", Date.UTC(2026, 10, 28, 10, 0, 0, 500)],
    ["whole seconds", "2026-11-28T10:00:00Z", Date.UTC(2026, 10, 28, 10, 0, 0)],
    ["year 100", "0100-02-03T04:05:06Z", Date.parse("0100-02-03T04:05:06.000Z")],
    ["a dot and no digits", "2026-11-28T10:00:00.Z", undefined],
    ["junk in the fraction", "2026-11-28T10:00:00.12xZ", undefined],
    ["a comma for the dot", "2026-11-28T10:00:00,5Z", undefined],
    ["an offset (the general way)", "2026-11-28T11:00:00.25+01:00", undefined],
    ["day 29 (the general way)", "2026-02-29T10:00:00Z", undefined],
    ["day 31 (the general way)", "2026-01-31T10:00:00Z", undefined],
    ["month 13", "2026-13-01T10:00:00Z", undefined],
    ["hour 24", "2026-11-28T24:00:00Z", undefined],
    ["leap second", "2026-12-31T23:59:60Z", undefined],
    ["year 99 (Date.UTC reads it as 1999)", "0099-01-01T00:00:00Z", undefined],
    ["a sign in a field", "2026-+1-28T10:00:00Z", undefined],
    ["lower-case z", "2026-11-28T10:00:00z", undefined],
    ["a space for T", "2026-11-28 10:00:00Z", undefined],
    ["too short", "2026-11-28T10:00Z", undefined],
  ])("%s", (_, text, ms) => {
    expect(utcTimeMsFast(text)).toBe(ms);
  });

  it("reads what the general way reads, wherever it answers", () => {
    const pick = <T>(xs: readonly T[], i: number) => xs[i % xs.length]!;
    const years = ["0001", "0099", "0100", "1969", "1970", "2026", "2400", "9999", "20x6"];
    const twos = ["00", "01", "09", "12", "13", "23", "24", "28", "29", "30", "31", "59", "60", "99", "1a"];
    const fractions = ["", ".", ".0", ".5", ".05", ".123", ".1234", ".123456789", ".12x", "..1"];
    const ends = ["Z", "z", "+00:00", "-01:30", ""];
    let answered = 0;
    for (let i = 0; i < 20_000; i++) {
      const text = `${pick(years, i)}-${pick(twos, i * 7 + 1)}-${pick(twos, i * 3 + 2)}T${pick(twos, i * 5)}:${pick(twos, i * 11 + 3)}:${pick(twos, i * 13 + 4)}${pick(fractions, i * 17)}${pick(ends, i * 19)}`;
      const fast = utcTimeMsFast(text);
      if (fast === undefined) continue;
      answered++;
      expect(fast, text).toBe(goTimeMsParsed(text));
      expect(goTimeMs(text), text).toBe(fast);
    }
    expect(answered).toBeGreaterThan(100);
  });
});

describe("headerValue: a header of Go's canonical map", () => {
  it.each<[string, Record<string, string[]>, string | undefined]>([
    ["canonical name", { Authorization: ["Bearer a"] }, "Bearer a"],
    ["another case", { authorization: ["Bearer b"] }, "Bearer b"],
    ["the first of several values", { Authorization: ["Bearer c", "Bearer d"] }, "Bearer c"],
    ["absent", { "Content-Type": ["application/json"] }, undefined],
  ])("%s", (_, headers, value) => {
    expect(headerValue(headers, "Authorization")).toBe(value);
  });
});
