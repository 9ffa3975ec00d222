import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteDeliveryStore } from "../delivery/store/sqlite-store.ts";
import { SpendLedger } from "./spend-ledger.ts";

const NOW = Date.parse("2026-11-28T10:00:00Z");
const spend = (stateId: string, spent: bigint, added: bigint) => ({
  stateId,
  start: { at: NOW, seq: 0 },
  spent,
  added,
});

describe("SpendLedger", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const file = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "spend-ledger-"));
    dirs.push(dir);
    return path.join(dir, "delivery.sqlite");
  };

  it("counts a payment at once, before the store has it", () => {
    const store = new SqliteDeliveryStore(":memory:");
    const ledger = new SpendLedger(store, { now: () => NOW });
    ledger.record("pay/s", "acme", spend("s1", 100n, 100n), NOW);
    ledger.record("pay/s", "acme", spend("s2", 40n, 40n), NOW);
    expect(ledger.view("pay/s", "acme", "s1", NOW)).toEqual({
      spentToday: 140n,
      session: { tenant: "acme", start: { at: NOW, seq: 0 }, spent: 100n },
    });
    // Another signer, tenant or day is another count.
    expect(ledger.view("pay/other", "acme", undefined, NOW).spentToday).toBe(0n);
    expect(ledger.view("pay/s", "beta", undefined, NOW).spentToday).toBe(0n);
    expect(ledger.view("pay/s", "acme", undefined, NOW + 86_400_000).spentToday).toBe(0n);
    return ledger.close().then(() => store.close());
  });

  it("starts from what the store kept: budgets hold across a restart", async () => {
    const f = file();
    const before = new SqliteDeliveryStore(f);
    const first = new SpendLedger(before, { now: () => NOW });
    first.record("pay/s", "acme", spend("s1", 100n, 100n), NOW);
    first.record("pay/s", "acme", spend("s1", 250n, 150n), NOW + 1_000);
    await first.close();
    await before.close();

    const after = new SqliteDeliveryStore(f);
    const second = new SpendLedger(after, { now: () => NOW + 2_000 });
    await second.load();
    expect(second.view("pay/s", "acme", "s1", NOW + 2_000)).toEqual({
      spentToday: 250n,
      session: { tenant: "acme", start: { at: NOW, seq: 0 }, spent: 250n },
    });
    await second.close();
    await after.close();
  });

  it("takes the store's totals and rows once written: another replica's larger count wins", async () => {
    const store = new SqliteDeliveryStore(":memory:");
    const other = new SpendLedger(store, { now: () => NOW });
    other.record("pay/s", "acme", spend("s1", 500n, 500n), NOW);
    await other.close();
    // This replica has not seen the other's write: it counts its own smaller view at first.
    const ledger = new SpendLedger(store, { now: () => NOW });
    ledger.record("pay/s", "acme", spend("s1", 100n, 100n), NOW);
    expect(ledger.view("pay/s", "acme", "s1", NOW)).toEqual({
      spentToday: 100n,
      session: { tenant: "acme", start: { at: NOW, seq: 0 }, spent: 100n },
    });
    await ledger.flushed();
    // Written: nothing pending, the day as stored, the session as the store holds it.
    expect(ledger.view("pay/s", "acme", "s1", NOW)).toEqual({
      spentToday: 500n,
      session: { tenant: "acme", start: { at: NOW, seq: 0 }, spent: 500n },
    });
    await ledger.close();
    await store.close();
  });
});
