// One suite, both delivery store backends (SQLite file, PostgreSQL server): idempotent events,
// leased claims that never hand one delivery to two claimers, settlements, the log and its
// paging, the webhook facts, retention and migrations.
import pg from "pg";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import type { LogEntry, NewEvent } from "../../src/api/delivery/model.ts";
import { openDeliveryStore } from "../../src/api/delivery/store/open-store.ts";
import { POSTGRES_MIGRATIONS } from "../../src/api/delivery/store/postgres-schema.ts";
import {
  DEFAULT_RETENTION,
  type DeliveryStore,
  type EnqueueRequest,
  type Settlement,
} from "../../src/api/delivery/store/types.ts";
import { BACKENDS, storeFixture } from "./support/delivery-stores.ts";

const fixture = storeFixture();
afterAll(() => fixture.cleanup());

const T0 = 1_800_000_000_000;
const LEASE = 30_000;

function event(id: string, over: Partial<NewEvent> = {}): NewEvent & { id: string } {
  return {
    id,
    userId: "u1",
    projectId: "p1",
    kind: "stream.started",
    streamId: "s1",
    createdAt: T0,
    ...over,
  };
}

function req(id: string, webhookIds: string[], over: Partial<NewEvent> = {}): EnqueueRequest {
  return { event: event(id, over), webhookIds };
}

function logEntry(webhookId: string, createdAt: number, over: Partial<LogEntry> = {}): LogEntry {
  return {
    id: `log-${webhookId}-${createdAt}-${Math.random().toString(36).slice(2)}`,
    webhookId,
    eventId: "e1",
    event: "stream.started",
    createdAt,
    durationMs: 12,
    success: true,
    request: { url: "http://r/hook", method: "POST", headers: { "webhook-id": "e1" }, body: '{"id":"e1"}' },
    response: { status: 200, statusText: "OK", body: "fine" },
    ...over,
  };
}

const claimAll = (store: DeliveryStore, now: number, limit = 1000, skipWebhooks: string[] = []) =>
  store.claim({ now, limit, leaseMs: LEASE, owner: "test", skipWebhooks });

describe.each(BACKENDS)("delivery store on %s", (backend) => {
  const open = async () => fixture.open(await fixture.newConfig(backend));

  it("records an event once per tenant and id, and queues one delivery per matched webhook", async () => {
    const store = await open();
    const first = await store.enqueue([req("e1", ["w1", "w2", "w1"])], T0);
    const again = await store.enqueue([req("e1", ["w1", "w3"])], T0 + 1);
    const otherTenant = await store.enqueue([req("e1", ["w9"], { userId: "u2" })], T0 + 2);
    const sameBatch = await store.enqueue([req("e2", ["w1"]), req("e2", ["w1"])], T0 + 3);
    expect(first).toEqual([{ id: "e1", created: true }]);
    expect(again).toEqual([{ id: "e1", created: false }]);
    expect(otherTenant).toEqual([{ id: "e1", created: true }]);
    expect(sameBatch).toEqual([
      { id: "e2", created: true },
      { id: "e2", created: false },
    ]);
    const claimed = await claimAll(store, T0 + 10);
    expect(claimed.map((c) => `${c.event.userId}/${c.event.id}->${c.webhookId}`).sort()).toEqual([
      "u1/e1->w1",
      "u1/e1->w2",
      "u1/e2->w1",
      "u2/e1->w9",
    ]);
    const c = claimed.find((x) => x.webhookId === "w2")!;
    expect(c.attempts).toBe(0);
    expect(c.event).toEqual({
      id: "e1",
      userId: "u1",
      projectId: "p1",
      kind: "stream.started",
      streamId: "s1",
      stream: undefined,
      payload: undefined,
      createdAt: T0,
    });
    expect(await store.queueStats()).toEqual({ pending: 4, oldestPendingCreatedAt: T0 });
  });

  it("keeps an event's stream object and payload", async () => {
    const store = await open();
    await store.enqueue(
      [req("e1", ["w1"], { stream: { id: "s1", name: "cam" }, payload: { a: [1, "x"] } })],
      T0,
    );
    const [c] = await claimAll(store, T0);
    expect(c?.event.stream).toEqual({ id: "s1", name: "cam" });
    expect(c?.event.payload).toEqual({ a: [1, "x"] });
  });

  it("does not hand a leased delivery out again until its lease runs out", async () => {
    const store = await open();
    await store.enqueue([req("e1", ["w1"])], T0);
    expect(await claimAll(store, T0)).toHaveLength(1);
    expect(await claimAll(store, T0 + LEASE - 1)).toHaveLength(0);
    const reclaimed = await claimAll(store, T0 + LEASE);
    expect(reclaimed).toHaveLength(1);
  });

  it("leases up to the asked number of an enqueue's new deliveries to the enqueuer, in batch order, and no one claims them before the lease runs out", async () => {
    const store = await open();
    const lease = { owner: "enqueuer", leaseMs: LEASE, max: 3 };
    await store.settle(
      [{ kind: "attempted", next: { state: "failed" }, log: logEntry("w2", T0), goneRevision: "7" }],
      T0,
    );
    const results = await store.enqueue(
      [
        req("e1", ["w1", "w2"], { payload: { a: 1 } }),
        req("e1", ["w1"]),
        req("e2", ["w1", "w3"]),
        req("e3", ["w1"]),
      ],
      T0,
      lease,
    );
    expect(results.map((r) => [r.id, r.created, r.leased?.map((d) => d.webhookId).sort()])).toEqual([
      ["e1", true, ["w1", "w2"]],
      ["e1", false, undefined],
      ["e2", true, ["w1"]],
      ["e3", true, undefined],
    ]);
    const leased = results.flatMap((r) => r.leased ?? []);
    expect(new Set(leased.map((d) => d.deliveryId)).size).toBe(3);
    const first = leased.find((d) => d.webhookId === "w1")!;
    expect(first).toMatchObject({ attempts: 0, createdAt: T0, goneRevision: undefined });
    expect(first.event).toMatchObject({ id: "e1", userId: "u1", payload: { a: 1 }, createdAt: T0 });
    expect(leased.find((d) => d.webhookId === "w2")?.goneRevision).toBe("7");
    // Not leased: e2->w3 and e3->w1, claimable at once; the leased three only once their lease ran out.
    expect((await claimAll(store, T0 + 1)).map((c) => `${c.event.id}->${c.webhookId}`).sort()).toEqual([
      "e2->w3",
      "e3->w1",
    ]);
    expect(await claimAll(store, T0 + LEASE - 1)).toHaveLength(0);
    const expired = await claimAll(store, T0 + LEASE);
    expect(expired.map((c) => c.deliveryId).sort()).toEqual(leased.map((d) => d.deliveryId).sort());
    // The expired lease's token no longer settles: the new holder's does.
    await store.settle(
      [{ kind: "released", deliveryId: first.deliveryId, claimToken: first.claimToken, at: T0 }],
      T0,
    );
    expect((await store.queueStats()).pending).toBe(5);
    expect(await claimAll(store, T0 + LEASE)).toHaveLength(0);
  });

  it("settles a delivery leased at enqueue with that lease's token; an enqueue leasing nothing is a plain enqueue", async () => {
    const store = await open();
    const [r] = await store.enqueue([req("e1", ["w1"])], T0, { owner: "enqueuer", leaseMs: LEASE, max: 1 });
    const d = r!.leased![0]!;
    await store.settle(
      [
        {
          kind: "attempted",
          claim: { deliveryId: d.deliveryId, claimToken: d.claimToken, attemptsMade: 1 },
          next: { state: "delivered" },
          log: logEntry("w1", T0 + 5),
        },
      ],
      T0 + 5,
    );
    expect((await store.queueStats()).pending).toBe(0);
    expect(await store.countLog("w1")).toBe(1);
    expect(
      await store.enqueue([req("e2", ["w1"])], T0, { owner: "enqueuer", leaseMs: LEASE, max: 0 }),
    ).toEqual([{ id: "e2", created: true }]);
    expect(await claimAll(store, T0)).toHaveLength(1);
  });

  it("never gives one delivery to two concurrent claimers", async () => {
    const store = await open();
    const batch = Array.from({ length: 300 }, (_, i) => req(`e${i}`, ["w1", "w2"]));
    await store.enqueue(batch, T0);
    const claims = await Promise.all(Array.from({ length: 6 }, () => claimAll(store, T0 + 1, 70)));
    const ids = claims.flat().map((c) => c.deliveryId);
    expect(new Set(ids).size).toBe(ids.length);
    const rest = await claimAll(store, T0 + 2);
    expect(ids.length + rest.length).toBe(600);
    expect(new Set([...ids, ...rest.map((c) => c.deliveryId)]).size).toBe(600);
  });

  it("skips the webhooks a worker has enough of in flight", async () => {
    const store = await open();
    await store.enqueue([req("e1", ["busy", "idle"])], T0);
    const claimed = await claimAll(store, T0, 10, ["busy"]);
    expect(claimed.map((c) => c.webhookId)).toEqual(["idle"]);
  });

  it("settles: delivered and failed leave the queue, a retry comes back at its time, a release without counting an attempt", async () => {
    const store = await open();
    await store.enqueue([req("d", ["w1"]), req("f", ["w1"]), req("r", ["w1"]), req("x", ["w1"])], T0);
    const claimed = await claimAll(store, T0);
    const byEvent = new Map(claimed.map((c) => [c.event.id, c]));
    const attempted = (id: string, next: Extract<Settlement, { kind: "attempted" }>["next"]): Settlement => {
      const c = byEvent.get(id)!;
      return {
        kind: "attempted",
        claim: { deliveryId: c.deliveryId, claimToken: c.claimToken, attemptsMade: 1 },
        next,
        log: logEntry("w1", T0 + 1, { eventId: id, success: next.state === "delivered" }),
      };
    };
    const x = byEvent.get("x")!;
    await store.settle(
      [
        attempted("d", { state: "delivered" }),
        attempted("f", { state: "failed" }),
        attempted("r", { state: "pending", at: T0 + 5_000 }),
        { kind: "released", deliveryId: x.deliveryId, claimToken: x.claimToken, at: T0 + 2_000 },
      ],
      T0 + 1,
    );
    expect(await claimAll(store, T0 + 1_999)).toEqual([]);
    const released = await claimAll(store, T0 + 2_000);
    expect(released.map((c) => [c.event.id, c.attempts])).toEqual([["x", 0]]);
    const retried = await claimAll(store, T0 + 5_000);
    expect(retried.map((c) => [c.event.id, c.attempts])).toEqual([["r", 1]]);
    expect(await claimAll(store, T0 + 10 * LEASE)).toHaveLength(2); // x and r again after their leases
    expect(await store.countLog("w1")).toBe(3);
    expect((await store.queueStats()).pending).toBe(2);
  });

  it("a settlement whose lease was lost changes no delivery but is still logged", async () => {
    const store = await open();
    await store.enqueue([req("e1", ["w1"])], T0);
    const [stale] = await claimAll(store, T0);
    const [fresh] = await claimAll(store, T0 + LEASE);
    expect(fresh?.deliveryId).toBe(stale?.deliveryId);
    await store.settle(
      [
        {
          kind: "attempted",
          claim: { deliveryId: stale!.deliveryId, claimToken: stale!.claimToken, attemptsMade: 1 },
          next: { state: "delivered" },
          log: logEntry("w1", T0 + 1),
        },
      ],
      T0 + LEASE + 1,
    );
    expect(await store.countLog("w1")).toBe(1);
    // Still leased to the fresh claim: it comes back when that lease runs out.
    expect(await claimAll(store, T0 + 2 * LEASE)).toHaveLength(1);
  });

  it("drops a delivery and never hands it out again", async () => {
    const store = await open();
    await store.enqueue([req("e1", ["w1"])], T0);
    const [c] = await claimAll(store, T0);
    await store.settle(
      [
        {
          kind: "dropped",
          deliveryId: c!.deliveryId,
          claimToken: c!.claimToken,
          webhookId: "w1",
          reason: "gone",
        },
      ],
      T0,
    );
    expect(await claimAll(store, T0 + 100 * LEASE)).toEqual([]);
    expect(await store.queueStats()).toEqual({ pending: 0, oldestPendingCreatedAt: undefined });
  });

  it("pages the log newest first with a cursor, ties broken by id, and finds entries by id within their webhook", async () => {
    const store = await open();
    const entries = [5, 3, 3, 9, 1, 7, 3].map((t, i) => logEntry("w1", T0 + t, { id: `id-${i}` }));
    await store.settle(
      [...entries, logEntry("w2", T0)].map((log) => ({
        kind: "attempted",
        next: { state: "delivered" },
        log,
      })),
      T0,
    );
    const expected = [...entries]
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1))
      .map((e) => e.id);
    const seen: string[] = [];
    let page = await store.listLog("w1", 3);
    seen.push(...page.items.map((e) => e.id));
    while (page.next) {
      page = await store.listLog("w1", 3, page.next);
      seen.push(...page.items.map((e) => e.id));
    }
    expect(seen).toEqual(expected);
    expect(await store.getLog("w1", "id-3")).toEqual(entries[3]);
    expect(await store.getLog("w2", "id-3")).toBeUndefined();
    expect(await store.countLog("w1")).toBe(7);
  });

  it("keeps per-webhook facts: newest trigger, last failure kept after a success, whether it delivers, 410s", async () => {
    const store = await open();
    const settle = (log: LogEntry, goneRevision?: string, now = log.createdAt) =>
      store.settle([{ kind: "attempted", next: { state: "failed" }, log, goneRevision }], now);
    await settle(
      logEntry("w1", T0 + 10, {
        success: false,
        error: "HTTP 503",
        response: { status: 503, statusText: "Service Unavailable", body: "busy" },
      }),
    );
    await settle(logEntry("w1", T0 + 20));
    // An older attempt settled late (another worker) changes nothing it should not.
    await settle(
      logEntry("w1", T0 + 5, { success: false, error: "timeout after 10 s", response: undefined }),
      undefined,
      T0 + 30,
    );
    expect(await store.facts("w1")).toEqual({
      webhookId: "w1",
      lastTriggeredAt: T0 + 20,
      lastFailure: { timestamp: T0 + 10, error: "HTTP 503", response: "busy", statusCode: 503 },
      delivering: true,
      updatedAt: T0 + 30,
    });
    await settle(
      logEntry("w2", T0 + 40, {
        success: false,
        error: "HTTP 410 Gone",
        response: { status: 410, statusText: "", body: "" },
      }),
      "7",
    );
    expect((await store.facts("w2"))?.gone).toEqual({ revision: "7", at: T0 + 40 });
    expect((await store.factsChangedSince(T0 + 31)).map((f) => f.webhookId)).toEqual(["w2"]);
    expect((await store.factsChangedSince(T0)).map((f) => f.webhookId).sort()).toEqual(["w1", "w2"]);
    await store.enqueue([req("e1", ["w2"])], T0);
    const [claimed] = await claimAll(store, T0 + 50);
    expect(claimed?.goneRevision).toBe("7");
  });

  it("applies retention: log by age and by count per webhook, settled events by age, pending ones kept", async () => {
    const store = await open();
    const day = 24 * 3_600_000;
    const logs = [
      ...Array.from({ length: 12 }, (_, i) =>
        logEntry("busy", T0 + i, { id: `b${String(i).padStart(2, "0")}` }),
      ),
      logEntry("old", T0 - 10 * day, { id: "ancient" }),
      logEntry("old", T0, { id: "recent" }),
    ];
    await store.settle(
      logs.map((log) => ({ kind: "attempted", next: { state: "delivered" }, log })),
      T0,
    );
    await store.enqueue(
      [req("settled", ["w1"]), req("waiting", ["w1"]), req("unmatched", [])],
      T0 - 10 * day,
    );
    const claimed = await claimAll(store, T0 - 10 * day);
    const settled = claimed.find((c) => c.event.id === "settled")!;
    await store.settle(
      [
        {
          kind: "attempted",
          claim: { deliveryId: settled.deliveryId, claimToken: settled.claimToken, attemptsMade: 1 },
          next: { state: "delivered" },
          log: logEntry("w1", T0 - 10 * day),
        },
      ],
      T0 - 10 * day,
    );
    const result = await store.prune(T0 + 100, {
      logMaxAgeMs: 7 * day,
      logMaxPerWebhook: 5,
      settledMaxAgeMs: 7 * day,
    });
    expect(result).toEqual({ logEntries: 1 + 1 + 7, events: 2 });
    expect((await store.listLog("busy", 100)).items.map((e) => e.id)).toEqual([
      "b11",
      "b10",
      "b09",
      "b08",
      "b07",
    ]);
    expect((await store.listLog("old", 100)).items.map((e) => e.id)).toEqual(["recent"]);
    expect((await store.queueStats()).pending).toBe(1);
    // The pruned ids may be used again; the pending one is still one event.
    expect(await store.enqueue([req("settled", []), req("waiting", [])], T0 + 200)).toEqual([
      { id: "settled", created: true },
      { id: "waiting", created: false },
    ]);
  });

  it("forgets a deleted webhook's queue, log and facts", async () => {
    const store = await open();
    await store.enqueue([req("e1", ["w1", "w2"])], T0);
    await store.settle(
      [
        {
          kind: "attempted",
          next: { state: "failed" },
          log: logEntry("w1", T0, { success: false, error: "HTTP 500" }),
        },
      ],
      T0,
    );
    await store.forgetWebhook("w1");
    expect(await store.countLog("w1")).toBe(0);
    expect(await store.facts("w1")).toBeUndefined();
    expect((await claimAll(store, T0)).map((c) => c.webhookId)).toEqual(["w2"]);
  });

  it("agrees on a stream's start for every store on the database: the first within the window, a new one after it or after its end", async () => {
    const config = await fixture.newConfig(backend);
    const [a, b] = [await fixture.open(config), await fixture.open(config)];
    const W = 600_000;
    expect(await a.openStream("g/s", T0, W)).toBe(T0);
    // Another replica asked about the same stream.
    expect(await b.openStream("g/s", T0 + 5_000, W)).toBe(T0);
    expect(await b.openStream("g/other", T0 + 5_000, W)).toBe(T0 + 5_000);
    // Past the window (a lost end report): a new start.
    expect(await a.openStream("g/s", T0 + W, W)).toBe(T0 + W);
    await b.endStream("g/s");
    expect(await a.openStream("g/s", T0 + W + 1, W)).toBe(T0 + W + 1);
    // Retention drops starts older than a day.
    await a.prune(T0 + W + 2 * 86_400_000, DEFAULT_RETENTION);
    expect(await b.openStream("g/other", T0 + 3 * 86_400_000, 10 * 86_400_000)).toBe(T0 + 3 * 86_400_000);
  });

  it("migrates once: reopening keeps the data", async () => {
    const config = await fixture.newConfig(backend);
    const first = await fixture.open(config);
    await first.enqueue([req("e1", ["w1"])], T0);
    await first.close();
    const second = await fixture.open(config);
    expect(await second.enqueue([req("e1", ["w1"])], T0)).toEqual([{ id: "e1", created: false }]);
    expect((await second.queueStats()).pending).toBe(1);
  });
});

/** A new PostgreSQL database of the fixture and a client of the test's own on it (ended after the test). */
async function newPostgres() {
  const config = await fixture.newConfig("postgres");
  if (config.backend !== "postgres") throw new Error("expected a PostgreSQL config");
  const admin = new pg.Client({ connectionString: config.connectionString });
  await admin.connect();
  onTestFinished(() => admin.end());
  return { config, admin };
}

describe("delivery store on postgres, upgrading", () => {
  it("upgrades a database made by the first schema in place: its queue, log and retention keep working", async () => {
    const { config, admin: old } = await newPostgres();
    // The database as the first release left it: schema 1 and a queued delivery.
    await old.query(POSTGRES_MIGRATIONS[0]!);
    await old.query(
      "CREATE TABLE delivery_schema (version integer PRIMARY KEY); INSERT INTO delivery_schema VALUES (1)",
    );
    await old.query(
      `INSERT INTO delivery_events (id, user_id, project_id, kind, created_at, recorded_at)
       VALUES ('e-old', 'u1', 'p1', 'stream.started', ${T0}, ${T0})`,
    );
    await old.query(
      `INSERT INTO deliveries (event_seq, webhook_id, next_attempt_at, created_at)
       SELECT seq, 'w1', ${T0}, ${T0} FROM delivery_events`,
    );
    const store = await fixture.open(config);
    const { rows } = await old.query("SELECT max(version) AS v FROM delivery_schema");
    expect(rows[0].v).toBe(POSTGRES_MIGRATIONS.length);
    const [queued] = await claimAll(store, T0 + 1);
    expect(queued).toMatchObject({ webhookId: "w1", event: { id: "e-old", kind: "stream.started" } });
    await store.settle(
      [
        {
          kind: "attempted",
          claim: { deliveryId: queued!.deliveryId, claimToken: queued!.claimToken, attemptsMade: 1 },
          next: { state: "delivered" },
          log: logEntry("w1", T0 + 2),
        },
      ],
      T0 + 2,
    );
    expect(await store.queueStats()).toEqual({ pending: 0, oldestPendingCreatedAt: undefined });
    expect(await store.countLog("w1")).toBe(1);
    const day = 24 * 3_600_000;
    expect(
      await store.prune(T0 + 2 * day, { logMaxAgeMs: day, logMaxPerWebhook: 10, settledMaxAgeMs: day }),
    ).toEqual({ logEntries: 1, events: 1 });
    // The event is gone, so its id is new again.
    expect(await store.enqueue([req("e-old", ["w1"])], T0 + 2 * day)).toEqual([
      { id: "e-old", created: true },
    ]);
  });
});

describe("delivery store on postgres, a queue of churn", () => {
  it("settles by index however the queue's size changed since its statements were planned: never a scan over its dead rows", async () => {
    const { config, admin } = await newPostgres();
    /** The table's scan counters once `idxAtLeast` index scans are reported (backends report as they exit). */
    const counters = async (idxAtLeast: number) => {
      let counts = { seq: 0, idx: 0 };
      const deadline = Date.now() + 10_000;
      do {
        await new Promise((r) => setTimeout(r, 50));
        await admin.query("SELECT pg_stat_clear_snapshot()");
        const { rows } = await admin.query(
          "SELECT seq_scan, idx_scan FROM pg_stat_user_tables WHERE relname = 'deliveries'",
        );
        counts = { seq: Number(rows[0].seq_scan), idx: Number(rows[0].idx_scan) };
      } while (counts.idx < idxAtLeast && Date.now() < deadline);
      return counts;
    };
    // Creating the schema builds indexes (each a scan of the table): counted before.
    await (await openDeliveryStore(config)).close();
    const before = await counters(0);
    const store = await openDeliveryStore(config);
    /** Queues `n` deliveries leased to the store and settles them as delivered, `per` at a time. */
    const churn = async (tag: string, n: number, per: number) => {
      const leased = [];
      for (let i = 0; i < n; i += 500) {
        const batch = Array.from({ length: Math.min(500, n - i) }, (_, j) => req(`${tag}-${i + j}`, ["w1"]));
        for (const r of await store.enqueue(batch, T0, {
          owner: "test",
          leaseMs: LEASE,
          max: batch.length,
        })) {
          leased.push(...(r.leased ?? []));
        }
      }
      for (let i = 0; i < leased.length; i += per) {
        await store.settle(
          leased.slice(i, i + per).map(
            (d): Settlement => ({
              kind: "attempted",
              claim: { deliveryId: d.deliveryId, claimToken: d.claimToken, attemptsMade: 1 },
              next: { state: "delivered" },
              log: logEntry("w1", T0 + i),
            }),
          ),
          T0 + 1,
        );
      }
    };
    // The settle statement is prepared and, after a few runs, planned once for good while the queue
    // is small; then the queue grows to thousands of (soon dead) rows.
    await churn("small", 200, 20);
    await churn("big", 6_000, 20);
    // Its connections end, and a backend reports its counters as it exits.
    await store.close();
    // 310 settles, each finding its rows by index.
    const after = await counters(before.idx + 310);
    expect(after.idx - before.idx).toBeGreaterThanOrEqual(310);
    expect(after.seq - before.seq).toBe(0);
  });
});
