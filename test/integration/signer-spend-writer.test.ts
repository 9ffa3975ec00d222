// The remote signers' spend written behind from a thread of its own (SQLite; the API thread only
// hands a batch over): the thread's answers are the store's, a payment the ledger has flushed
// survives the API process being killed (kill -9) and is read back by the next one, a thread that
// dies fails its batch (retried by the ledger) and the next write starts another, and on both
// backends the ledger's spend holds across a restart.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { batchResult, type SignerSpendRecord } from "../../src/api/delivery/store/signer-spend.ts";
import { SqliteSpendWriter, sqliteSpendWriterFor } from "../../src/api/delivery/store/sqlite-spend-writer.ts";
import { SqliteDeliveryStore } from "../../src/api/delivery/store/sqlite-store.ts";
import { SpendLedger } from "../../src/api/signer-auth/spend-ledger.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { BACKENDS, storeFixture } from "./support/delivery-stores.ts";

const fixture = storeFixture();
const dir = mkdtempSync(path.join(os.tmpdir(), "signer-spend-writer-"));
afterAll(async () => {
  await fixture.cleanup();
  rmSync(dir, { recursive: true, force: true });
});
let n = 0;
const sqliteFile = () => path.join(dir, `store-${++n}.sqlite`);

const T0 = Date.parse("2026-11-28T10:00:00Z");
const DAY = "2026-11-28";
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
const spend = (stateId: string, spent: bigint, added: bigint) => ({
  stateId,
  start: { at: T0, seq: 0 },
  spent,
  added,
});
const BIG = 10n ** 21n;

describe("SqliteSpendWriter", () => {
  it("answers from its thread what the store's own connection answers for the same batches", async () => {
    const batches = [
      [rec(), rec({ stateId: "s2", spent: BIG }), rec({ spent: 250n, at: T0 + 1 })],
      // An older, smaller count and another tenant's claim on s1: nothing added, the stored row wins.
      [rec({ spent: 50n }), rec({ tenant: "beta", spent: 900n }), rec({ stateId: "s3", tenant: "beta" })],
    ];
    const threaded = new SqliteDeliveryStore(sqliteFile());
    const direct = new SqliteDeliveryStore(sqliteFile());
    const writer = new SqliteSpendWriter(threaded.file);
    try {
      for (const batch of batches) {
        const fromThread = await writer.write(batch);
        expect(fromThread).toEqual(batchResult(batch, await direct.recordSignerSpend(batch)));
      }
      const last = await writer.write([rec({ tenant: "beta", spent: 1n })]);
      expect(last.sessions).toEqual([
        { signer: "pay/signer", stateId: "s1", tenant: "acme", startedAt: T0, startSeq: 0, spent: 250n },
      ]);
      expect(await threaded.loadSignerSpend(DAY, 0)).toEqual(await direct.loadSignerSpend(DAY, 0));
      expect((await threaded.loadSignerSpend(DAY, 0)).days).toContainEqual({
        signer: "pay/signer",
        tenant: "acme",
        day: DAY,
        spent: 250n + BIG,
      });
    } finally {
      await writer.close();
      await threaded.close();
      await direct.close();
    }
  });

  it("fails the batch of a thread that died, and the next write starts another thread", async () => {
    const store = new SqliteDeliveryStore(sqliteFile());
    const writer = new SqliteSpendWriter(store.file, { busyTimeoutMs: 1_000 });
    // Another connection holds the write lock: the batch cannot commit before the thread dies.
    const holder = new DatabaseSync(store.file, { timeout: 5_000 });
    try {
      await writer.write([rec()]);
      holder.exec("BEGIN IMMEDIATE");
      const crashed = writer.write([rec({ stateId: "lost-with-the-thread" })]);
      await writer.crashThreadForTest();
      await expect(crashed).rejects.toThrow(/signer spend writer thread exited/);
      holder.exec("ROLLBACK");
      await writer.write([rec({ stateId: "s2", spent: 40n })]);
      expect((await store.loadSignerSpend(DAY, 0)).days).toEqual([
        { signer: "pay/signer", tenant: "acme", day: DAY, spent: 140n },
      ]);
    } finally {
      if (holder.isTransaction) holder.exec("ROLLBACK");
      holder.close();
      await writer.close();
      await store.close();
    }
  });

  it("keeps what the ledger flushed when the process is killed (kill -9): the next one reads it back", async () => {
    const file = sqliteFile();
    const src = (p: string) => JSON.stringify(pathToFileURL(path.resolve(p)).href);
    // An API's ledger in a process of its own: it records, waits until flushed, says so, and is killed.
    const script = `
      import { SqliteDeliveryStore } from ${src("src/api/delivery/store/sqlite-store.ts")};
      import { SqliteSpendWriter } from ${src("src/api/delivery/store/sqlite-spend-writer.ts")};
      import { SpendLedger } from ${src("src/api/signer-auth/spend-ledger.ts")};
      const store = new SqliteDeliveryStore(${JSON.stringify(file)});
      const writer = new SqliteSpendWriter(store.file);
      // A write that fails would leave flushed() resolved with nothing written: say so, and fail.
      const log = { warn: (m, f) => console.error("not written:", m, JSON.stringify(f)) };
      const ledger = new SpendLedger(store, { now: () => ${T0}, write: (b) => writer.write(b), log });
      const spend = (stateId, spent, added) => ({ stateId, start: { at: ${T0}, seq: 0 }, spent, added });
      ledger.record("pay/s", "acme", spend("s1", 100n, 100n), ${T0});
      ledger.record("pay/s", "acme", spend("s1", 250n, 150n), ${T0} + 1000);
      ledger.record("pay/s", "acme", spend("s2", ${BIG}n, ${BIG}n), ${T0} + 1000);
      await ledger.flushed();
      console.log("flushed");
      setInterval(() => {}, 1000);
    `;
    // A file, not -e: a worker thread inherits the process's flags (--input-type would refuse its .ts file).
    const scriptFile = path.join(dir, "ledger-process.mjs");
    writeFileSync(scriptFile, script);
    const child = spawn(process.execPath, [scriptFile], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      out += c.toString();
    });
    try {
      await waitFor(
        "the ledger process to flush",
        async () => out.includes("flushed"),
        30_000,
        () => out,
      );
    } finally {
      child.kill("SIGKILL");
      await once(child, "exit");
    }
    expect(child.signalCode).toBe("SIGKILL");
    expect(out).not.toMatch(/not written/);
    const store = new SqliteDeliveryStore(file);
    const ledger = new SpendLedger(store, { now: () => T0 + 2_000 });
    try {
      await ledger.load();
      expect(ledger.view("pay/s", "acme", "s1", T0 + 2_000)).toEqual({
        spentToday: 250n + BIG,
        session: { tenant: "acme", start: { at: T0, seq: 0 }, spent: 250n },
      });
    } finally {
      await ledger.close();
      await store.close();
    }
  });
});

describe.each(BACKENDS)("the spend ledger on %s", (backend) => {
  it("writes behind as the API runs it and reads the spend back after a restart", async () => {
    const config = await fixture.newConfig(backend);
    const before = await fixture.open(config);
    // As the API opens it: a writer thread for SQLite, the store's own write for PostgreSQL.
    const writer = sqliteSpendWriterFor(before);
    expect(writer !== undefined).toBe(backend === "sqlite");
    const first = new SpendLedger(before, {
      now: () => T0,
      ...(writer ? { write: (b) => writer.write(b) } : {}),
    });
    first.record("pay/s", "acme", spend("s1", 100n, 100n), T0);
    first.record("pay/s", "acme", spend("s1", 250n, 150n), T0 + 1_000);
    first.record("pay/s", "beta", spend("s2", 40n, 40n), T0 + 1_000);
    await first.close();
    await writer?.close();

    const after = await fixture.open(config);
    const second = new SpendLedger(after, { now: () => T0 + 2_000 });
    await second.load();
    expect(second.view("pay/s", "acme", "s1", T0 + 2_000)).toEqual({
      spentToday: 250n,
      session: { tenant: "acme", start: { at: T0, seq: 0 }, spent: 250n },
    });
    expect(second.view("pay/s", "beta", undefined, T0 + 2_000).spentToday).toBe(40n);
    await second.close();
  });
});
