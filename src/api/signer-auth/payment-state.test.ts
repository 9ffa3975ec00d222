import { describe, expect, it } from "vitest";
import { parseSignerAuthBodyFast, SignerAuthBodySchema } from "./payment-state.ts";

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
