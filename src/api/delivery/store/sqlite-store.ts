// The embedded store: one SQLite file through Node's built-in node:sqlite, for a single replica.
// WAL mode with synchronous=NORMAL: a committed batch survives the process being killed (the WAL
// is in the OS's hands) and the WAL is synced at each checkpoint, so a power cut loses at most the
// last half second, never the file. node:sqlite is synchronous; every call here is one short
// transaction over a batch (about 0.1 ms at the median). Every write (sqlite-queue.ts) runs in a
// thread with a connection of its own (sqlite-queue-writer.ts; on this connection for
// `:memory:`), this connection reads (and migrates), and checkpoints run in a third thread.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { ClaimedDelivery, LogEntry, LogPage, LogPosition, WebhookFacts } from "../model.ts";
import { factsFromRow, logFromRow } from "./rows.ts";
import type { SignerSpendRecord, SignerSpendResult, SignerSpendSnapshot } from "./signer-spend.ts";
import { SqliteCheckpointer } from "./sqlite-checkpointer.ts";
import {
  claimTx,
  endStreamRun,
  enqueueTx,
  forgetWebhookTx,
  type OtherStatements,
  openStreamRun,
  otherStatements,
  pruneTx,
  type QueueStatements,
  queueStatements,
  settleTx,
  sqliteTx,
} from "./sqlite-queue.ts";
import { SqliteQueueWriter } from "./sqlite-queue-writer.ts";
import { SQLITE_MIGRATIONS } from "./sqlite-schema.ts";
import {
  recordSignerSpendTx,
  type SignerSpendStatements,
  signerSessionFromRow,
  signerSpendStatements,
} from "./sqlite-signer-spend.ts";
import type {
  ClaimRequest,
  DeliveryStore,
  EnqueueLease,
  EnqueueRequest,
  EnqueueResult,
  PruneResult,
  QueueStats,
  Retention,
  Settlement,
} from "./types.ts";

type Row = Record<string, unknown>;

export class SqliteDeliveryStore implements DeliveryStore {
  readonly backend = "sqlite";
  readonly file: string;
  readonly #db: DatabaseSync;
  readonly #s: ReturnType<typeof prepare>;
  readonly #spend: SignerSpendStatements;
  readonly #checkpointer: SqliteCheckpointer | undefined;
  /** The queue's transactions: in a thread for a file (sqlite-queue-writer.ts), here for `:memory:`. */
  readonly #queue: SqliteQueueWriter | undefined;
  readonly #q: QueueStatements | undefined;
  readonly #o: OtherStatements | undefined;
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
      this.#queue = new SqliteQueueWriter(file);
    } else {
      this.#q = queueStatements(this.#db);
      this.#o = otherStatements(this.#db);
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
    return sqliteTx(this.#db, body);
  }

  async enqueue(
    batch: readonly EnqueueRequest[],
    now: number,
    lease?: EnqueueLease,
  ): Promise<EnqueueResult[]> {
    if (this.#queue) {
      const results = JSON.parse(
        await this.#queue.call("enqueue", JSON.stringify([batch, now, lease ?? null])),
      ) as EnqueueResult[];
      for (const r of results) if (r.leased) claimedFromJson(r.leased);
      return results;
    }
    return enqueueTx(this.#db, this.#q!, batch, now, lease, `${lease?.owner}:${++this.#claims}:${now}`);
  }

  async claim(r: ClaimRequest): Promise<ClaimedDelivery[]> {
    if (this.#queue) return claimedFromJson(JSON.parse(await this.#queue.call("claim", JSON.stringify(r))));
    return claimTx(this.#db, this.#q!, r, `${r.owner}:${++this.#claims}:${r.now}`);
  }

  async settle(batch: readonly Settlement[], now: number): Promise<void> {
    if (batch.length === 0) return;
    if (this.#queue) await this.#queue.call("settle", JSON.stringify([batch, now]));
    else settleTx(this.#db, this.#q!, batch, now);
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
    if (this.#queue) {
      return JSON.parse(await this.#queue.call("prune", JSON.stringify([now, retention]))) as PruneResult;
    }
    return pruneTx(this.#db, this.#o!, now, retention);
  }

  async openStream(key: string, now: number, windowMs: number): Promise<number> {
    if (this.#queue)
      return Number(await this.#queue.call("openStream", JSON.stringify([key, now, windowMs])));
    return openStreamRun(this.#o!, key, now, windowMs);
  }

  async endStream(key: string): Promise<void> {
    if (this.#queue) await this.#queue.call("endStream", key);
    else endStreamRun(this.#o!, key);
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
    if (this.#queue) await this.#queue.call("forgetWebhook", webhookId);
    else forgetWebhookTx(this.#db, webhookId);
  }

  async queueStats(): Promise<QueueStats> {
    const row = this.#s.stats.get() as Row;
    return {
      pending: Number(row.pending),
      oldestPendingCreatedAt: row.oldest === null ? undefined : Number(row.oldest),
    };
  }

  /** For tests: the queue's thread ends as if it had crashed (the next call starts another). */
  async crashQueueThreadForTest(): Promise<void> {
    await this.#queue?.crashThreadForTest();
  }

  async close(): Promise<void> {
    await this.#queue?.close();
    await this.#checkpointer?.stop();
    if (this.#db.isOpen) this.#db.close();
  }
}

/** Claimed deliveries as they crossed from the queue thread: the keys JSON left out (undefined) put back. */
function claimedFromJson(ds: ClaimedDelivery[]): ClaimedDelivery[] {
  for (const d of ds) {
    d.goneRevision ??= undefined;
    const e = d.event;
    e.streamId ??= undefined;
    e.stream ??= undefined;
    e.payload ??= undefined;
  }
  return ds;
}

function prepare(db: DatabaseSync) {
  const p = (sql: string): StatementSync => db.prepare(sql);
  const logPage = `SELECT * FROM delivery_log WHERE webhook_id = ?`;
  const logOrder = `ORDER BY created_at DESC, id ASC LIMIT ?`;
  return {
    logPage: p(`${logPage} ${logOrder}`),
    logPageAfter: p(`${logPage} AND (created_at < ? OR (created_at = ? AND id > ?)) ${logOrder}`),
    getLog: p(`SELECT * FROM delivery_log WHERE id = ? AND webhook_id = ?`),
    countLog: p(`SELECT count(*) AS n FROM delivery_log WHERE webhook_id = ?`),
    facts: p(`SELECT * FROM webhook_facts WHERE webhook_id = ?`),
    factsSince: p(`SELECT * FROM webhook_facts WHERE updated_at >= ? ORDER BY updated_at`),
    stats: p(`SELECT count(*) AS pending, min(created_at) AS oldest FROM deliveries`),
    signerDaysFrom: p(`SELECT signer, tenant, day, spent FROM signer_spend_days WHERE day >= ?`),
    signerSessionsSince: p(`SELECT * FROM signer_sessions WHERE updated_at >= ?`),
  };
}
