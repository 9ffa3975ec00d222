import { describe, expect, it } from "vitest";
import { batchResult, inLockOrder, mergeSession, type SignerSpendRecord, utcDay } from "./signer-spend.ts";

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

describe("batchResult", () => {
  const stored = (r: SignerSpendRecord, over: Partial<SignerSpendRecord> = {}) => {
    const { signer, stateId, tenant, startedAt, startSeq, spent } = { ...r, ...over };
    return { signer, stateId, tenant, startedAt, startSeq, spent };
  };
  it.each<[string, SignerSpendRecord[], Partial<SignerSpendRecord>[], bigint[], number]>([
    ["sessions stored as recorded: left out", [rec(), rec({ stateId: "s2" })], [{}, {}], [100n, 200n], 0],
    ["a larger stored count (another replica): the store's row", [rec()], [{ spent: 150n }], [150n], 1],
    ["another tenant's session: the store's row", [rec()], [{ tenant: "beta" }], [0n], 1],
    ["an earlier start kept: the store's row", [rec()], [{ startedAt: 500 }], [100n], 1],
    [
      "a session twice: judged by its last record",
      [rec({ spent: 50n }), rec({ spent: 100n })],
      [{ spent: 80n }, { spent: 100n }],
      [80n, 100n],
      0,
    ],
  ])("%s", (_, batch, rows, totals, differing) => {
    const results = batch.map((r, i) => ({ session: stored(r, rows[i]), dayTotal: totals[i]! }));
    const out = batchResult(batch, results);
    expect(out.sessions).toHaveLength(differing);
    if (differing) expect(out.sessions[0]).toEqual(results.at(-1)!.session);
    // Each tenant day once, at its largest total.
    const days = new Map<string, bigint>();
    results.forEach((r) => {
      const k = `${r.session.tenant} ${batch[0]!.day}`;
      if ((days.get(k) ?? -1n) < r.dayTotal) days.set(k, r.dayTotal);
    });
    expect(out.days.map((d) => [`${d.tenant} ${d.day}`, d.spent])).toEqual([...days]);
  });
});
