import { describe, expect, it } from "vitest";
import { goTimeMs, headerValue, parseSignerAuthBodyFast, SignerAuthBodySchema } from "./payment-state.ts";

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
