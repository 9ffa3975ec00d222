// The spend the auth webhook decides on, in memory (a signer waits on every decision), written
// behind to the delivery store (one transaction per batch gathered for 20 ms; on SQLite from a
// thread of its own, sqlite-spend-writer.ts) and read back at start, so budgets hold across an
// API restart. With several replicas
// on PostgreSQL each one's view of a tenant's day is what it counted plus the store's total as of
// its last write for that tenant; a session is counted once whichever replica sees it.

import type { Logger } from "../../process/log.ts";
import {
  batchResult,
  SIGNER_SESSION_KEEP_MS,
  type SignerSpendBatchResult,
  type SignerSpendRecord,
  utcDay,
} from "../delivery/store/signer-spend.ts";
import type { DeliveryStore } from "../delivery/store/types.ts";
import type { LedgerView, Spend } from "./decision.ts";
import { PairMap } from "./pair-map.ts";

type SpendStore = Pick<DeliveryStore, "recordSignerSpend" | "loadSignerSpend">;
/** Writes a batch (the store's recordSignerSpend, or SqliteSpendWriter's thread). */
export type SpendWrite = (batch: readonly SignerSpendRecord[]) => Promise<SignerSpendBatchResult>;
type Pending = SignerSpendRecord & { added: bigint };

interface DayCount {
  /** The store's total as of this replica's last write. */
  stored: bigint;
  /** Counted here, not written yet. */
  pending: bigint;
}

interface SessionCount {
  /** What the decision reads (handed to it as is: no copy per call). */
  view: { tenant: string; start: { at: number; seq: number }; spent: bigint };
  seenAt: number;
}

const RETRY_MS = 1_000;
// Nothing waits on a write: a batch gathers for 20 ms (one transaction for many payments).
const LINGER_MS = 20;
const MAX_BATCH = 1_000;

export class SpendLedger {
  readonly #store: SpendStore;
  readonly #log: Logger | undefined;
  readonly #now: () => number;
  /** By signer and tenant, then UTC day. */
  readonly #days = new PairMap<Map<string, DayCount>>();
  /** By signer and StateID. */
  readonly #sessions = new PairMap<SessionCount>();
  readonly #write: SpendWrite;
  #queue: Pending[] = [];
  #writing: Promise<void> | undefined;
  readonly #retries = new Set<ReturnType<typeof setTimeout>>();
  #closed = false;
  #records = 0;

  constructor(store: SpendStore, opts: { log?: Logger; now?: () => number; write?: SpendWrite } = {}) {
    this.#store = store;
    this.#log = opts.log;
    this.#now = opts.now ?? Date.now;
    this.#write = opts.write ?? (async (batch) => batchResult(batch, await store.recordSignerSpend(batch)));
  }

  /** Today's days and the recent sessions from the store (before the hook serves). */
  async load(): Promise<void> {
    const now = this.#now();
    const snap = await this.#store.loadSignerSpend(utcDay(now), now - SIGNER_SESSION_KEEP_MS);
    for (const d of snap.days) {
      this.#dayCount(d.signer, d.tenant, d.day).stored = d.spent;
    }
    for (const s of snap.sessions) {
      this.#sessions.set(s.signer, s.stateId, {
        view: { tenant: s.tenant, start: { at: s.startedAt, seq: s.startSeq }, spent: s.spent },
        seenAt: now,
      });
    }
  }

  view(signer: string, tenant: string, stateId: string | undefined, now: number): LedgerView {
    const day = this.#days.get(signer, tenant)?.get(utcDay(now));
    const session = stateId ? this.#sessions.get(signer, stateId)?.view : undefined;
    return { spentToday: day ? day.stored + day.pending : 0n, session };
  }

  /** An allowed payment: counted now, durable shortly after. */
  record(signer: string, tenant: string, spend: Spend, now: number): void {
    const known = this.#sessions.get(signer, spend.stateId);
    if (known) {
      known.view.tenant = tenant;
      if (spend.spent > known.view.spent) known.view.spent = spend.spent;
      known.seenAt = now;
    } else {
      this.#sessions.set(signer, spend.stateId, {
        view: { tenant, start: spend.start, spent: spend.spent },
        seenAt: now,
      });
    }
    const day = utcDay(now);
    const count = this.#dayCount(signer, tenant, day);
    count.pending += spend.added;
    if (++this.#records % 10_000 === 0) this.#forgetOld(now);
    this.#enqueue({
      signer,
      stateId: spend.stateId,
      tenant,
      startedAt: spend.start.at,
      startSeq: spend.start.seq,
      spent: spend.spent,
      day,
      at: now,
      added: spend.added,
    });
  }

  /** Resolves once everything recorded so far is written (or failed and waiting for a retry). */
  async flushed(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  /** Writes what is pending and stops retrying. */
  async close(): Promise<void> {
    await this.flushed();
    this.#closed = true;
    for (const t of this.#retries) clearTimeout(t);
    this.#retries.clear();
  }

  #enqueue(r: Pending): void {
    this.#queue.push(r);
    this.#writing ??= this.#drain();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        // Each batch gathers for LINGER_MS: a handful of writes a second, however busy (handing
        // a batch to a thread costs the event loop tens of µs, whatever its size); a full one goes.
        if (this.#queue.length < MAX_BATCH) await new Promise((resolve) => setTimeout(resolve, LINGER_MS));
        const batch = this.#queue.splice(0, MAX_BATCH);
        let result: SignerSpendBatchResult;
        try {
          result = await this.#write(batch);
        } catch (err) {
          this.#log?.warn("signer spend not written to the delivery store yet (counted in memory; retried)", {
            error: (err as Error).message,
            records: batch.length,
          });
          this.#retryLater(batch);
          continue;
        }
        this.#written(batch, result);
      }
    } finally {
      this.#writing = undefined;
    }
  }

  /** Still counted here; written at the next try. */
  #retryLater(batch: Pending[]): void {
    if (this.#closed) return;
    const t = setTimeout(() => {
      this.#retries.delete(t);
      for (const r of batch) this.#enqueue(r);
    }, RETRY_MS);
    t.unref();
    this.#retries.add(t);
  }

  /** What was pending is stored now: the store's totals, and its rows where they differ. */
  #written(batch: readonly Pending[], result: SignerSpendBatchResult): void {
    for (const r of batch) {
      const count = this.#dayCount(r.signer, r.tenant, r.day);
      count.pending -= r.added;
      if (count.pending < 0n) count.pending = 0n;
    }
    for (const d of result.days) {
      const count = this.#dayCount(d.signer, d.tenant, d.day);
      if (d.spent > count.stored) count.stored = d.spent;
    }
    for (const s of result.sessions) {
      const local = this.#sessions.get(s.signer, s.stateId);
      this.#sessions.set(s.signer, s.stateId, {
        view: {
          tenant: s.tenant,
          start: { at: s.startedAt, seq: s.startSeq },
          spent: local && local.view.spent > s.spent ? local.view.spent : s.spent,
        },
        seenAt: local?.seenAt ?? this.#now(),
      });
    }
  }

  #dayCount(signer: string, tenant: string, day: string): DayCount {
    let days = this.#days.get(signer, tenant);
    if (!days) {
      days = new Map();
      this.#days.set(signer, tenant, days);
    }
    let count = days.get(day);
    if (!count) {
      count = { stored: 0n, pending: 0n };
      days.set(day, count);
    }
    return count;
  }

  /** Memory stays bounded: sessions unseen for two days and past days go. */
  #forgetOld(now: number): void {
    this.#sessions.deleteWhere((s) => now - s.seenAt > SIGNER_SESSION_KEEP_MS);
    const today = utcDay(now);
    this.#days.deleteWhere((days) => {
      for (const [day, d] of days) if (day !== today && d.pending === 0n) days.delete(day);
      return days.size === 0;
    });
  }
}
