// The delivery engine the API wires in: enqueue (match + durable record, group-committed), the
// worker (claim, sign, send, retry, record), the log (list, get, resend), the facts the Webhook
// status is written from, and retention. The store is opened by the caller and closed by it.
import { randomUUIDv7 } from "node:crypto";
import os from "node:os";
import { type Logger, silentLogger } from "../../process/log.ts";
import type { Allowlist, DeliveryEgress } from "./address-policy.ts";
import type { AttemptReport } from "./attempt.ts";
import { GroupCommit } from "./group-commit.ts";
import { minLeaseLeft } from "./lease-ahead.ts";
import { matchWebhooks, type SubscribedWebhook } from "./matching.ts";
import type { DeliveryTarget, LogEntry, LogPage, LogPosition, NewEvent, WebhookFacts } from "./model.ts";
import { DEFAULT_RETRY_SCHEDULE, decide, type RetrySchedule, scheduleProblem } from "./retry-policy.ts";
import { DEFAULT_TIMEOUT_MS } from "./sender.ts";
import { DEFAULT_USER_AGENT, type DeliveryBody, signBody } from "./signing.ts";
import {
  DEFAULT_RETENTION,
  type DeliveryStore,
  type EnqueueRequest,
  type EnqueueResult,
  type PruneResult,
  type QueueStats,
  type Retention,
} from "./store/types.ts";
import { ThreadedSender } from "./threaded-sender.ts";
import { DeliveryWorker } from "./worker.ts";

export interface DeliveryEngineOptions {
  store: DeliveryStore;
  /** The webhook's current URL, secret and revision; undefined when it does not exist (or is not known yet). */
  resolveTarget: (webhookId: string) => DeliveryTarget | undefined | Promise<DeliveryTarget | undefined>;
  /** Internal ranges deliveries may reach anyway (LOOPBACK_ALLOWED for the embedded default and tests). */
  allow: Allowlist;
  /** "loopback-only": every address outside 127.0.0.0/8 and ::1 refused at connect time, on top of `allow` (default "public"). */
  egress?: DeliveryEgress | undefined;
  timeoutMs?: number | undefined;
  schedule?: RetrySchedule | undefined;
  retention?: Retention | undefined;
  /** Attempts in flight in this process (default 128). */
  maxInFlight?: number | undefined;
  /** Attempts in flight per webhook (default 16): a slow receiver holds no more. */
  maxInFlightPerWebhook?: number | undefined;
  /** Claim lease (default 2 x timeout + 10 s). */
  leaseMs?: number | undefined;
  /** Idle poll for work from other replicas and expired leases (default 500 ms). */
  pollMs?: number | undefined;
  /** How often retention runs (default 60 s). */
  pruneEveryMs?: number | undefined;
  /** A webhook unknown this long after its delivery was created is taken as deleted (default 60 s). */
  missingWebhookGraceMs?: number | undefined;
  userAgent?: string | undefined;
  owner?: string | undefined;
  log?: Logger | undefined;
  clock?: (() => number) | undefined;
  random?: (() => number) | undefined;
  /** Every attempt's outcome (for metrics). */
  onAttempt?: ((report: AttemptReport) => void) | undefined;
}

export interface Enqueued extends EnqueueResult {
  /** The webhooks it was queued for (empty when not created: the first recording decided). */
  webhookIds: string[];
}

export class DeliveryEngine {
  readonly store: DeliveryStore;
  readonly #sender: ThreadedSender;
  readonly #worker: DeliveryWorker;
  readonly #enqueuer: GroupCommit<EnqueueRequest, EnqueueResult>;
  readonly #clock: () => number;
  readonly #random: () => number;
  readonly #schedule: RetrySchedule;
  readonly #retention: Retention;
  readonly #pruneEveryMs: number;
  readonly #userAgent: string;
  readonly #resolveTarget: DeliveryEngineOptions["resolveTarget"];
  readonly #log: Logger;
  /** Webhooks deleted recently (id -> when), so attempts in flight then are not logged after. */
  readonly #forgotten = new Map<string, number>();
  readonly #forgetForMs: number;
  #pruneTimer: NodeJS.Timeout | undefined;
  #pruning: Promise<unknown> | undefined;

  /** Throws, naming the option, when the configuration cannot work. */
  constructor(o: DeliveryEngineOptions) {
    this.store = o.store;
    this.#clock = o.clock ?? Date.now;
    this.#random = o.random ?? Math.random;
    this.#schedule = o.schedule ?? DEFAULT_RETRY_SCHEDULE;
    const problem = scheduleProblem(this.#schedule);
    if (problem) throw new Error(problem);
    this.#retention = o.retention ?? DEFAULT_RETENTION;
    for (const [k, v] of Object.entries(this.#retention)) {
      if (!Number.isFinite(v) || v < 0)
        throw new Error(`delivery retention ${k} must be a number >= 0 (got ${v})`);
    }
    const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(timeoutMs > 0)) throw new Error(`delivery timeoutMs must be > 0 (got ${timeoutMs}), e.g. 10000`);
    this.#pruneEveryMs = o.pruneEveryMs ?? 60_000;
    this.#userAgent = o.userAgent ?? DEFAULT_USER_AGENT;
    this.#resolveTarget = o.resolveTarget;
    this.#log = o.log ?? silentLogger;
    // Requests go out from a thread of their own (a second core; the API's event loop stays free).
    this.#sender = new ThreadedSender({ timeoutMs, allow: o.allow, egress: o.egress });
    const maxInFlight = o.maxInFlight ?? 128;
    const leaseMs = o.leaseMs ?? 2 * timeoutMs + 10_000;
    // No attempt of this process outlives its lease: past it a deletion no longer matters here.
    this.#forgetForMs = leaseMs;
    // PostgreSQL pays a round trip and a fixed cost per statement: batches wait up to 2 ms for
    // company and claims that find little are paced, so a trickle of events is not three
    // statements per delivery. SQLite's small transactions are cheap and run in-process.
    const batchMs = o.store.backend === "postgres" ? 2 : 0;
    // On PostgreSQL fresh deliveries come back leased from the enqueue (a claim is a round trip and
    // a third of the server's work per delivery). SQLite's in-process claim is cheaper than holding
    // leased work in memory (measured: about 10 % more CPU per delivery with leases), so it claims.
    const leaseOnEnqueue = o.store.backend === "postgres";
    this.#worker = new DeliveryWorker({
      store: o.store,
      owner: o.owner ?? `${os.hostname()}/${process.pid}`,
      maxInFlight,
      maxInFlightPerWebhook: Math.min(maxInFlight, o.maxInFlightPerWebhook ?? 16),
      leaseMs,
      minLeaseLeftMs: minLeaseLeft(timeoutMs, leaseMs),
      pollMs: o.pollMs ?? 500,
      claimEveryMs: batchMs,
      recordLingerMs: batchMs,
      log: this.#log,
      onAttempt: o.onAttempt,
      send: (url, headers, body) => this.#sender.send(url, headers, body),
      resolveTarget: o.resolveTarget,
      schedule: this.#schedule,
      userAgent: this.#userAgent,
      missingWebhookGraceMs: o.missingWebhookGraceMs ?? 60_000,
      clock: this.#clock,
      random: this.#random,
      forgotten: (id) => this.#forgotten.has(id),
    });
    // Fresh deliveries leased by the enqueue go straight to this replica's worker.
    this.#enqueuer = new GroupCommit(
      async (batch) => {
        const now = this.#clock();
        const results = await o.store.enqueue(
          batch,
          now,
          leaseOnEnqueue ? this.#worker.leaseFor() : undefined,
        );
        this.#worker.take(
          results.flatMap((r) => r.leased ?? []),
          now,
        );
        return results;
      },
      { lingerMs: batchMs },
    );
  }

  /**
   * Records `event` and queues it for the webhooks of `webhooks` it matches (tenant, kind,
   * stream). Resolves once it is durably recorded; the same id twice (per tenant) is one event.
   */
  async enqueue(event: NewEvent, webhooks: Iterable<SubscribedWebhook>): Promise<Enqueued> {
    const withId = { ...event, id: event.id ?? randomUUIDv7(), createdAt: event.createdAt ?? this.#clock() };
    const webhookIds = matchWebhooks(withId, webhooks);
    const { leased, ...result } = await this.#enqueuer.add({ event: withId, webhookIds });
    // Deliveries not leased in the enqueue are claimed.
    if (result.created && (leased?.length ?? 0) < new Set(webhookIds).size) this.#worker.wake();
    return { ...result, webhookIds: result.created ? webhookIds : [] };
  }

  start(): void {
    this.#worker.start();
    const prune = () => {
      this.#pruning ??= this.prune()
        .then((r) => {
          if (r.logEntries || r.events)
            this.#log.info("delivery retention", { logEntries: r.logEntries, events: r.events });
        })
        .catch((err: Error) =>
          this.#log.warn("delivery retention failed; will retry", { error: err.message }),
        )
        .finally(() => {
          this.#pruning = undefined;
        });
    };
    this.#pruneTimer = setInterval(prune, this.#pruneEveryMs);
    this.#pruneTimer.unref();
  }

  /** Stops taking work, waits for attempts in flight and their records; the store stays open. */
  async stop(): Promise<void> {
    clearInterval(this.#pruneTimer);
    await this.#worker.stop();
    await this.#enqueuer.flushed();
    // An enqueue that finished after the worker stopped gave its leased deliveries back: written now.
    await this.#worker.flushed();
    await this.#pruning;
    this.#sender.close();
  }

  listLog(webhookId: string, limit: number, after?: LogPosition): Promise<LogPage> {
    return this.store.listLog(webhookId, limit, after);
  }

  getLog(webhookId: string, logId: string): Promise<LogEntry | undefined> {
    return this.store.getLog(webhookId, logId);
  }

  countLog(webhookId: string): Promise<number> {
    return this.store.countLog(webhookId);
  }

  /**
   * Sends a logged request again, now: the same body with a new `timestamp`, signed with the
   * webhook's current secret, to its current URL. Returns the new log entry; undefined when the
   * log entry or the webhook does not exist.
   */
  async resend(webhookId: string, logId: string): Promise<LogEntry | undefined> {
    const [original, target] = await Promise.all([
      this.store.getLog(webhookId, logId),
      this.#resolveTarget(webhookId),
    ]);
    if (!original || !target) return undefined;
    const attemptAt = this.#clock();
    const body = { ...(JSON.parse(original.request.body) as DeliveryBody), webhookId, timestamp: attemptAt };
    const { body: raw, headers } = signBody(body, target.sharedSecret, this.#userAgent);
    const sent = await this.#sender.send(target.url, headers, raw);
    const decision = decide(sent.outcome, {
      attemptsMade: 1,
      createdAt: attemptAt,
      now: this.#clock(),
      schedule: this.#schedule,
      random: this.#random(),
    });
    const entry: LogEntry = {
      id: randomUUIDv7(),
      webhookId,
      eventId: original.eventId,
      event: original.event,
      createdAt: attemptAt,
      durationMs: sent.durationMs,
      success: decision.kind === "delivered",
      request: { url: target.url, method: "POST", headers, body: raw },
      response: sent.response,
      error: decision.kind === "delivered" ? undefined : decision.error,
    };
    await this.store.settle(
      [
        {
          kind: "attempted",
          next: { state: decision.kind === "delivered" ? "delivered" : "failed" },
          log: entry,
          goneRevision: decision.kind === "gone" ? target.revision : undefined,
        },
      ],
      this.#clock(),
    );
    return entry;
  }

  facts(webhookId: string): Promise<WebhookFacts | undefined> {
    return this.store.facts(webhookId);
  }

  /** Facts changed at or after `since` (ms); poll about once a second with a few seconds of overlap. */
  factsChangedSince(since: number): Promise<WebhookFacts[]> {
    return this.store.factsChangedSince(since);
  }

  /**
   * The webhook was deleted: its queued deliveries stop, its log and facts go. Attempts already
   * in flight in this process finish but are not logged (every replica calls this on the delete).
   */
  forgetWebhook(webhookId: string): Promise<void> {
    const now = this.#clock();
    for (const [id, at] of this.#forgotten) if (now - at > this.#forgetForMs) this.#forgotten.delete(id);
    this.#forgotten.set(webhookId, now);
    return this.store.forgetWebhook(webhookId);
  }

  /** Claims this replica's worker passed up while outcomes waited for their record (a slow store). */
  heldBackClaims(): number {
    return this.#worker.heldBack;
  }

  queueStats(): Promise<QueueStats> {
    return this.store.queueStats();
  }

  prune(): Promise<PruneResult> {
    return this.store.prune(this.#clock(), this.#retention);
  }

  /** Attempts running in this process now. */
  get inFlight(): number {
    return this.#worker.inFlight;
  }
}
