// The SQLite store's writes (the queue's enqueue, claim, settle, and the rest) run in a thread of their own
// (sqlite-queue-writer.ts): its answers are the ones the store's own connection gives for the same
// calls (a `:memory:` store runs them in-process), a closed store answers none, and a thread that
// dies fails the call it had (the caller retries) while the next call starts another thread.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import type { ClaimedDelivery, LogEntry } from "../../src/api/delivery/model.ts";
import { SqliteDeliveryStore } from "../../src/api/delivery/store/sqlite-store.ts";
import type { DeliveryStore, EnqueueRequest, Settlement } from "../../src/api/delivery/store/types.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "delivery-queue-thread-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const sqliteFile = () => path.join(dir, `store-${++n}.sqlite`);

const T0 = 1_800_000_000_000;
const LEASE = 30_000;

const req = (id: string, webhookIds: string[], payload?: Record<string, unknown>): EnqueueRequest => ({
  event: { id, userId: "u1", projectId: "p1", kind: "stream.started", createdAt: T0, payload },
  webhookIds,
});

const log = (d: ClaimedDelivery, at: number, success: boolean): LogEntry => ({
  id: `log-${d.deliveryId}-${at}`,
  webhookId: d.webhookId,
  eventId: d.event.id,
  event: d.event.kind,
  createdAt: at,
  durationMs: 3,
  success,
  request: { url: "http://r/hook", method: "POST", headers: { "webhook-id": d.event.id }, body: "{}" },
  response: success ? { status: 200, statusText: "OK", body: "ok" } : undefined,
  error: success ? undefined : "HTTP 503",
});

const claim = (store: DeliveryStore, now: number) =>
  store.claim({ now, limit: 100, leaseMs: LEASE, owner: "test", skipWebhooks: ["w3"] });

/** A claimed delivery without its token (a thread's tokens name the thread). */
const untokened = ({ claimToken, ...d }: ClaimedDelivery) => ({ ...d, claimToken: typeof claimToken });

describe("the SQLite store's queue thread", () => {
  it("answers what the store's own connection answers for the same calls", async () => {
    const threaded = new SqliteDeliveryStore(sqliteFile());
    const direct = new SqliteDeliveryStore(":memory:");
    try {
      const run = async (store: DeliveryStore) => {
        const out: unknown[] = [];
        const batch = [req("e1", ["w1", "w2"], { n: 1 }), req("e2", ["w1", "w3"]), req("e1", ["w1"])];
        const enqueued = await store.enqueue(batch, T0, { owner: "test", leaseMs: LEASE, max: 2 });
        out.push(enqueued.map((r) => ({ ...r, leased: r.leased?.map(untokened) })));
        out.push(await store.enqueue([req("e2", ["w1"]), req("e3", ["w1"])], T0));
        const claimed = await claim(store, T0 + 1);
        out.push(claimed.map(untokened));
        const leased = enqueued[0]!.leased!;
        const settlements: Settlement[] = [
          {
            kind: "attempted",
            claim: { ...ref(leased[0]!), attemptsMade: 1 },
            next: { state: "delivered" },
            log: log(leased[0]!, T0 + 2, true),
          },
          {
            kind: "attempted",
            claim: { ...ref(claimed[0]!), attemptsMade: 1 },
            next: { state: "pending", at: T0 + 1_000 },
            log: log(claimed[0]!, T0 + 3, false),
            goneRevision: "r1",
          },
          { kind: "released", ...ref(claimed[1]!), at: T0 + 5 },
          { kind: "dropped", ...ref(leased[1]!), webhookId: leased[1]!.webhookId, reason: "test" },
        ];
        await store.settle(settlements, T0 + 4);
        out.push((await claim(store, T0 + 2_000)).map(untokened));
        out.push(await store.listLog("w1", 10), await store.facts("w1"), await store.queueStats());
        return out;
      };
      const ref = (d: ClaimedDelivery) => ({ deliveryId: d.deliveryId, claimToken: d.claimToken });
      const fromThread = await run(threaded);
      expect(fromThread).toEqual(await run(direct));
      // The answers carry what was asked: not all empty.
      expect(JSON.stringify(fromThread)).toContain('"payload":{"n":1}');
      expect((fromThread[4] as { items: unknown[] }).items).toHaveLength(2);
    } finally {
      await threaded.close();
      await direct.close();
    }
  });

  it("answers no call once closed (no thread starts again), as a closed connection", async () => {
    const store = new SqliteDeliveryStore(sqliteFile());
    await store.enqueue([req("e1", ["w1"])], T0);
    await store.close();
    await expect(store.enqueue([req("e2", ["w1"])], T0)).rejects.toThrow(/closed/);
    await expect(store.openStream("s1", T0, 1_000)).rejects.toThrow(/closed/);
    const reopened = new SqliteDeliveryStore(store.file);
    try {
      expect((await reopened.queueStats()).pending).toBe(1);
    } finally {
      await reopened.close();
    }
  });

  it("fails the call of a thread that died; the next call starts another, and a token of the dead one no longer settles", async () => {
    const store = new SqliteDeliveryStore(sqliteFile());
    // Another connection holds the write lock: the enqueue cannot commit before the thread dies.
    const holder = new DatabaseSync(store.file, { timeout: 5_000 });
    try {
      await store.enqueue([req("e1", ["w1"])], T0);
      const [first] = await claim(store, T0);
      expect(first?.event.id).toBe("e1");
      holder.exec("BEGIN IMMEDIATE");
      const crashed = store.enqueue([req("lost-with-the-thread", ["w1"])], T0);
      await store.crashQueueThreadForTest();
      await expect(crashed).rejects.toThrow(/delivery queue thread exited/);
      holder.exec("ROLLBACK");
      expect((await store.queueStats()).pending).toBe(1);
      // The lease ran out: the new thread's claim gets it again, under a token of its own.
      const [again] = await claim(store, T0 + LEASE);
      expect(again?.deliveryId).toBe(first!.deliveryId);
      expect(again?.claimToken).not.toBe(first!.claimToken);
      // The old lease's outcome changes nothing (it is still logged); the new one settles it.
      await store.settle(
        [
          {
            kind: "attempted",
            claim: { deliveryId: first!.deliveryId, claimToken: first!.claimToken, attemptsMade: 1 },
            next: { state: "delivered" },
            log: log(first!, T0 + LEASE, true),
          },
        ],
        T0 + LEASE,
      );
      expect((await store.queueStats()).pending).toBe(1);
      await store.settle(
        [
          {
            kind: "attempted",
            claim: { deliveryId: again!.deliveryId, claimToken: again!.claimToken, attemptsMade: 1 },
            next: { state: "delivered" },
            log: log(again!, T0 + LEASE + 1, true),
          },
        ],
        T0 + LEASE + 1,
      );
      expect((await store.queueStats()).pending).toBe(0);
      expect(await store.countLog("w1")).toBe(2);
    } finally {
      if (holder.isTransaction) holder.exec("ROLLBACK");
      holder.close();
      await store.close();
    }
  });
});
