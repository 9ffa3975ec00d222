import { describe, expect, it } from "vitest";
import { inLockOrder, mergeSession, type SignerSpendRecord, utcDay } from "./signer-spend.ts";

const rec = (r: Partial<SignerSpendRecord> = {}): SignerSpendRecord => ({
  signer: "pay/signer",
  stateId: "s1",
  tenant: "acme",
  startedAt: 1_000,
  startSeq: 0,
  spent: 100n,
  day: "2026-11-28",
  at: 2_000,
  ...r,
});

describe("mergeSession", () => {
  it.each<[string, Parameters<typeof mergeSession>[0], SignerSpendRecord, bigint, bigint, number]>([
    ["a new session: all of it is new", undefined, rec(), 100n, 100n, 1_000],
    [
      "a larger count: the difference",
      { ...rec(), spent: 60n },
      rec({ spent: 100n, startedAt: 5_000 }),
      40n,
      100n,
      1_000,
    ],
    ["an older, smaller count: nothing", { ...rec(), spent: 150n }, rec(), 0n, 150n, 1_000],
    [
      "another tenant's record: nothing",
      { ...rec(), spent: 10n },
      rec({ tenant: "other", spent: 500n }),
      0n,
      10n,
      1_000,
    ],
  ])("%s", (_, stored, r, grew, spent, startedAt) => {
    const m = mergeSession(stored && { ...stored }, r);
    expect(m.grew).toBe(grew);
    expect(m.session.spent).toBe(spent);
    expect(m.session.startedAt).toBe(startedAt);
  });

  it("orders a batch by signer and session, keeping each session's records in order", () => {
    const batch = [rec({ stateId: "b", spent: 1n }), rec({ stateId: "a" }), rec({ stateId: "b", spent: 2n })];
    expect(inLockOrder(batch).map((r) => `${r.stateId}${r.spent}`)).toEqual(["a100", "b1", "b2"]);
  });

  it("names the UTC day", () => {
    expect(utcDay(Date.parse("2026-11-28T23:59:59.999Z"))).toBe("2026-11-28");
    expect(utcDay(Date.parse("2026-11-29T00:30:00+01:00"))).toBe("2026-11-28");
  });

  it("names each day right when calls cross midnight, go back, or jump (the last day is remembered)", () => {
    const days = [
      "2026-11-28T23:59:59.999Z",
      "2026-11-29T00:00:00.000Z",
      "2026-11-28T12:00:00Z",
      "1970-01-01T00:00:00Z",
      "1969-12-31T23:59:59.999Z",
      "2026-11-29T23:59:59.999Z",
      "2026-11-30T00:00:00Z",
    ].map((t) => utcDay(Date.parse(t)));
    expect(days).toEqual([
      "2026-11-28",
      "2026-11-29",
      "2026-11-28",
      "1970-01-01",
      "1969-12-31",
      "2026-11-29",
      "2026-11-30",
    ]);
  });
});
