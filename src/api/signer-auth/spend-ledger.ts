// The spend the auth webhook decides on, in memory (a signer waits on every decision), written
// behind to the delivery store (group commit: one transaction per batch, as the delivery engine
// writes) and read back at start, so budgets hold across an API restart. With several replicas
// on PostgreSQL each one's view of a tenant's day is what it counted plus the store's total as of
// its last write for that tenant; a session is counted once whichever replica sees it.

import type { Logger } from "../../process/log.ts";
import { GroupCommit } from "../delivery/group-commit.ts";
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

const RETRY_MS = 1_000;

export class SpendLedger {
  readonly #store: SpendStore;
  readonly #log: Logger | undefined;
  readonly #now: () => number;
  readonly #days = new Map<string, DayCount>();
  readonly #sessions = new Map<string, SessionCount>();
  readonly #writes: GroupCommit<SignerSpendRecord & { added: bigint }, SignerSpendResult>;
  readonly #retries = new Set<ReturnType<typeof setTimeout>>();
  #closed = false;
  #records = 0;

  constructor(store: SpendStore, opts: { log?: Logger; now?: () => number } = {}) {
    this.#store = store;
    this.#log = opts.log;
    this.#now = opts.now ?? Date.now;
    // Nothing waits on a write: let a batch gather for 20 ms (one transaction for many payments).
    this.#writes = new GroupCommit((batch) => this.#write(batch), { maxBatch: 1_000, lingerMs: 20 });
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
  flushed(): Promise<void> {
    return this.#writes.flushed();
  }

  /** Writes what is pending and stops retrying. */
  async close(): Promise<void> {
    await this.#writes.flushed();
    this.#closed = true;
    for (const t of this.#retries) clearTimeout(t);
    this.#retries.clear();
  }

  #enqueue(r: SignerSpendRecord & { added: bigint }): void {
    this.#writes.add(r).then(
      (result) => this.#written(r, result),
      () => {
        // Still counted here; written at the next try (#write logged why).
        if (this.#closed) return;
        const t = setTimeout(() => {
          this.#retries.delete(t);
          this.#enqueue(r);
        }, RETRY_MS);
        t.unref();
        this.#retries.add(t);
      },
    );
  }

  async #write(batch: (SignerSpendRecord & { added: bigint })[]): Promise<SignerSpendResult[]> {
    try {
      return await this.#store.recordSignerSpend(batch);
    } catch (err) {
      this.#log?.warn("signer spend not written to the delivery store yet (counted in memory; retried)", {
        error: (err as Error).message,
        records: batch.length,
      });
      throw err;
    }
  }

  #written(r: SignerSpendRecord & { added: bigint }, result: SignerSpendResult): void {
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
