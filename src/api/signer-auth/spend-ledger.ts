// The spend the auth webhook decides on, in memory (a signer waits on every decision), written
// behind to the delivery store and read back at start, so budgets hold across an API restart.
// Written behind means: what a second of payments changed, coalesced per session (a session's
// payments in that second are one row write: its highest spend, the sum it added to the day),
// in one transaction per batch; a graceful stop writes what is pending, a crash loses at most
// that last second of counting. With several replicas
// on PostgreSQL each one's view of a tenant's day is what it counted plus the store's total as of
// its last write for that tenant; a session is counted once whichever replica sees it.

import type { Logger } from "../../process/log.ts";
import type { SignerSpendRecord, SignerSpendResult } from "../delivery/store/signer-spend.ts";
import { SIGNER_SESSION_KEEP_MS, utcDay } from "../delivery/store/signer-spend.ts";
import type { DeliveryStore } from "../delivery/store/types.ts";
import type { LedgerView, Spend } from "./decision.ts";

type SpendStore = Pick<DeliveryStore, "recordSignerSpend" | "loadSignerSpend">;

interface DayCount {
  /** The store's total as of this replica's last write. */
  stored: bigint;
  /** Counted here, not written yet. */
  pending: bigint;
}

interface SessionCount {
  tenant: string;
  start: { at: number; seq: number };
  spent: bigint;
  seenAt: number;
}

type PendingWrite = SignerSpendRecord & { added: bigint };

/** How long payments gather before they are written (and a failed write waits to be retried). */
export const SPEND_FLUSH_MS = 1_000;
const RETRY_MS = 1_000;
/** Sessions per transaction; this many pending writes flush at once. */
const MAX_BATCH = 1_000;

export class SpendLedger {
  readonly #store: SpendStore;
  readonly #log: Logger | undefined;
  readonly #now: () => number;
  readonly #days = new Map<string, DayCount>();
  readonly #sessions = new Map<string, SessionCount>();
  /** Per session and day: what is counted here and not written yet. */
  readonly #dirty = new Map<string, PendingWrite>();
  readonly #flushMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> | undefined;
  #closed = false;
  #records = 0;

  constructor(store: SpendStore, opts: { log?: Logger; now?: () => number; flushMs?: number } = {}) {
    this.#store = store;
    this.#log = opts.log;
    this.#now = opts.now ?? Date.now;
    this.#flushMs = opts.flushMs ?? SPEND_FLUSH_MS;
  }

  /** Today's days and the recent sessions from the store (before the hook serves). */
  async load(): Promise<void> {
    const now = this.#now();
    const snap = await this.#store.loadSignerSpend(utcDay(now), now - SIGNER_SESSION_KEEP_MS);
    for (const d of snap.days) {
      this.#days.set(dayKey(d.signer, d.tenant, d.day), { stored: d.spent, pending: 0n });
    }
    for (const s of snap.sessions) {
      this.#sessions.set(sessionKey(s.signer, s.stateId), {
        tenant: s.tenant,
        start: { at: s.startedAt, seq: s.startSeq },
        spent: s.spent,
        seenAt: now,
      });
    }
  }

  view(signer: string, tenant: string, stateId: string | undefined, now: number): LedgerView {
    const day = this.#days.get(dayKey(signer, tenant, utcDay(now)));
    const session = stateId ? this.#sessions.get(sessionKey(signer, stateId)) : undefined;
    return {
      spentToday: day ? day.stored + day.pending : 0n,
      ...(session ? { session: { tenant: session.tenant, start: session.start, spent: session.spent } } : {}),
    };
  }

  /** An allowed payment: counted now, durable shortly after. */
  record(signer: string, tenant: string, spend: Spend, now: number): void {
    const key = sessionKey(signer, spend.stateId);
    const known = this.#sessions.get(key);
    this.#sessions.set(key, {
      tenant,
      start: known?.start ?? spend.start,
      spent: known && known.spent > spend.spent ? known.spent : spend.spent,
      seenAt: now,
    });
    const day = utcDay(now);
    const count = this.#dayCount(signer, tenant, day);
    count.pending += spend.added;
    if (++this.#records % 10_000 === 0) this.#forgetOld(now);
    this.#pend({
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
    if (this.#dirty.size === 0) return;
    this.#cancelTimer();
    await this.#flush();
  }

  /** Writes what is pending and stops retrying. */
  async close(): Promise<void> {
    await this.flushed();
    this.#closed = true;
    this.#cancelTimer();
  }

  /** Payments of one session (and day) since the last write become one write. */
  #pend(r: PendingWrite): void {
    const key = `${r.signer}\n${r.stateId}\n${r.day}`;
    const known = this.#dirty.get(key);
    if (known) {
      known.added += r.added;
      if (r.spent > known.spent) known.spent = r.spent;
      known.at = r.at;
    } else {
      this.#dirty.set(key, { ...r });
    }
    if (this.#dirty.size >= MAX_BATCH && !this.#writing) {
      this.#cancelTimer();
      void this.#flush();
    } else {
      this.#schedule(this.#flushMs);
    }
  }

  #schedule(ms: number): void {
    if (this.#timer || this.#writing || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#flush();
    }, ms);
    this.#timer.unref();
  }

  #cancelTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #flush(): Promise<void> {
    this.#writing ??= (async () => {
      let failed = false;
      try {
        while (this.#dirty.size > 0 && !failed) {
          const batch: PendingWrite[] = [];
          for (const [key, r] of this.#dirty) {
            batch.push(r);
            this.#dirty.delete(key);
            if (batch.length >= MAX_BATCH) break;
          }
          failed = !(await this.#write(batch));
        }
      } finally {
        this.#writing = undefined;
      }
      if (this.#dirty.size > 0) this.#schedule(failed ? RETRY_MS : this.#flushMs);
    })();
    return this.#writing;
  }

  /** One transaction; on failure the batch goes back to pending (still counted here). */
  async #write(batch: PendingWrite[]): Promise<boolean> {
    let results: SignerSpendResult[];
    try {
      results = await this.#store.recordSignerSpend(batch);
    } catch (err) {
      this.#log?.warn("signer spend not written to the delivery store yet (counted in memory; retried)", {
        error: (err as Error).message,
        records: batch.length,
      });
      for (const r of batch) this.#repend(r);
      return false;
    }
    batch.forEach((r, i) => {
      this.#written(r, results[i]!);
    });
    return true;
  }

  /** A failed write's record, merged back under what was counted since. */
  #repend(r: PendingWrite): void {
    const key = `${r.signer}\n${r.stateId}\n${r.day}`;
    const since = this.#dirty.get(key);
    if (!since) {
      this.#dirty.set(key, r);
      return;
    }
    since.added += r.added;
    if (r.spent > since.spent) since.spent = r.spent;
    since.startedAt = r.startedAt;
    since.startSeq = r.startSeq;
  }

  #written(r: PendingWrite, result: SignerSpendResult): void {
    const count = this.#dayCount(r.signer, result.session.tenant, r.day);
    count.pending -= r.added;
    if (count.pending < 0n) count.pending = 0n;
    if (result.dayTotal > count.stored) count.stored = result.dayTotal;
    const key = sessionKey(r.signer, r.stateId);
    const local = this.#sessions.get(key);
    const s = result.session;
    this.#sessions.set(key, {
      tenant: s.tenant,
      start: { at: s.startedAt, seq: s.startSeq },
      spent: local && local.spent > s.spent ? local.spent : s.spent,
      seenAt: local?.seenAt ?? r.at,
    });
  }

  #dayCount(signer: string, tenant: string, day: string): DayCount {
    const key = dayKey(signer, tenant, day);
    let count = this.#days.get(key);
    if (!count) {
      count = { stored: 0n, pending: 0n };
      this.#days.set(key, count);
    }
    return count;
  }

  /** Memory stays bounded: sessions unseen for two days and past days go. */
  #forgetOld(now: number): void {
    for (const [k, s] of this.#sessions)
      if (now - s.seenAt > SIGNER_SESSION_KEEP_MS) this.#sessions.delete(k);
    const today = utcDay(now);
    for (const [k, d] of this.#days) if (!k.endsWith(`\n${today}`) && d.pending === 0n) this.#days.delete(k);
  }
}

const dayKey = (signer: string, tenant: string, day: string) => `${signer}\n${tenant}\n${day}`;
const sessionKey = (signer: string, stateId: string) => `${signer}\n${stateId}`;
