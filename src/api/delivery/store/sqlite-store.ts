// The embedded store: one SQLite file through Node's built-in node:sqlite, for a single replica.
// WAL mode with synchronous=NORMAL: a committed batch survives the process being killed (the WAL
// is in the OS's hands) and the WAL is synced at each checkpoint, so a power cut loses at most the
// last half second, never the file. node:sqlite is synchronous; every call here is one short
// transaction over a batch (about 0.1 ms at the median), and checkpoints run in a worker thread.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { ClaimedDelivery, LogEntry, LogPage, LogPosition, WebhookFacts } from "../model.ts";
import { answers, eventKey, storedEvent } from "./enqueue-answers.ts";
import { factsDeltas } from "./facts-delta.ts";
import { FACTS_COLUMNS, factsMergeSet, factsValues } from "./facts-sql.ts";
import { eventFromRow, eventValues, factsFromRow, LOG_COLUMNS, logFromRow, logValues } from "./rows.ts";
import {
  SIGNER_DAY_KEEP_MS,
  SIGNER_SESSION_KEEP_MS,
  type SignerSpendRecord,
  type SignerSpendResult,
  type SignerSpendSnapshot,
} from "./signer-spend.ts";
import { SqliteCheckpointer } from "./sqlite-checkpointer.ts";
import { SQLITE_MIGRATIONS } from "./sqlite-schema.ts";
import {
  recordSignerSpendTx,
  type SignerSpendStatements,
  signerSessionFromRow,
  signerSpendStatements,
} from "./sqlite-signer-spend.ts";
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

export class SqliteDeliveryStore implements DeliveryStore {
  readonly backend = "sqlite";
  readonly file: string;
  readonly #db: DatabaseSync;
  readonly #s: ReturnType<typeof prepare>;
  readonly #spend: SignerSpendStatements;
  readonly #checkpointer: SqliteCheckpointer | undefined;
  #claims = 0;

  /** Opens (creating it and its directory when missing) and migrates the store at `file`. */
  constructor(file: string, onError?: (message: string) => void) {
    this.file = file;
    if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    try {
      this.#db = new DatabaseSync(file, { timeout: 5_000 });
    } catch (err) {
      throw new Error(
        `cannot open the delivery store ${file}: ${(err as Error).message}; check the path and its permissions`,
      );
    }
    this.#db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;
      PRAGMA journal_size_limit = ${64 * 1024 * 1024};`);
    this.#migrate();
    this.#s = prepare(this.#db);
    this.#spend = signerSpendStatements(this.#db);
    if (file !== ":memory:") {
      this.#db.exec("PRAGMA wal_autocheckpoint = 0");
      this.#checkpointer = new SqliteCheckpointer(file, 500, onError);
    }
  }

  #migrate(): void {
    this.#db.exec("CREATE TABLE IF NOT EXISTS delivery_schema (version INTEGER PRIMARY KEY)");
    this.#tx(() => {
      const row = this.#db.prepare("SELECT coalesce(max(version), 0) AS v FROM delivery_schema").get() as Row;
      for (let v = Number(row.v); v < SQLITE_MIGRATIONS.length; v++) {
        this.#db.exec(SQLITE_MIGRATIONS[v]!);
        this.#db.prepare("INSERT INTO delivery_schema (version) VALUES (?)").run(v + 1);
      }
    });
  }

  #tx<T>(body: () => T): T {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const out = body();
      this.#db.exec("COMMIT");
      return out;
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  async enqueue(
    batch: readonly EnqueueRequest[],
    now: number,
    lease?: EnqueueLease,
  ): Promise<EnqueueResult[]> {
    const token = `${lease?.owner}:${++this.#claims}:${now}`;
    let room = lease?.max ?? 0;
    const created = new Map<string, ClaimedDelivery[]>();
    this.#tx(() => {
      for (const { event: e, webhookIds } of batch) {
        const row = this.#s.insertEvent.get(...eventValues(e, now), now) as Row | undefined;
        if (!row) continue;
        const leased: ClaimedDelivery[] = [];
        created.set(eventKey(e), leased);
        for (const w of new Set(webhookIds)) {
          if (room <= 0) {
            this.#s.insertDelivery.run(row.seq as number, w, now, now);
            continue;
          }
          room--;
          const d = this.#s.insertLeased.get(
            row.seq as number,
            w,
            now,
            now,
            now + lease!.leaseMs,
            token,
            lease!.owner,
          ) as Row;
          const gone = (this.#s.goneRevision.get(w) as Row | undefined)?.gone_revision;
          leased.push({
            deliveryId: Number(d.id),
            claimToken: token,
            webhookId: w,
            attempts: 0,
            createdAt: now,
            goneRevision: typeof gone === "string" ? gone : undefined,
            event: storedEvent(e, now),
          });
        }
      }
    });
    return answers(batch, created);
  }

  async claim(r: ClaimRequest): Promise<ClaimedDelivery[]> {
    const token = `${r.owner}:${++this.#claims}:${r.now}`;
    return this.#tx(() => {
      const rows = this.#s.due.all(r.now, JSON.stringify(r.skipWebhooks), r.limit) as Row[];
      for (const row of rows) this.#s.lease.run(r.now + r.leaseMs, token, r.owner, row.delivery_id as number);
      return rows.map((row) => ({
        deliveryId: Number(row.delivery_id),
        claimToken: token,
        webhookId: String(row.webhook_id),
        attempts: Number(row.attempts),
        createdAt: Number(row.delivery_created_at),
        goneRevision: typeof row.gone_revision === "string" ? row.gone_revision : undefined,
        event: eventFromRow(row),
      }));
    });
  }

  async settle(batch: readonly Settlement[], now: number): Promise<void> {
    if (batch.length === 0) return;
    const deltas = factsDeltas(batch);
    this.#tx(() => {
      for (const s of batch) {
        if (s.kind === "released") {
          this.#s.release.run(s.at, s.deliveryId, s.claimToken);
        } else if (s.kind === "dropped") {
          this.#s.settled.run(s.deliveryId, s.claimToken);
        } else {
          if (s.claim) {
            const { deliveryId, claimToken, attemptsMade } = s.claim;
            if (s.next.state === "pending") {
              this.#s.retry.run(attemptsMade, s.next.at, s.log.error ?? null, deliveryId, claimToken);
            } else {
              this.#s.settled.run(deliveryId, claimToken);
            }
          }
          this.#s.insertLog.run(...logValues(s.log));
        }
      }
      for (const d of deltas) {
        // node:sqlite binds no booleans: delivering as 0/1.
        this.#s.upsertFacts.run(...factsValues(d, now).map((v) => (typeof v === "boolean" ? Number(v) : v)));
      }
    });
  }

  async listLog(webhookId: string, limit: number, after?: LogPosition): Promise<LogPage> {
    const rows = (
      after
        ? this.#s.logPageAfter.all(webhookId, after.createdAt, after.createdAt, after.id, limit + 1)
        : this.#s.logPage.all(webhookId, limit + 1)
    ) as Row[];
    const items = rows.slice(0, limit).map(logFromRow);
    const last = items.at(-1);
    return rows.length > limit && last
      ? { items, next: { createdAt: last.createdAt, id: last.id } }
      : { items };
  }

  async getLog(webhookId: string, logId: string): Promise<LogEntry | undefined> {
    const row = this.#s.getLog.get(logId, webhookId) as Row | undefined;
    return row ? logFromRow(row) : undefined;
  }

  async countLog(webhookId: string): Promise<number> {
    return Number((this.#s.countLog.get(webhookId) as Row).n);
  }

  async facts(webhookId: string): Promise<WebhookFacts | undefined> {
    const row = this.#s.facts.get(webhookId) as Row | undefined;
    return row ? factsFromRow(row) : undefined;
  }

  async factsChangedSince(since: number): Promise<WebhookFacts[]> {
    return (this.#s.factsSince.all(since) as Row[]).map(factsFromRow);
  }

  async prune(now: number, retention: Retention): Promise<PruneResult> {
    return this.#tx(() => {
      let logEntries = Number(this.#s.pruneLogAge.run(now - retention.logMaxAgeMs).changes);
      for (const row of this.#s.overfullWebhooks.all(retention.logMaxPerWebhook) as Row[]) {
        const cut = this.#s.logCutoff.get(row.webhook_id as string, retention.logMaxPerWebhook) as
          | Row
          | undefined;
        if (!cut) continue;
        logEntries += Number(
          this.#s.pruneLogCount.run(
            row.webhook_id as string,
            cut.created_at as number,
            cut.created_at as number,
            cut.id as string,
          ).changes,
        );
      }
      const events = Number(this.#s.pruneEvents.run(now - retention.settledMaxAgeMs).changes);
      this.#s.pruneOpenStreams.run(now - OPEN_STREAM_KEEP_MS);
      this.#s.pruneSignerSessions.run(now - SIGNER_SESSION_KEEP_MS);
      this.#s.pruneSignerDays.run(now - SIGNER_DAY_KEEP_MS);
      return { logEntries, events };
    });
  }

  async openStream(key: string, now: number, windowMs: number): Promise<number> {
    return Number((this.#s.openStream.get(key, now, windowMs) as Row).started_at);
  }

  async endStream(key: string): Promise<void> {
    this.#s.endStream.run(key);
  }

  async recordSignerSpend(batch: readonly SignerSpendRecord[]): Promise<SignerSpendResult[]> {
    return recordSignerSpendTx(this.#db, this.#spend, batch);
  }

  async loadSignerSpend(day: string, sessionsSince: number): Promise<SignerSpendSnapshot> {
    return {
      days: (this.#s.signerDaysFrom.all(day) as Row[]).map((r) => ({
        signer: r.signer as string,
        tenant: r.tenant as string,
        day: r.day as string,
        spent: BigInt(r.spent as string),
      })),
      sessions: (this.#s.signerSessionsSince.all(sessionsSince) as Row[]).map(signerSessionFromRow),
    };
  }

  async forgetWebhook(webhookId: string): Promise<void> {
    this.#tx(() => {
      // The queue is small (unsettled deliveries only): no index on webhook_id for this rare call.
      this.#db.prepare("DELETE FROM deliveries WHERE webhook_id = ?").run(webhookId);
      this.#db.prepare("DELETE FROM delivery_log WHERE webhook_id = ?").run(webhookId);
      this.#db.prepare("DELETE FROM webhook_facts WHERE webhook_id = ?").run(webhookId);
    });
  }

  async queueStats(): Promise<QueueStats> {
    const row = this.#s.stats.get() as Row;
    return {
      pending: Number(row.pending),
      oldestPendingCreatedAt: row.oldest === null ? undefined : Number(row.oldest),
    };
  }

  async close(): Promise<void> {
    await this.#checkpointer?.stop();
    if (this.#db.isOpen) this.#db.close();
  }
}

function prepare(db: DatabaseSync) {
  const p = (sql: string): StatementSync => db.prepare(sql);
  const logPage = `SELECT * FROM delivery_log WHERE webhook_id = ?`;
  const logOrder = `ORDER BY created_at DESC, id ASC LIMIT ?`;
  return {
    insertEvent: p(`INSERT INTO delivery_events
      (id, user_id, project_id, kind, stream_id, stream, payload, created_at, recorded_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, project_id, id) DO NOTHING RETURNING seq`),
    insertDelivery: p(`INSERT INTO deliveries (event_seq, webhook_id, next_attempt_at, created_at)
      VALUES (?, ?, ?, ?)`),
    insertLeased: p(`INSERT INTO deliveries
      (event_seq, webhook_id, next_attempt_at, created_at, leased_until, claim_token, claimed_by)
      VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`),
    goneRevision: p(`SELECT gone_revision FROM webhook_facts WHERE webhook_id = ?`),
    due: p(`SELECT d.id AS delivery_id, d.webhook_id, d.attempts, d.created_at AS delivery_created_at,
        e.id, e.user_id, e.project_id, e.kind, e.stream_id, e.stream, e.payload, e.created_at, f.gone_revision
      FROM deliveries d
      JOIN delivery_events e ON e.seq = d.event_seq
      LEFT JOIN webhook_facts f ON f.webhook_id = d.webhook_id
      WHERE d.next_attempt_at <= ?1 AND (d.leased_until IS NULL OR d.leased_until <= ?1)
        AND d.webhook_id NOT IN (SELECT value FROM json_each(?2))
      ORDER BY d.next_attempt_at LIMIT ?3`),
    lease: p(`UPDATE deliveries SET leased_until = ?, claim_token = ?, claimed_by = ? WHERE id = ?`),
    release:
      p(`UPDATE deliveries SET next_attempt_at = ?, leased_until = NULL, claim_token = NULL, claimed_by = NULL
      WHERE id = ? AND claim_token = ?`),
    retry: p(`UPDATE deliveries SET attempts = ?, next_attempt_at = ?, last_error = ?, leased_until = NULL,
        claim_token = NULL, claimed_by = NULL
      WHERE id = ? AND claim_token = ?`),
    settled: p(`DELETE FROM deliveries WHERE id = ? AND claim_token = ?`),
    insertLog: p(`INSERT INTO delivery_log (${LOG_COLUMNS.join(", ")})
      VALUES (${LOG_COLUMNS.map(() => "?").join(", ")}) ON CONFLICT (id) DO NOTHING`),
    upsertFacts: p(`INSERT INTO webhook_facts (${FACTS_COLUMNS.join(", ")})
      VALUES (${FACTS_COLUMNS.map(() => "?").join(", ")})
      ON CONFLICT (webhook_id) DO UPDATE SET
    ${factsMergeSet("max")}`),
    logPage: p(`${logPage} ${logOrder}`),
    logPageAfter: p(`${logPage} AND (created_at < ? OR (created_at = ? AND id > ?)) ${logOrder}`),
    getLog: p(`SELECT * FROM delivery_log WHERE id = ? AND webhook_id = ?`),
    countLog: p(`SELECT count(*) AS n FROM delivery_log WHERE webhook_id = ?`),
    facts: p(`SELECT * FROM webhook_facts WHERE webhook_id = ?`),
    factsSince: p(`SELECT * FROM webhook_facts WHERE updated_at >= ? ORDER BY updated_at`),
    pruneLogAge: p(`DELETE FROM delivery_log WHERE created_at < ?`),
    overfullWebhooks: p(`SELECT webhook_id FROM delivery_log GROUP BY webhook_id HAVING count(*) > ?`),
    logCutoff: p(`SELECT created_at, id FROM delivery_log WHERE webhook_id = ?
      ORDER BY created_at DESC, id ASC LIMIT 1 OFFSET ?`),
    pruneLogCount: p(
      `DELETE FROM delivery_log WHERE webhook_id = ? AND (created_at < ? OR (created_at = ? AND id >= ?))`,
    ),
    pruneEvents: p(`DELETE FROM delivery_events WHERE recorded_at < ?
      AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_seq = delivery_events.seq)`),
    stats: p(`SELECT count(*) AS pending, min(created_at) AS oldest FROM deliveries`),
    openStream: p(`INSERT INTO open_streams (key, started_at) VALUES (?1, ?2)
      ON CONFLICT (key) DO UPDATE SET started_at = CASE WHEN ?2 - open_streams.started_at >= ?3
        THEN excluded.started_at ELSE open_streams.started_at END
      RETURNING started_at`),
    endStream: p(`DELETE FROM open_streams WHERE key = ?`),
    pruneOpenStreams: p(`DELETE FROM open_streams WHERE started_at < ?`),
    signerDaysFrom: p(`SELECT signer, tenant, day, spent FROM signer_spend_days WHERE day >= ?`),
    signerSessionsSince: p(`SELECT * FROM signer_sessions WHERE updated_at >= ?`),
    pruneSignerSessions: p(`DELETE FROM signer_sessions WHERE updated_at < ?`),
    pruneSignerDays: p(`DELETE FROM signer_spend_days WHERE updated_at < ?`),
  };
}
