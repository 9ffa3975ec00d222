// The delivery store: events, the deliveries they fan out to (the queue: a delivery is deleted
// once settled), the attempt log and per-webhook facts. One interface, two backends: SQLite
// (node:sqlite, one replica) and PostgreSQL (several replicas; work claimed with FOR UPDATE SKIP
// LOCKED). Writes come in batches (of enqueues, of settled attempts) so neither backend pays a
// transaction per attempt.
import type { ClaimedDelivery, LogEntry, LogPage, LogPosition, NewEvent, WebhookFacts } from "../model.ts";
import type { SignerSpendRecord, SignerSpendResult, SignerSpendSnapshot } from "./signer-spend.ts";

export interface EnqueueRequest {
  /** With its id (the engine fills in a generated one). */
  event: NewEvent & { id: string };
  /** The webhooks it goes to (matching.ts); empty: recorded, delivered nowhere. */
  webhookIds: readonly string[];
}

export interface EnqueueResult {
  id: string;
  /** False when an event with this id (for this tenant) was already recorded: nothing new is queued. */
  created: boolean;
  /** The event's new deliveries leased to the enqueuer (EnqueueLease); absent when none were. */
  leased?: ClaimedDelivery[] | undefined;
}

/**
 * The enqueuing replica takes the first `max` new deliveries of the batch already leased to
 * itself, in the same statement: no claim round trip for fresh work. The rest stay unleased for
 * any replica's claim; a replica killed holding them loses them only until the lease runs out.
 */
export interface EnqueueLease {
  /** Who holds them (for people reading the table). */
  owner: string;
  leaseMs: number;
  /** At most this many deliveries of the batch (0: none, a plain enqueue). */
  max: number;
}

export interface ClaimRequest {
  now: number;
  limit: number;
  /** The claim holds this long; past it another worker may take the delivery (the holder died). */
  leaseMs: number;
  /** Who claims (for people reading the table). */
  owner: string;
  /** Webhooks this worker has enough in flight for: their deliveries wait for another round. */
  skipWebhooks: readonly string[];
}

/** How a claimed delivery (or a manual resend) ended. */
export type Settlement =
  | {
      kind: "attempted";
      /** Absent for a resend, which is logged but belongs to no queued delivery. */
      claim?: { deliveryId: number; claimToken: string; attemptsMade: number } | undefined;
      /** What happens to the delivery next. */
      next: { state: "delivered" } | { state: "failed" } | { state: "pending"; at: number };
      log: LogEntry;
      /** The endpoint answered 410 for this revision of the webhook. */
      goneRevision?: string | undefined;
    }
  /** Not attempted now: back in the queue at `at` (no attempt counted). */
  | { kind: "released"; deliveryId: number; claimToken: string; at: number }
  /** Never attempted: its webhook was deleted or turned off; it leaves the queue (`reason` is for logs). */
  | { kind: "dropped"; deliveryId: number; claimToken: string; webhookId: string; reason: string };

export interface Retention {
  /** Log entries older than this are deleted. */
  logMaxAgeMs: number;
  /** Each webhook keeps at most this many log entries (the newest). */
  logMaxPerWebhook: number;
  /** Events whose deliveries all settled (and their deliveries) are deleted after this; it is also how long an event id stays idempotent. */
  settledMaxAgeMs: number;
}

export const DEFAULT_RETENTION: Retention = {
  logMaxAgeMs: 7 * 24 * 3_600_000,
  logMaxPerWebhook: 1_000,
  settledMaxAgeMs: 7 * 24 * 3_600_000,
};

export interface PruneResult {
  logEntries: number;
  events: number;
}

export interface QueueStats {
  /** Deliveries not settled yet. */
  pending: number;
  /** When the oldest of them was created (ms); absent when none. */
  oldestPendingCreatedAt?: number | undefined;
}

export interface DeliveryStore {
  readonly backend: "sqlite" | "postgres";
  /**
   * Records events and their deliveries durably (one transaction for the batch); idempotent per
   * event id. With `lease`, up to `lease.max` of the new deliveries come back already leased.
   */
  enqueue(batch: readonly EnqueueRequest[], now: number, lease?: EnqueueLease): Promise<EnqueueResult[]>;
  /** Due deliveries, leased to the caller (oldest due first). */
  claim(request: ClaimRequest): Promise<ClaimedDelivery[]>;
  /** Records outcomes (one transaction for the batch); a settlement whose lease was lost updates no delivery but is still logged. */
  settle(batch: readonly Settlement[], now: number): Promise<void>;
  /** The webhook's log, newest first, `limit` entries after `after`. */
  listLog(webhookId: string, limit: number, after?: LogPosition): Promise<LogPage>;
  getLog(webhookId: string, logId: string): Promise<LogEntry | undefined>;
  countLog(webhookId: string): Promise<number>;
  facts(webhookId: string): Promise<WebhookFacts | undefined>;
  /** Facts changed at or after `since` (ms): poll with some overlap; reading a fact twice is harmless. */
  factsChangedSince(since: number): Promise<WebhookFacts[]>;
  prune(now: number, retention: Retention): Promise<PruneResult>;
  /** The webhook was deleted: drop its queue, log and facts. */
  forgetWebhook(webhookId: string): Promise<void>;
  queueStats(): Promise<QueueStats>;
  /**
   * When the stream `key` started, as every replica sees it: the start already recorded if it is
   * younger than `windowMs` at `now`, else `now` (recorded from now on). Rows older than a day go
   * with retention.
   */
  openStream(key: string, now: number, windowMs: number): Promise<number>;
  /** The stream ended: its next start is a new one. */
  endStream(key: string): Promise<void>;
  /**
   * Records remote-signer payments the auth webhook allowed (one transaction for the batch):
   * each session's spend grows to the record's when larger, the tenant's day by as much. Answers
   * one result per record, in order. Rows go with retention (signer-spend.ts).
   */
  recordSignerSpend(batch: readonly SignerSpendRecord[]): Promise<SignerSpendResult[]>;
  /** The days from `day` on and the sessions paid at or after `sessionsSince` (ms): what a restarted API starts from. */
  loadSignerSpend(day: string, sessionsSince: number): Promise<SignerSpendSnapshot>;
  close(): Promise<void>;
}

/** How long an open stream's start is kept when no end arrives (the window is shorter). */
export const OPEN_STREAM_KEEP_MS = 24 * 3_600_000;
