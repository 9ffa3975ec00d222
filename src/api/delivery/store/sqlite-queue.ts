// The SQLite store's writes: the queue's hot path (enqueue, claim and settle, each one IMMEDIATE
// transaction over a batch) and the rest (retention, a webhook forgotten, streams opened and
// ended). Shared by the store's own connection (a `:memory:` store) and the queue writer's thread
// (sqlite-queue-thread.ts), which holds a connection of its own to the store's file: so the
// store's connection on the API thread only reads (in WAL a reader never waits for the writer; a
// second writer would, in a busy wait on the event loop).
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { ClaimedDelivery } from "../model.ts";
import { answers, eventKey, storedEvent } from "./enqueue-answers.ts";
import { factsDeltas } from "./facts-delta.ts";
import { FACTS_COLUMNS, factsMergeSet, factsValues } from "./facts-sql.ts";
import { eventFromRow, eventValues, LOG_COLUMNS, logValues } from "./rows.ts";
import { SIGNER_DAY_KEEP_MS, SIGNER_SESSION_KEEP_MS } from "./signer-spend.ts";
import {
  type ClaimRequest,
  type EnqueueLease,
  type EnqueueRequest,
  type EnqueueResult,
  OPEN_STREAM_KEEP_MS,
  type PruneResult,
  type Retention,
  type Settlement,
} from "./types.ts";

type Row = Record<string, unknown>;

export type QueueStatements = ReturnType<typeof queueStatements>;

export function queueStatements(db: DatabaseSync) {
  const p = (sql: string): StatementSync => db.prepare(sql);
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
  };
}

/** Runs `body` in one IMMEDIATE transaction (rolled back when it throws). */
export function sqliteTx<T>(db: DatabaseSync, body: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const out = body();
    db.exec("COMMIT");
    return out;
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}

/** Records a batch of events and their deliveries; `token` names this enqueue's lease. */
export function enqueueTx(
  db: DatabaseSync,
  s: QueueStatements,
  batch: readonly EnqueueRequest[],
  now: number,
  lease: EnqueueLease | undefined,
  token: string,
): EnqueueResult[] {
  let room = lease?.max ?? 0;
  const created = new Map<string, ClaimedDelivery[]>();
  sqliteTx(db, () => {
    for (const { event: e, webhookIds } of batch) {
      const row = s.insertEvent.get(...eventValues(e, now), now) as Row | undefined;
      if (!row) continue;
      const leased: ClaimedDelivery[] = [];
      created.set(eventKey(e), leased);
      for (const w of new Set(webhookIds)) {
        if (room <= 0 || !lease) {
          s.insertDelivery.run(row.seq as number, w, now, now);
          continue;
        }
        room--;
        const d = s.insertLeased.get(
          row.seq as number,
          w,
          now,
          now,
          now + lease.leaseMs,
          token,
          lease.owner,
        ) as Row;
        const gone = (s.goneRevision.get(w) as Row | undefined)?.gone_revision;
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

/** Leases due deliveries to `r.owner` under `token`. */
export function claimTx(
  db: DatabaseSync,
  s: QueueStatements,
  r: ClaimRequest,
  token: string,
): ClaimedDelivery[] {
  return sqliteTx(db, () => {
    const rows = s.due.all(r.now, JSON.stringify(r.skipWebhooks), r.limit) as Row[];
    for (const row of rows) s.lease.run(r.now + r.leaseMs, token, r.owner, row.delivery_id as number);
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

/** Records a batch of outcomes, their log rows and their webhooks' facts. */
export function settleTx(
  db: DatabaseSync,
  s: QueueStatements,
  batch: readonly Settlement[],
  now: number,
): void {
  if (batch.length === 0) return;
  const deltas = factsDeltas(batch);
  sqliteTx(db, () => {
    for (const x of batch) {
      if (x.kind === "released") {
        s.release.run(x.at, x.deliveryId, x.claimToken);
      } else if (x.kind === "dropped") {
        s.settled.run(x.deliveryId, x.claimToken);
      } else {
        if (x.claim) {
          const { deliveryId, claimToken, attemptsMade } = x.claim;
          if (x.next.state === "pending") {
            s.retry.run(attemptsMade, x.next.at, x.log.error ?? null, deliveryId, claimToken);
          } else {
            s.settled.run(deliveryId, claimToken);
          }
        }
        s.insertLog.run(...logValues(x.log));
      }
    }
    for (const d of deltas) {
      // node:sqlite binds no booleans: delivering as 0/1.
      s.upsertFacts.run(...factsValues(d, now).map((v) => (typeof v === "boolean" ? Number(v) : v)));
    }
  });
}

export type OtherStatements = ReturnType<typeof otherStatements>;

export function otherStatements(db: DatabaseSync) {
  const p = (sql: string): StatementSync => db.prepare(sql);
  return {
    pruneLogAge: p(`DELETE FROM delivery_log WHERE created_at < ?`),
    overfullWebhooks: p(`SELECT webhook_id FROM delivery_log GROUP BY webhook_id HAVING count(*) > ?`),
    logCutoff: p(`SELECT created_at, id FROM delivery_log WHERE webhook_id = ?
      ORDER BY created_at DESC, id ASC LIMIT 1 OFFSET ?`),
    pruneLogCount: p(
      `DELETE FROM delivery_log WHERE webhook_id = ? AND (created_at < ? OR (created_at = ? AND id >= ?))`,
    ),
    pruneEvents: p(`DELETE FROM delivery_events WHERE recorded_at < ?
      AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_seq = delivery_events.seq)`),
    openStream: p(`INSERT INTO open_streams (key, started_at) VALUES (?1, ?2)
      ON CONFLICT (key) DO UPDATE SET started_at = CASE WHEN ?2 - open_streams.started_at >= ?3
        THEN excluded.started_at ELSE open_streams.started_at END
      RETURNING started_at`),
    endStream: p(`DELETE FROM open_streams WHERE key = ?`),
    pruneOpenStreams: p(`DELETE FROM open_streams WHERE started_at < ?`),
    pruneSignerSessions: p(`DELETE FROM signer_sessions WHERE updated_at < ?`),
    pruneSignerDays: p(`DELETE FROM signer_spend_days WHERE updated_at < ?`),
  };
}

export function pruneTx(
  db: DatabaseSync,
  s: OtherStatements,
  now: number,
  retention: Retention,
): PruneResult {
  return sqliteTx(db, () => {
    let logEntries = Number(s.pruneLogAge.run(now - retention.logMaxAgeMs).changes);
    for (const row of s.overfullWebhooks.all(retention.logMaxPerWebhook) as Row[]) {
      const cut = s.logCutoff.get(row.webhook_id as string, retention.logMaxPerWebhook) as Row | undefined;
      if (!cut) continue;
      logEntries += Number(
        s.pruneLogCount.run(
          row.webhook_id as string,
          cut.created_at as number,
          cut.created_at as number,
          cut.id as string,
        ).changes,
      );
    }
    const events = Number(s.pruneEvents.run(now - retention.settledMaxAgeMs).changes);
    s.pruneOpenStreams.run(now - OPEN_STREAM_KEEP_MS);
    s.pruneSignerSessions.run(now - SIGNER_SESSION_KEEP_MS);
    s.pruneSignerDays.run(now - SIGNER_DAY_KEEP_MS);
    return { logEntries, events };
  });
}

export function forgetWebhookTx(db: DatabaseSync, webhookId: string): void {
  sqliteTx(db, () => {
    // The queue is small (unsettled deliveries only): no index on webhook_id for this rare call.
    db.prepare("DELETE FROM deliveries WHERE webhook_id = ?").run(webhookId);
    db.prepare("DELETE FROM delivery_log WHERE webhook_id = ?").run(webhookId);
    db.prepare("DELETE FROM webhook_facts WHERE webhook_id = ?").run(webhookId);
  });
}

export function openStreamRun(s: OtherStatements, key: string, now: number, windowMs: number): number {
  return Number((s.openStream.get(key, now, windowMs) as Row).started_at);
}

export function endStreamRun(s: OtherStatements, key: string): void {
  s.endStream.run(key);
}
