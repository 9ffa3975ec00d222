// The store for several API replicas: PostgreSQL through `pg`. Work is claimed with
// FOR UPDATE SKIP LOCKED (one delivery goes to one worker) and a lease (leased_until, past the
// attempt's deadline): a worker killed mid-attempt leaves the delivery due again once the
// lease runs out, so another worker (or the restarted one) sends it: at-least-once across kill -9,
// once in normal operation. Each batch (of enqueues, of outcomes) is one statement over unnest()
// arrays: one round trip and one commit.
import pg from "pg";
import type { ClaimedDelivery, LogEntry, LogPage, LogPosition, WebhookFacts } from "../model.ts";
import { answers, eventKey, storedEvent } from "./enqueue-answers.ts";
import { factsDeltas } from "./facts-delta.ts";
import { FACTS_COLUMNS, factsMergeSet, factsValues } from "./facts-sql.ts";
import { MIGRATION_LOCK_KEY, POSTGRES_MIGRATIONS } from "./postgres-schema.ts";
import { eventFromRow, eventValues, factsFromRow, LOG_COLUMNS, logFromRow, logValues } from "./rows.ts";
import {
  DayGrowth,
  inLockOrder,
  mergeSession,
  SIGNER_DAY_KEEP_MS,
  SIGNER_SESSION_KEEP_MS,
  type SignerSession,
  type SignerSpendRecord,
  type SignerSpendResult,
  type SignerSpendSnapshot,
} from "./signer-spend.ts";
import {
  type ClaimRequest,
  type DeliveryStore,
  type EnqueueLease,
  type EnqueueRequest,
  type EnqueueResult,
  OPEN_STREAM_KEEP_MS,
  type PruneResult,
  type QueueStats,
  type Retention,
  type Settlement,
} from "./types.ts";

type Row = Record<string, unknown>;

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database (the chart reads it from a Secret). */
  connectionString: string;
  /** Pool size (default 8). */
  maxConnections?: number | undefined;
  /** Errors of idle connections (the pool reconnects); default: ignored. */
  onError?: ((message: string) => void) | undefined;
}

// bigint columns (ms times, ids, counts) as numbers: all stay far below 2^53.
const BIGINT_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === BIGINT_OID
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * The queue is a table of churn: rows are inserted and deleted by the thousand, so between vacuums
 * it holds far more dead rows than live ones. A prepared statement planned once for good while
 * the queue was small (or while statistics said so) keeps a sequential scan with a hash join for
 * the settle's updates and deletes by id, and that scan then reads every dead row: measured, it
 * doubled the server's CPU per delivery in about half the benchmark runs. Every statement here has
 * an index to use; this makes the planner use it (a scan stays possible where there is no other way:
 * retention's anti-join). No JIT: these are short statements, and a plan priced as if it held a
 * disabled scan would otherwise be compiled (measured: 46 ms for retention's delete).
 */
const PLANNER_OPTIONS = "-c enable_seqscan=off -c jit=off";

// The hot statements, prepared once per connection (named): parsed and planned once, not per batch.
// A batch's rows go as one parameter, a JSON array of arrays (one array per row, values by position),
// read on the server as jsonb: measured against one array parameter per column (unnest) and against
// JSON objects (json_populate_recordset), it is the cheapest on both sides: 1.1-1.4 against 2.7-4.6 us
// of client CPU per enqueued event (the pg client escapes every element of a text array in
// JavaScript; JSON.stringify is native), 3.5-4.2 against 5.2-8.1 us per event in all; log rows
// 8.1-8.4 against 13.4-15.3 us per row with objects (which repeat every column's name and are
// matched by name on the server), and a quarter fewer bytes (bench: `node bench/delivery.ts`).

/** The columns of a jsonb rows parameter: name and PostgreSQL type, in the rows' value order. */
type Columns = readonly (readonly [name: string, type: string])[];

/**
 * `(SELECT (r->>0)::type AS name, ... FROM jsonb_array_elements($n::jsonb) ...)`: the rows of
 * parameter `n`, with `ord` (1-based position in the batch) when asked. JSON null is SQL NULL.
 */
function jsonRows(n: number, columns: Columns, ordinal = false): string {
  const values = columns.map(([name, type], i) => `(r->>${i})::${type} AS ${name}`).join(", ");
  return ordinal
    ? `(SELECT ${values}, ord FROM jsonb_array_elements($${n}::jsonb) WITH ORDINALITY AS x(r, ord))`
    : `(SELECT ${values} FROM jsonb_array_elements($${n}::jsonb) AS r)`;
}

const EVENT_COLUMNS: Columns = [
  ["id", "text"],
  ["user_id", "text"],
  ["project_id", "text"],
  ["kind", "text"],
  ["stream_id", "text"],
  ["stream", "text"],
  ["payload", "text"],
  ["created_at", "bigint"],
];
const PAIR_COLUMNS: Columns = [
  ["user_id", "text"],
  ["project_id", "text"],
  ["id", "text"],
  ["webhook_id", "text"],
];

/**
 * One statement (one round trip, one commit): events ($1, recorded at $2), then deliveries ($3:
 * event key and webhook) for those that are new, the first $4 of them (in batch order) leased to
 * the enqueuer ($5 until, $6 token, $7 owner). One row per new event without leased deliveries,
 * one per leased delivery otherwise.
 */
const ENQUEUE_SQL = `WITH new_events AS (
         INSERT INTO delivery_events (id, user_id, project_id, kind, stream_id, stream, payload, created_at, recorded_at)
         SELECT u.*, $2 FROM ${jsonRows(1, EVENT_COLUMNS)} AS u
         ON CONFLICT (user_id, project_id, id) DO NOTHING
         RETURNING seq, id, user_id, project_id
       ), new_pairs AS (
         SELECT e.seq, p.webhook_id, row_number() OVER (ORDER BY p.ord) <= $4::integer AS leased
         FROM new_events e
         JOIN ${jsonRows(3, PAIR_COLUMNS, true)} AS p
           ON p.user_id = e.user_id AND p.project_id = e.project_id AND p.id = e.id
       ), new_deliveries AS (
         INSERT INTO deliveries (event_seq, webhook_id, next_attempt_at, created_at, leased_until, claim_token, claimed_by)
         SELECT seq, webhook_id, $2, $2, CASE WHEN leased THEN $5::bigint END,
           CASE WHEN leased THEN $6::text END, CASE WHEN leased THEN $7::text END
         FROM new_pairs
         RETURNING id, event_seq, webhook_id, claim_token
       )
       SELECT e.user_id, e.project_id, e.id, d.id AS delivery_id, d.webhook_id,
         (SELECT f.gone_revision FROM webhook_facts f WHERE f.webhook_id = d.webhook_id) AS gone_revision
       FROM new_events e
       LEFT JOIN new_deliveries d ON d.event_seq = e.seq AND d.claim_token IS NOT NULL`;

const CLAIM_SQL = `WITH due AS (
         SELECT id FROM deliveries
         WHERE next_attempt_at <= $1 AND (leased_until IS NULL OR leased_until <= $1)
           AND NOT (webhook_id = ANY($2::text[]))
         ORDER BY next_attempt_at
         LIMIT $3
         FOR UPDATE SKIP LOCKED
       )
       UPDATE deliveries d SET leased_until = $4, claim_token = $5, claimed_by = $6
       FROM due, delivery_events e
       WHERE d.id = due.id AND e.seq = d.event_seq
       RETURNING d.id AS delivery_id, d.webhook_id, d.attempts, d.created_at AS delivery_created_at,
         e.id, e.user_id, e.project_id, e.kind, e.stream_id, e.stream, e.payload, e.created_at,
         (SELECT f.gone_revision FROM webhook_facts f WHERE f.webhook_id = d.webhook_id) AS gone_revision`;

/**
 * Rows that stay in the queue or leave it go as one array parameter per column: unnest() of an
 * array is estimated at its length, so the planner joins them to the queue by its primary key (a
 * nested loop). Given jsonb rows (estimated at 100 whatever their number) it chose a merge join
 * reading the whole primary key index instead, i.e. every queued delivery, at every settle.
 */
const RETRY_ARRAYS = "$1::bigint[], $2::text[], $3::integer[], $4::bigint[], $5::text[]";
const SETTLED_ARRAYS = "$6::bigint[], $7::text[]";
const LOG_COLUMN_TYPES: Record<(typeof LOG_COLUMNS)[number], string> = {
  id: "text",
  webhook_id: "text",
  event_id: "text",
  event: "text",
  created_at: "bigint",
  duration_ms: "integer",
  success: "boolean",
  request_url: "text",
  request_method: "text",
  request_headers: "text",
  request_body: "text",
  response_status: "integer",
  response_status_text: "text",
  response_body: "text",
  error: "text",
};
const FACTS_COLUMN_TYPES: Record<(typeof FACTS_COLUMNS)[number], string> = {
  webhook_id: "text",
  last_triggered_at: "bigint",
  last_failure_at: "bigint",
  last_failure_error: "text",
  last_failure_response: "text",
  last_failure_status: "integer",
  delivering: "boolean",
  delivering_at: "bigint",
  gone_revision: "text",
  gone_at: "bigint",
  updated_at: "bigint",
};
const typed = <C extends string>(names: readonly C[], types: Record<C, string>): Columns =>
  names.map((name) => [name, types[name]] as const);

/**
 * One statement (one round trip, one commit): deliveries that stay ($1-$5) or go ($6-$7), log
 * entries ($8), facts ($9).
 */
const SETTLE_SQL = `WITH retried AS (
         UPDATE deliveries d SET attempts = coalesce(u.attempts, d.attempts), next_attempt_at = u.next_at,
           last_error = coalesce(u.error, d.last_error), leased_until = NULL, claim_token = NULL, claimed_by = NULL
         FROM unnest(${RETRY_ARRAYS}) AS u(id, token, attempts, next_at, error)
         WHERE d.id = u.id AND d.claim_token = u.token
       ), settled AS (
         DELETE FROM deliveries d USING unnest(${SETTLED_ARRAYS}) AS u(id, token)
         WHERE d.id = u.id AND d.claim_token = u.token
       ), logged AS (
         INSERT INTO delivery_log (${LOG_COLUMNS.join(", ")})
         SELECT * FROM ${jsonRows(8, typed(LOG_COLUMNS, LOG_COLUMN_TYPES))} AS l
         ON CONFLICT (id) DO NOTHING
       )
       INSERT INTO webhook_facts (${FACTS_COLUMNS.join(", ")})
       SELECT * FROM ${jsonRows(9, typed(FACTS_COLUMNS, FACTS_COLUMN_TYPES))} AS f
       ON CONFLICT (webhook_id) DO UPDATE SET
         ${factsMergeSet("GREATEST")}`;

/** host:port/database of a connection string, for messages (never the password). */
export function describeConnection(connectionString: string): string {
  try {
    const u = new URL(connectionString);
    return `${u.hostname || "localhost"}:${u.port || "5432"}${u.pathname || "/"}`;
  } catch {
    return "(unparsable connection string)";
  }
}

export class PostgresDeliveryStore implements DeliveryStore {
  readonly backend = "postgres";
  readonly #pool: pg.Pool;
  /**
   * Claims commit without waiting for the WAL flush (synchronous_commit=off): a claim lost in a
   * server crash only means the delivery is sent again, which at-least-once allows; it keeps one
   * disk flush off the path from enqueue to delivery. Events and outcomes stay synchronous.
   */
  readonly #claimPool: pg.Pool;
  #claims = 0;

  private constructor(pool: pg.Pool, claimPool: pg.Pool) {
    this.#pool = pool;
    this.#claimPool = claimPool;
  }

  /** Connects and migrates; the error names the server (not the password) and what to check. */
  static async open(opts: PostgresStoreOptions): Promise<PostgresDeliveryStore> {
    const pool = new pg.Pool({
      connectionString: opts.connectionString,
      max: opts.maxConnections ?? 8,
      types,
      application_name: "livepeer-operator-delivery",
      options: PLANNER_OPTIONS,
    });
    const claimPool = new pg.Pool({
      connectionString: opts.connectionString,
      max: 2,
      types,
      application_name: "livepeer-operator-delivery-claims",
      options: `${PLANNER_OPTIONS} -c synchronous_commit=off`,
    });
    for (const p of [pool, claimPool]) {
      p.on("error", (err) => opts.onError?.(`delivery store connection error: ${err.message}`));
    }
    const store = new PostgresDeliveryStore(pool, claimPool);
    try {
      await store.#migrate();
    } catch (err) {
      await Promise.allSettled([pool.end(), claimPool.end()]);
      throw new Error(
        `cannot use the delivery store's PostgreSQL at ${describeConnection(opts.connectionString)}: ${(err as Error).message}; check the connection string (host, port, user, password, database) and that the user may create tables`,
      );
    }
    return store;
  }

  async #migrate(): Promise<void> {
    await this.#tx(async (c) => {
      await c.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
      await c.query("CREATE TABLE IF NOT EXISTS delivery_schema (version integer PRIMARY KEY)");
      const { rows } = await c.query("SELECT coalesce(max(version), 0) AS v FROM delivery_schema");
      for (let v = Number(rows[0].v); v < POSTGRES_MIGRATIONS.length; v++) {
        await c.query(POSTGRES_MIGRATIONS[v]!);
        await c.query("INSERT INTO delivery_schema (version) VALUES ($1)", [v + 1]);
      }
    });
  }

  async #tx<T>(body: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.#pool.connect();
    try {
      await c.query("BEGIN");
      const out = await body(c);
      await c.query("COMMIT");
      return out;
    } catch (err) {
      await c.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      c.release();
    }
  }

  async enqueue(
    batch: readonly EnqueueRequest[],
    now: number,
    lease?: EnqueueLease,
  ): Promise<EnqueueResult[]> {
    // One row per (tenant, id) in the statement; later duplicates in the batch are not new.
    const first = new Map<string, EnqueueRequest>();
    for (const r of batch) if (!first.has(eventKey(r.event))) first.set(eventKey(r.event), r);
    const unique = [...first.values()];
    // Each (event, webhook) pair, keyed like the events, for the deliveries the new events get.
    const pairs = unique.flatMap((r) =>
      [...new Set(r.webhookIds)].map((w) => [r.event.userId, r.event.projectId, r.event.id, w]),
    );
    const token = `${lease?.owner}:${++this.#claims}:${now}`;
    const { rows } = await this.#pool.query({
      name: "delivery-enqueue",
      text: ENQUEUE_SQL,
      values: [
        JSON.stringify(unique.map(({ event: e }) => eventValues(e, now))),
        now,
        JSON.stringify(pairs),
        lease?.max ?? 0,
        now + (lease?.leaseMs ?? 0),
        token,
        lease?.owner ?? null,
      ],
    });
    const created = new Map<string, ClaimedDelivery[]>();
    for (const row of rows as Row[]) {
      const k = eventKey({
        userId: String(row.user_id),
        projectId: String(row.project_id),
        id: String(row.id),
      });
      const leased = created.get(k) ?? [];
      created.set(k, leased);
      if (row.delivery_id === null) continue;
      const { event } = first.get(k)!;
      leased.push({
        deliveryId: Number(row.delivery_id),
        claimToken: token,
        webhookId: String(row.webhook_id),
        attempts: 0,
        createdAt: now,
        goneRevision: typeof row.gone_revision === "string" ? row.gone_revision : undefined,
        event: storedEvent(event, now),
      });
    }
    return answers(batch, created);
  }

  async claim(r: ClaimRequest): Promise<ClaimedDelivery[]> {
    const token = `${r.owner}:${++this.#claims}:${r.now}`;
    const { rows } = await this.#claimPool.query({
      name: "delivery-claim",
      text: CLAIM_SQL,
      values: [r.now, r.skipWebhooks, r.limit, r.now + r.leaseMs, token, r.owner],
    });
    return (rows as Row[]).map((row) => ({
      deliveryId: Number(row.delivery_id),
      claimToken: token,
      webhookId: String(row.webhook_id),
      attempts: Number(row.attempts),
      createdAt: Number(row.delivery_created_at),
      goneRevision: typeof row.gone_revision === "string" ? row.gone_revision : undefined,
      event: eventFromRow(row),
    }));
  }

  async settle(batch: readonly Settlement[], now: number): Promise<void> {
    if (batch.length === 0) return;
    const { retry, settled } = deliveryUpdates(batch);
    const logs = batch.flatMap((s) => (s.kind === "attempted" ? [logValues(s.log)] : []));
    const facts = factsDeltas(batch).map((d) => factsValues(d, now));
    await this.#pool.query({
      name: "delivery-settle",
      text: SETTLE_SQL,
      values: [
        retry.map((r) => r.id),
        retry.map((r) => r.token),
        retry.map((r) => r.attempts),
        retry.map((r) => r.nextAt),
        retry.map((r) => r.error),
        settled.map((r) => r.id),
        settled.map((r) => r.token),
        JSON.stringify(logs),
        JSON.stringify(facts),
      ],
    });
  }

  async listLog(webhookId: string, limit: number, after?: LogPosition): Promise<LogPage> {
    const { rows } = after
      ? await this.#pool.query(
          `SELECT * FROM delivery_log WHERE webhook_id = $1 AND (created_at < $2 OR (created_at = $2 AND id > $3))
           ORDER BY created_at DESC, id ASC LIMIT $4`,
          [webhookId, after.createdAt, after.id, limit + 1],
        )
      : await this.#pool.query(
          `SELECT * FROM delivery_log WHERE webhook_id = $1 ORDER BY created_at DESC, id ASC LIMIT $2`,
          [webhookId, limit + 1],
        );
    const items = (rows as Row[]).slice(0, limit).map(logFromRow);
    const last = items.at(-1);
    return rows.length > limit && last
      ? { items, next: { createdAt: last.createdAt, id: last.id } }
      : { items };
  }

  async getLog(webhookId: string, logId: string): Promise<LogEntry | undefined> {
    const { rows } = await this.#pool.query("SELECT * FROM delivery_log WHERE id = $1 AND webhook_id = $2", [
      logId,
      webhookId,
    ]);
    return rows[0] ? logFromRow(rows[0] as Row) : undefined;
  }

  async countLog(webhookId: string): Promise<number> {
    const { rows } = await this.#pool.query("SELECT count(*) AS n FROM delivery_log WHERE webhook_id = $1", [
      webhookId,
    ]);
    return Number(rows[0].n);
  }

  async facts(webhookId: string): Promise<WebhookFacts | undefined> {
    const { rows } = await this.#pool.query("SELECT * FROM webhook_facts WHERE webhook_id = $1", [webhookId]);
    return rows[0] ? factsFromRow(rows[0] as Row) : undefined;
  }

  async factsChangedSince(since: number): Promise<WebhookFacts[]> {
    const { rows } = await this.#pool.query(
      "SELECT * FROM webhook_facts WHERE updated_at >= $1 ORDER BY updated_at",
      [since],
    );
    return (rows as Row[]).map(factsFromRow);
  }

  async prune(now: number, retention: Retention): Promise<PruneResult> {
    return this.#tx(async (c) => {
      let logEntries =
        (await c.query("DELETE FROM delivery_log WHERE created_at < $1", [now - retention.logMaxAgeMs]))
          .rowCount ?? 0;
      const over = await c.query(
        "SELECT webhook_id FROM delivery_log GROUP BY webhook_id HAVING count(*) > $1",
        [retention.logMaxPerWebhook],
      );
      for (const row of over.rows as Row[]) {
        const cut = await c.query(
          `SELECT created_at, id FROM delivery_log WHERE webhook_id = $1
           ORDER BY created_at DESC, id ASC LIMIT 1 OFFSET $2`,
          [row.webhook_id, retention.logMaxPerWebhook],
        );
        const at = cut.rows[0] as Row | undefined;
        if (!at) continue;
        logEntries +=
          (
            await c.query(
              "DELETE FROM delivery_log WHERE webhook_id = $1 AND (created_at < $2 OR (created_at = $2 AND id >= $3))",
              [row.webhook_id, at.created_at, at.id],
            )
          ).rowCount ?? 0;
      }
      const events =
        (
          await c.query(
            `DELETE FROM delivery_events e WHERE e.recorded_at < $1
             AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_seq = e.seq)`,
            [now - retention.settledMaxAgeMs],
          )
        ).rowCount ?? 0;
      await c.query("DELETE FROM open_streams WHERE started_at < $1", [now - OPEN_STREAM_KEEP_MS]);
      await c.query("DELETE FROM signer_sessions WHERE updated_at < $1", [now - SIGNER_SESSION_KEEP_MS]);
      await c.query("DELETE FROM signer_spend_days WHERE updated_at < $1", [now - SIGNER_DAY_KEEP_MS]);
      return { logEntries, events };
    });
  }

  // A stream start need not wait for the disk (the claim pool): lost in a server crash, a repeated
  // call for that stream is taken as a new start, as it was before starts were shared.
  async openStream(key: string, now: number, windowMs: number): Promise<number> {
    const { rows } = await this.#claimPool.query({
      name: "open-stream",
      text: `INSERT INTO open_streams (key, started_at) VALUES ($1, $2)
        ON CONFLICT (key) DO UPDATE SET started_at = CASE WHEN $2::bigint - open_streams.started_at >= $3::bigint
          THEN excluded.started_at ELSE open_streams.started_at END
        RETURNING started_at`,
      values: [key, now, windowMs],
    });
    return Number((rows[0] as Row).started_at);
  }

  async endStream(key: string): Promise<void> {
    await this.#claimPool.query("DELETE FROM open_streams WHERE key = $1", [key]);
  }

  // Per record: the session row locked (FOR UPDATE: replicas record the same sessions), merged,
  // written when it grew, and the day grown by as much in the same statement's answer.
  async recordSignerSpend(batch: readonly SignerSpendRecord[]): Promise<SignerSpendResult[]> {
    const sessions = new Map<SignerSpendRecord, { session: SignerSession; day: string }>();
    const totals = new Map<string, bigint>();
    await this.#tx(async (c) => {
      const growth = new DayGrowth();
      for (const r of inLockOrder(batch)) {
        const { rows } = await c.query({
          name: "signer-session",
          text: `SELECT signer, state_id, tenant, started_at, start_seq, spent::text AS spent
            FROM signer_sessions WHERE signer = $1 AND state_id = $2 FOR UPDATE`,
          values: [r.signer, r.stateId],
        });
        const row = rows[0] as Row | undefined;
        const { session, grew } = mergeSession(row && sessionFromRow(row), r);
        if (!row || grew > 0n) {
          await c.query({
            name: "put-signer-session",
            text: `INSERT INTO signer_sessions (signer, state_id, tenant, started_at, start_seq, spent, updated_at)
              VALUES ($1, $2, $3, $4, $5, $6::numeric, $7)
              ON CONFLICT (signer, state_id) DO UPDATE SET spent = excluded.spent,
                updated_at = GREATEST(signer_sessions.updated_at, excluded.updated_at)`,
            values: [
              r.signer,
              r.stateId,
              session.tenant,
              session.startedAt,
              session.startSeq,
              session.spent.toString(),
              r.at,
            ],
          });
        }
        sessions.set(r, { session, day: growth.add(r.signer, session.tenant, r.day, grew, r.at) });
      }
      for (const g of growth.days()) {
        const day = await c.query({
          name: "grow-signer-day",
          text: `INSERT INTO signer_spend_days (signer, tenant, day, spent, updated_at) VALUES ($1, $2, $3, $4::numeric, $5)
            ON CONFLICT (signer, tenant, day) DO UPDATE
              SET spent = signer_spend_days.spent + excluded.spent,
                updated_at = GREATEST(signer_spend_days.updated_at, excluded.updated_at)
            RETURNING spent::text AS spent`,
          values: [g.signer, g.tenant, g.day, g.grew.toString(), g.at],
        });
        totals.set(g.key, BigInt((day.rows[0] as Row).spent as string));
      }
    });
    return batch.map((r) => {
      const { session, day } = sessions.get(r)!;
      return { session, dayTotal: totals.get(day)! };
    });
  }

  async loadSignerSpend(day: string, sessionsSince: number): Promise<SignerSpendSnapshot> {
    const [days, sessions] = await Promise.all([
      this.#pool.query(
        "SELECT signer, tenant, day, spent::text AS spent FROM signer_spend_days WHERE day >= $1",
        [day],
      ),
      this.#pool.query(
        `SELECT signer, state_id, tenant, started_at, start_seq, spent::text AS spent
          FROM signer_sessions WHERE updated_at >= $1`,
        [sessionsSince],
      ),
    ]);
    return {
      days: (days.rows as Row[]).map((r) => ({
        signer: r.signer as string,
        tenant: r.tenant as string,
        day: r.day as string,
        spent: BigInt(r.spent as string),
      })),
      sessions: (sessions.rows as Row[]).map(sessionFromRow),
    };
  }

  async forgetWebhook(webhookId: string): Promise<void> {
    await this.#tx(async (c) => {
      // The queue is small (unsettled deliveries only): no index on webhook_id for this rare call.
      await c.query("DELETE FROM deliveries WHERE webhook_id = $1", [webhookId]);
      await c.query("DELETE FROM delivery_log WHERE webhook_id = $1", [webhookId]);
      await c.query("DELETE FROM webhook_facts WHERE webhook_id = $1", [webhookId]);
    });
  }

  async queueStats(): Promise<QueueStats> {
    const { rows } = await this.#pool.query(
      "SELECT count(*) AS pending, min(created_at) AS oldest FROM deliveries",
    );
    const row = rows[0] as Row;
    return {
      pending: Number(row.pending),
      oldestPendingCreatedAt: row.oldest === null ? undefined : Number(row.oldest),
    };
  }

  async close(): Promise<void> {
    await Promise.all([this.#pool.end(), this.#claimPool.end()]);
  }
}

/**
 * What the batch does to the queue, sorted by id (one lock order): rows that stay (retry later,
 * released) and rows that go (delivered, failed, dropped).
 */
function deliveryUpdates(batch: readonly Settlement[]) {
  const retry: {
    id: number;
    token: string;
    attempts: number | null;
    nextAt: number;
    error: string | null;
  }[] = [];
  const settled: { id: number; token: string }[] = [];
  for (const s of batch) {
    if (s.kind === "released") {
      retry.push({ id: s.deliveryId, token: s.claimToken, attempts: null, nextAt: s.at, error: null });
    } else if (s.kind === "dropped") {
      settled.push({ id: s.deliveryId, token: s.claimToken });
    } else if (s.claim && s.next.state === "pending") {
      const { deliveryId: id, claimToken: token, attemptsMade: attempts } = s.claim;
      retry.push({ id, token, attempts, nextAt: s.next.at, error: s.log.error ?? null });
    } else if (s.claim) {
      settled.push({ id: s.claim.deliveryId, token: s.claim.claimToken });
    }
  }
  retry.sort((a, b) => a.id - b.id);
  settled.sort((a, b) => a.id - b.id);
  return { retry, settled };
}

function sessionFromRow(r: Row): SignerSession {
  return {
    signer: r.signer as string,
    stateId: r.state_id as string,
    tenant: r.tenant as string,
    startedAt: Number(r.started_at),
    startSeq: Number(r.start_seq),
    spent: BigInt(r.spent as string),
  };
}
