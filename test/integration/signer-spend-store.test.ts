// The remote-signer spend tables of the delivery store, on both backends: a session's spend only
// grows, the tenant's day grows by what its sessions grew (a record seen twice, or an older view
// from another replica, adds nothing), everything is read back after a reopen (an API restart),
// and retention removes old rows.
import { afterAll, describe, expect, it } from "vitest";
import type { SignerSpendRecord } from "../../src/api/delivery/store/signer-spend.ts";
import { DEFAULT_RETENTION } from "../../src/api/delivery/store/types.ts";
import { BACKENDS, storeFixture } from "./support/delivery-stores.ts";

const fixture = storeFixture();
afterAll(() => fixture.cleanup());

const T0 = Date.parse("2026-11-28T10:00:00Z");
const DAY = "2026-11-28";
// Past 2^63: wei amounts do not fit an int64.
const BIG = 10n ** 21n;

const rec = (r: Partial<SignerSpendRecord> = {}): SignerSpendRecord => ({
  signer: "pay/signer",
  stateId: "s1",
  tenant: "acme",
  startedAt: T0,
  startSeq: 0,
  spent: 100n,
  day: DAY,
  at: T0,
  ...r,
});

describe.each(BACKENDS)("signer spend on %s", (backend) => {
  it("grows sessions and days by what each session grew, once", async () => {
    const store = await fixture.open(await fixture.newConfig(backend));
    const first = await store.recordSignerSpend([rec(), rec({ stateId: "s2", spent: 50n })]);
    // Each record answers its day's total after the batch.
    expect(first.map((r) => r.dayTotal)).toEqual([150n, 150n]);
    // The same count again, an older smaller one, and a larger one in one batch.
    const second = await store.recordSignerSpend([
      rec({ at: T0 + 1 }),
      rec({ spent: 80n, at: T0 + 2 }),
      rec({ spent: 130n, startedAt: T0 + 9_000, at: T0 + 3 }),
    ]);
    expect(second.map((r) => r.dayTotal)).toEqual([180n, 180n, 180n]);
    // The first start stays.
    expect(second[2]!.session).toMatchObject({ startedAt: T0, startSeq: 0, spent: 130n, tenant: "acme" });
    // Another tenant presenting the session adds nothing to either.
    const foreign = await store.recordSignerSpend([rec({ tenant: "mallory", spent: 10_000n })]);
    expect(foreign[0]!.session.tenant).toBe("acme");
    expect(foreign[0]!.dayTotal).toBe(180n);
  });

  it("keeps days apart per tenant, signer and UTC day, and amounts past 2^63", async () => {
    const store = await fixture.open(await fixture.newConfig(backend));
    const out = await store.recordSignerSpend([
      rec({ spent: BIG }),
      rec({ stateId: "b1", tenant: "beta", spent: 7n }),
      rec({ stateId: "x1", signer: "pay/other", spent: 9n }),
      rec({ stateId: "n1", day: "2026-11-29", spent: 3n }),
    ]);
    expect(out.map((r) => r.dayTotal)).toEqual([BIG, 7n, 9n, 3n]);
    expect((await store.recordSignerSpend([rec({ spent: BIG + 1n })]))[0]!.dayTotal).toBe(BIG + 1n);
  });

  it("reads the days and recent sessions back after a reopen", async () => {
    const config = await fixture.newConfig(backend);
    const before = await fixture.open(config);
    await before.recordSignerSpend([
      rec({ spent: 500n }),
      rec({ stateId: "old", spent: 1n, at: T0 - 3_600_000 }),
      rec({ stateId: "y", day: "2026-11-27", spent: 2n, at: T0 - 3_600_000 }),
    ]);
    await before.close();
    const after = await fixture.open(config);
    const snap = await after.loadSignerSpend(DAY, T0 - 60_000);
    expect(snap.days).toEqual([{ signer: "pay/signer", tenant: "acme", day: DAY, spent: 501n }]);
    expect(snap.sessions).toEqual([
      { signer: "pay/signer", stateId: "s1", tenant: "acme", startedAt: T0, startSeq: 0, spent: 500n },
    ]);
  });

  it("drops sessions after two days and days after eight with retention", async () => {
    const store = await fixture.open(await fixture.newConfig(backend));
    await store.recordSignerSpend([
      rec({ spent: 5n }),
      rec({ stateId: "late", spent: 6n, at: T0 + 3 * 86_400_000 }),
    ]);
    await store.prune(T0 + 3 * 86_400_000, DEFAULT_RETENTION);
    let snap = await store.loadSignerSpend("2000-01-01", 0);
    expect(snap.sessions.map((s) => s.stateId)).toEqual(["late"]);
    expect(snap.days).toHaveLength(1);
    // The day was last paid at T0 + 3 days.
    await store.prune(T0 + 12 * 86_400_000, DEFAULT_RETENTION);
    snap = await store.loadSignerSpend("2000-01-01", 0);
    expect(snap).toEqual({ days: [], sessions: [] });
  });
});
