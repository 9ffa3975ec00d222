// A delivery store that keeps everything in this process's memory and nothing durable: for
// bench/delivery.ts --floor only (never used by the API). The engine runs on it exactly as on a
// real store (group-committed enqueues, claims with leases and tokens, settles with log rows and
// facts), so a run shows what the engine's own pipeline (API thread -> sender thread -> receiver)
// reaches on this machine with no database in it: the ceiling any store can reach here.
// Simplifications a benchmark allows: a claim takes due deliveries in the order they were queued
// (a retry goes to the back), not strictly by due time; each webhook keeps its newest 1,000 log
// entries; the signer-spend ledger is not implemented.

import type {
  ClaimedDelivery,
  LogEntry,
  LogPage,
  LogPosition,
  StoredEvent,
  WebhookFacts,
} from "../../src/api/delivery/model.ts";
import { answers, eventKey, storedEvent } from "../../src/api/delivery/store/enqueue-answers.ts";
import { factsDeltas } from "../../src/api/delivery/store/facts-delta.ts";
import type { SignerSpendResult, SignerSpendSnapshot } from "../../src/api/delivery/store/signer-spend.ts";
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
} from "../../src/api/delivery/store/types.ts";

interface QueuedDelivery {
  id: number;
  event: StoredEvent;
  eventKey: string;
  webhookId: string;
  attempts: number;
  createdAt: number;
  nextAt: number;
  leasedUntil: number;
  token: string | undefined;
  lastError: string | undefined;
}

const LOG_KEEP = 1_000;

export class MemoryDeliveryStore implements DeliveryStore {
  /** Which real store's engine settings to run with (engine.ts: claims vs leased enqueues, batching). */
  readonly backend: "sqlite" | "postgres";
  readonly #events = new Map<string, { recordedAt: number; open: number }>();
  /** The queue, in the order deliveries were queued (a Map iterates in insertion order). */
  readonly #queue = new Map<number, QueuedDelivery>();
  readonly #log = new Map<string, LogEntry[]>();
  readonly #facts = new Map<string, WebhookFacts>();
  readonly #streams = new Map<string, number>();
  #ids = 0;
  #claims = 0;

  constructor(backend: "sqlite" | "postgres" = "sqlite") {
    this.backend = backend;
  }

  async enqueue(
    batch: readonly EnqueueRequest[],
    now: number,
    lease?: EnqueueLease,
  ): Promise<EnqueueResult[]> {
    const token = `${lease?.owner}:${++this.#claims}:${now}`;
    let room = lease?.max ?? 0;
    const created = new Map<string, ClaimedDelivery[]>();
    for (const { event: e, webhookIds } of batch) {
      const key = eventKey(e);
      if (this.#events.has(key)) continue;
      const event = storedEvent(e, now);
      const targets = new Set(webhookIds);
      this.#events.set(key, { recordedAt: now, open: targets.size });
      const leased: ClaimedDelivery[] = [];
      created.set(key, leased);
      for (const w of targets) {
        const d: QueuedDelivery = {
          id: ++this.#ids,
          event,
          eventKey: key,
          webhookId: w,
          attempts: 0,
          createdAt: now,
          nextAt: now,
          leasedUntil: 0,
          token: undefined,
          lastError: undefined,
        };
        this.#queue.set(d.id, d);
        if (room > 0 && lease) {
          room--;
          d.leasedUntil = now + lease.leaseMs;
          d.token = token;
          leased.push(this.#claimed(d));
        }
      }
    }
    return answers(batch, created);
  }

  async claim(r: ClaimRequest): Promise<ClaimedDelivery[]> {
    const token = `${r.owner}:${++this.#claims}:${r.now}`;
    const skip = new Set(r.skipWebhooks);
    const out: ClaimedDelivery[] = [];
    for (const d of this.#queue.values()) {
      if (out.length >= r.limit) break;
      if (d.nextAt > r.now || d.leasedUntil > r.now || skip.has(d.webhookId)) continue;
      d.leasedUntil = r.now + r.leaseMs;
      d.token = token;
      out.push(this.#claimed(d));
    }
    return out;
  }

  #claimed(d: QueuedDelivery): ClaimedDelivery {
    return {
      deliveryId: d.id,
      claimToken: d.token!,
      webhookId: d.webhookId,
      attempts: d.attempts,
      createdAt: d.createdAt,
      goneRevision: this.#facts.get(d.webhookId)?.gone?.revision,
      event: d.event,
    };
  }

  /** The delivery if `token` still holds its lease. */
  #held(id: number, token: string): QueuedDelivery | undefined {
    const d = this.#queue.get(id);
    return d && d.token === token ? d : undefined;
  }

  #settled(d: QueuedDelivery, now: number): void {
    this.#queue.delete(d.id);
    const e = this.#events.get(d.eventKey);
    if (e) {
      e.open--;
      e.recordedAt = Math.max(e.recordedAt, now);
    }
  }

  async settle(batch: readonly Settlement[], now: number): Promise<void> {
    for (const s of batch) {
      if (s.kind === "released") {
        const d = this.#held(s.deliveryId, s.claimToken);
        if (d) Object.assign(d, { nextAt: s.at, leasedUntil: 0, token: undefined });
      } else if (s.kind === "dropped") {
        const d = this.#held(s.deliveryId, s.claimToken);
        if (d) this.#settled(d, now);
      } else {
        const d = s.claim && this.#held(s.claim.deliveryId, s.claim.claimToken);
        if (d && s.claim) {
          if (s.next.state === "pending") {
            // To the back of the queue (claims take the queue in order).
            this.#queue.delete(d.id);
            Object.assign(d, {
              attempts: s.claim.attemptsMade,
              nextAt: s.next.at,
              lastError: s.log.error,
              leasedUntil: 0,
              token: undefined,
            });
            this.#queue.set(d.id, d);
          } else this.#settled(d, now);
        }
        const log = this.#log.get(s.log.webhookId) ?? [];
        if (log.length === 0) this.#log.set(s.log.webhookId, log);
        log.push(s.log);
        if (log.length >= 2 * LOG_KEEP) log.splice(0, log.length - LOG_KEEP);
      }
    }
    for (const d of factsDeltas(batch)) {
      const f = this.#facts.get(d.webhookId) ?? { webhookId: d.webhookId, updatedAt: now };
      f.lastTriggeredAt = Math.max(f.lastTriggeredAt ?? 0, d.lastTriggeredAt);
      if (d.lastFailure && d.lastFailure.at >= (f.lastFailure?.timestamp ?? 0)) {
        const { at, ...failure } = d.lastFailure;
        f.lastFailure = { timestamp: at, ...failure };
      }
      f.delivering = d.delivering.value;
      if (d.gone && d.gone.at >= (f.gone?.at ?? 0)) f.gone = d.gone;
      f.updatedAt = now;
      this.#facts.set(d.webhookId, f);
    }
  }

  /** The webhook's log, newest first (created_at descending, id ascending). */
  #ordered(webhookId: string): LogEntry[] {
    return [...(this.#log.get(webhookId) ?? [])]
      .slice(-LOG_KEEP)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async listLog(webhookId: string, limit: number, after?: LogPosition): Promise<LogPage> {
    const all = this.#ordered(webhookId).filter(
      (e) => !after || e.createdAt < after.createdAt || (e.createdAt === after.createdAt && e.id > after.id),
    );
    const items = all.slice(0, limit);
    const last = items.at(-1);
    return all.length > limit && last
      ? { items, next: { createdAt: last.createdAt, id: last.id } }
      : { items };
  }

  async getLog(webhookId: string, logId: string): Promise<LogEntry | undefined> {
    return this.#log.get(webhookId)?.find((e) => e.id === logId);
  }

  async countLog(webhookId: string): Promise<number> {
    return Math.min(LOG_KEEP, this.#log.get(webhookId)?.length ?? 0);
  }

  async facts(webhookId: string): Promise<WebhookFacts | undefined> {
    return this.#facts.get(webhookId);
  }

  async factsChangedSince(since: number): Promise<WebhookFacts[]> {
    return [...this.#facts.values()].filter((f) => f.updatedAt >= since);
  }

  async prune(now: number, retention: Retention): Promise<PruneResult> {
    let logEntries = 0;
    for (const [id, log] of this.#log) {
      const kept = this.#ordered(id)
        .slice(0, retention.logMaxPerWebhook)
        .filter((e) => e.createdAt >= now - retention.logMaxAgeMs);
      logEntries += log.length - kept.length;
      this.#log.set(id, kept.reverse());
    }
    let events = 0;
    for (const [key, e] of this.#events) {
      if (e.open <= 0 && e.recordedAt < now - retention.settledMaxAgeMs) {
        this.#events.delete(key);
        events++;
      }
    }
    return { logEntries, events };
  }

  async forgetWebhook(webhookId: string): Promise<void> {
    for (const d of this.#queue.values()) if (d.webhookId === webhookId) this.#settled(d, 0);
    this.#log.delete(webhookId);
    this.#facts.delete(webhookId);
  }

  async queueStats(): Promise<QueueStats> {
    let oldest: number | undefined;
    for (const d of this.#queue.values()) oldest = Math.min(oldest ?? d.createdAt, d.createdAt);
    return { pending: this.#queue.size, oldestPendingCreatedAt: oldest };
  }

  async openStream(key: string, now: number, windowMs: number): Promise<number> {
    const started = this.#streams.get(key);
    if (started !== undefined && now - started < windowMs) return started;
    this.#streams.set(key, now);
    return now;
  }

  async endStream(key: string): Promise<void> {
    this.#streams.delete(key);
  }

  async recordSignerSpend(): Promise<SignerSpendResult[]> {
    throw new Error("the benchmark's memory store keeps no signer spend");
  }

  async loadSignerSpend(): Promise<SignerSpendSnapshot> {
    return { days: [], sessions: [] };
  }

  async close(): Promise<void> {}
}
