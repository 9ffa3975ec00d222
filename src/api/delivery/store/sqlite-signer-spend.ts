// The remote-signer spend tables on SQLite: one transaction per batch of payments (a session's
// spend only grows, its tenant's day grows by what the session grew). Shared by the store's own
// connection and the spend writer's thread (sqlite-spend-thread.ts), which holds a second one.
import type { DatabaseSync, StatementSync } from "node:sqlite";
import {
  DayGrowth,
  inLockOrder,
  mergeSession,
  type SignerSession,
  type SignerSpendRecord,
  type SignerSpendResult,
} from "./signer-spend.ts";

type Row = Record<string, unknown>;

export interface SignerSpendStatements {
  session: StatementSync;
  putSession: StatementSync;
  day: StatementSync;
  putDay: StatementSync;
}

export function signerSpendStatements(db: DatabaseSync): SignerSpendStatements {
  return {
    session: db.prepare(`SELECT * FROM signer_sessions WHERE signer = ? AND state_id = ?`),
    putSession: db.prepare(`INSERT INTO signer_sessions
      (signer, state_id, tenant, started_at, start_seq, spent, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (signer, state_id) DO UPDATE SET spent = excluded.spent,
        updated_at = max(signer_sessions.updated_at, excluded.updated_at)`),
    day: db.prepare(`SELECT spent FROM signer_spend_days WHERE signer = ? AND tenant = ? AND day = ?`),
    putDay:
      db.prepare(`INSERT INTO signer_spend_days (signer, tenant, day, spent, updated_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (signer, tenant, day) DO UPDATE SET spent = excluded.spent,
        updated_at = max(signer_spend_days.updated_at, excluded.updated_at)`),
  };
}

/** Writes a batch in one IMMEDIATE transaction: each record's session as stored and its day's total. */
export function recordSignerSpendTx(
  db: DatabaseSync,
  s: SignerSpendStatements,
  batch: readonly SignerSpendRecord[],
): SignerSpendResult[] {
  const sessions = new Map<SignerSpendRecord, { session: SignerSession; day: string }>();
  const totals = new Map<string, bigint>();
  db.exec("BEGIN IMMEDIATE");
  try {
    const growth = new DayGrowth();
    for (const r of inLockOrder(batch)) {
      const row = s.session.get(r.signer, r.stateId) as Row | undefined;
      const { session, grew } = mergeSession(row && signerSessionFromRow(row), r);
      if (!row || grew > 0n) {
        s.putSession.run(
          r.signer,
          r.stateId,
          session.tenant,
          session.startedAt,
          session.startSeq,
          session.spent.toString(),
          r.at,
        );
      }
      sessions.set(r, { session, day: growth.add(r.signer, session.tenant, r.day, grew, r.at) });
    }
    for (const g of growth.days()) {
      const day = s.day.get(g.signer, g.tenant, g.day) as Row | undefined;
      const total = (day ? BigInt(day.spent as string) : 0n) + g.grew;
      if (!day || g.grew > 0n) s.putDay.run(g.signer, g.tenant, g.day, total.toString(), g.at);
      totals.set(g.key, total);
    }
    db.exec("COMMIT");
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
  return batch.map((r) => {
    const { session, day } = sessions.get(r)!;
    return { session, dayTotal: totals.get(day)! };
  });
}

export function signerSessionFromRow(r: Row): SignerSession {
  return {
    signer: r.signer as string,
    stateId: r.state_id as string,
    tenant: r.tenant as string,
    startedAt: Number(r.started_at),
    startSeq: Number(r.start_seq),
    spent: BigInt(r.spent as string),
  };
}
