// The delivery worker: claims due deliveries, runs each attempt concurrently (a slow receiver
// holds only its own slots: at most `maxInFlightPerWebhook` per webhook, `maxInFlight` in all),
// and records outcomes in batches. Fresh work enqueued here arrives already leased (`take`, from
// the enqueue statement: no claim) and waits in a ready list for a slot; it claims the rest when
// an event could not be leased whole, when a retry it scheduled comes due, and otherwise polls
// (work enqueued by other replicas, expired leases).
import type { Logger } from "../../process/log.ts";
import { type AttemptContext, type AttemptReport, attempt } from "./attempt.ts";
import { GroupCommit } from "./group-commit.ts";
import { leaseAhead, leaseLongEnough } from "./lease-ahead.ts";
import type { ClaimedDelivery } from "./model.ts";
import { ReadyList } from "./ready-list.ts";
import type { DeliveryStore, EnqueueLease, Settlement } from "./store/types.ts";

export interface WorkerOptions extends AttemptContext {
  store: DeliveryStore;
  /** Names this worker's claims (host/pid). */
  owner: string;
  maxInFlight: number;
  maxInFlightPerWebhook: number;
  /** How long a claim holds: longer than an attempt can take. */
  leaseMs: number;
  /** A leased delivery waiting in memory starts only with this much lease left (else it is released). */
  minLeaseLeftMs: number;
  /** Idle poll interval. */
  pollMs: number;
  /** Least time between claims that found less than a batch (0: claim whenever woken). */
  claimEveryMs: number;
  /** How long a batch of outcomes waits for company after a quiet spell (GroupCommit lingerMs). */
  recordLingerMs: number;
  log: Logger;
  onAttempt?: ((report: AttemptReport) => void) | undefined;
  /** The webhook was deleted while its attempt ran: the outcome is not logged (its log is gone). */
  forgotten?: ((webhookId: string) => boolean) | undefined;
}

export class DeliveryWorker {
  readonly #o: WorkerOptions;
  readonly #recorder: GroupCommit<Settlement, undefined>;
  readonly #perWebhook = new Map<string, number>();
  readonly #attempts = new Set<Promise<void>>();
  /** Requests in flight (the slots). */
  #inFlight = 0;
  /** Claimed deliveries whose outcome is not recorded yet (in flight included). */
  #unrecorded = 0;
  #running = false;
  #heldBack = 0;
  #loop: Promise<void> | undefined;
  /** Ends the loop's current wait. */
  #signal: (() => void) | undefined;
  /** A claim is worth making: something was enqueued, the last claim was full, or the poll came round. */
  #wanted = true;
  /** When the last claim that found less than a full batch was made (performance.now()). */
  #lastThinClaim = Number.NEGATIVE_INFINITY;
  /** The earliest retry this worker scheduled (it wakes for it rather than waiting for a poll). */
  #nextDue = Number.POSITIVE_INFINITY;
  /** Leased deliveries waiting for a slot, by webhook (oldest first), with their lease's end. */
  readonly #ready = new ReadyList<{ webhookId: string; d: ClaimedDelivery; until: number }>();
  /** Attempts finished, and the rate they finish at (per second, measured over about a second). */
  #finished = 0;
  #rate = 0;
  #rateMark = { at: performance.now(), finished: 0 };
  /**
   * Revisions this worker saw answered 410 (webhook -> revision): deliveries it took before that
   * (waiting in memory, or claimed in the same batch) carry what the store knew then.
   */
  readonly #gone = new Map<string, string>();

  constructor(o: WorkerOptions) {
    this.#o = o;
    this.#recorder = new GroupCommit(
      async (batch) => {
        await o.store.settle(batch, o.clock());
        return batch.map(() => undefined);
      },
      { lingerMs: o.recordLingerMs },
    );
  }

  get #minClaim(): number {
    return Math.max(1, Math.floor(this.#o.maxInFlight / 4));
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Work may be due now (an event was just enqueued). */
  wake(): void {
    this.#wanted = true;
    this.#signal?.();
  }

  /**
   * The lease the next enqueue may take for this worker: as much fresh work as it can start
   * while the leases last (lease-ahead.ts); none when stopped.
   */
  leaseFor(): EnqueueLease {
    const now = performance.now();
    const elapsed = now - this.#rateMark.at;
    const recent = elapsed >= 100 ? ((this.#finished - this.#rateMark.finished) * 1000) / elapsed : 0;
    if (elapsed >= 1_000) {
      this.#rate = recent;
      this.#rateMark = { at: now, finished: this.#finished };
    }
    const max = this.#running
      ? leaseAhead({
          maxInFlight: this.#o.maxInFlight,
          inFlight: this.#inFlight,
          ready: this.#ready.size,
          ratePerSecond: Math.max(this.#rate, recent),
          leaseMs: this.#o.leaseMs,
          minLeaseLeftMs: this.#o.minLeaseLeftMs,
        })
      : 0;
    return { owner: this.#o.owner, leaseMs: this.#o.leaseMs, max };
  }

  /** Deliveries an enqueue leased to this worker at `leasedAt` (store clock): attempted as slots free. */
  take(leased: readonly ClaimedDelivery[], leasedAt: number): void {
    const until = leasedAt + this.#o.leaseMs;
    for (const d of leased) this.#ready.push({ webhookId: d.webhookId, d, until });
    if (this.#running) this.#pump();
    else this.#releaseReady();
  }

  /** Stops claiming, gives back what waits unstarted, lets attempts in flight finish and records them. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#signal?.();
    await this.#loop;
    this.#releaseReady();
    await Promise.allSettled([...this.#attempts]);
    await this.#recorder.flushed();
  }

  /** Resolves once every outcome and release handed to the recorder so far is written. */
  flushed(): Promise<void> {
    return this.#recorder.flushed();
  }

  /** Starts waiting leased deliveries while there are slots (per webhook and in all). */
  #pump(): void {
    if (!this.#running) return;
    const mayStart = (webhookId: string) =>
      (this.#perWebhook.get(webhookId) ?? 0) < this.#o.maxInFlightPerWebhook;
    while (this.#ready.size > 0 && this.#hasRoom()) {
      const next = this.#ready.shift(mayStart);
      if (!next) return;
      const { d, until } = next;
      if (this.#o.forgotten?.(d.webhookId)) {
        void this.#record({
          ...this.#ref(d),
          kind: "dropped",
          webhookId: d.webhookId,
          reason: "webhook deleted",
        });
      } else if (!leaseLongEnough(until, this.#o.clock(), this.#o.minLeaseLeftMs)) {
        // Waited too long: its lease may not outlive the attempt. Back to the queue for any claimer.
        void this.#record({ ...this.#ref(d), kind: "released", at: this.#o.clock() }).then(() => this.wake());
      } else this.#start(d);
    }
  }

  /** Claims passed up because outcomes wait for their record (the store is slow). */
  get heldBack(): number {
    return this.#heldBack;
  }

  #hasRoom(): boolean {
    return this.#inFlight < this.#o.maxInFlight && !this.#recordsBehind();
  }

  /**
   * Outcomes done but not yet recorded may number twice the slots: while one batch is written, the
   * next gathers without holding slots (measured: with only as many as the slots, they sat empty
   * waiting for the store in a third of the samples at the peak, and the rate was 3-13 % lower
   * in 6 of 6 paired peaks on PostgreSQL). Past that the store is slow: no new attempts until it
   * catches up, which bounds both the memory held and what a crash would send twice.
   */
  #recordsBehind(): boolean {
    return this.#unrecorded - this.#inFlight >= 2 * this.#o.maxInFlight;
  }

  #ref(d: ClaimedDelivery): { deliveryId: number; claimToken: string } {
    return { deliveryId: d.deliveryId, claimToken: d.claimToken };
  }

  /** Gives back every waiting leased delivery (stopping): claimable at once by any replica. */
  #releaseReady(): void {
    for (const { d } of this.#ready.drain()) {
      void this.#record({ ...this.#ref(d), kind: "released", at: this.#o.clock() });
    }
  }

  /**
   * Room to claim: when busy, in batches (a quarter of the slots), not one query per finished
   * attempt; and not while the records are behind (the store is slow).
   */
  #canClaim(): boolean {
    // Waiting leased deliveries take the free slots first (after #pump, any left wait for a busy webhook).
    this.#pump();
    const room = this.#o.maxInFlight - this.#inFlight;
    if (this.#recordsBehind()) {
      this.#heldBack++;
      return false;
    }
    return room > 0 && (this.#inFlight === 0 || room >= this.#minClaim);
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (this.#running) {
      if (this.#wanted && this.#canClaim()) {
        const pace = this.#lastThinClaim + this.#o.claimEveryMs - performance.now();
        if (pace > 0) {
          await this.#sleep(pace);
          continue;
        }
        this.#wanted = false;
        const limit = this.#o.maxInFlight - this.#inFlight;
        try {
          const claimed = await this.#o.store.claim({
            now: this.#o.clock(),
            limit,
            leaseMs: this.#o.leaseMs,
            owner: this.#o.owner,
            skipWebhooks: this.#saturated(),
          });
          failures = 0;
          for (const d of claimed) this.#start(d);
          // A full claim: more may be due (claimed again as soon as there is room).
          if (claimed.length === limit) this.#wanted = true;
          else this.#lastThinClaim = performance.now();
        } catch (err) {
          failures++;
          this.#o.log.warn("cannot claim deliveries; retrying", {
            error: (err as Error).message,
            attempt: failures,
          });
          this.#wanted = true;
          await this.#sleep(Math.min(30_000, 250 * 2 ** Math.min(failures, 7)));
        }
        continue;
      }
      // Wait for an enqueue, a slot when work is waiting, the next retry this worker scheduled, or the poll.
      const untilDue = this.#nextDue - this.#o.clock();
      const timedOut = await this.#sleep(Math.max(0, Math.min(this.#o.pollMs, untilDue)));
      if (timedOut) this.#wanted = true;
      if (this.#o.clock() >= this.#nextDue) this.#nextDue = Number.POSITIVE_INFINITY;
    }
  }

  #saturated(): string[] {
    const out: string[] = [];
    for (const [id, n] of this.#perWebhook) if (n >= this.#o.maxInFlightPerWebhook) out.push(id);
    return out;
  }

  #start(d: ClaimedDelivery): void {
    const n = this.#perWebhook.get(d.webhookId) ?? 0;
    if (n >= this.#o.maxInFlightPerWebhook) {
      // Over this webhook's share: back to the queue without an attempt, and claimable again once
      // that is recorded (a claim before would still see it leased).
      void this.#record({
        kind: "released",
        deliveryId: d.deliveryId,
        claimToken: d.claimToken,
        at: this.#o.clock(),
      }).then(() => this.wake());
      return;
    }
    this.#perWebhook.set(d.webhookId, n + 1);
    this.#inFlight++;
    this.#unrecorded++;
    let slotHeld = true;
    // The slot frees once the request is done; recording it may take a commit longer (bounded below).
    const freeSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      const held = this.#perWebhook.get(d.webhookId) ?? 1;
      // It was at its share, so claims skipped it: it may have more due now.
      if (held >= this.#o.maxInFlightPerWebhook) this.#wanted = true;
      const left = held - 1;
      if (left <= 0) this.#perWebhook.delete(d.webhookId);
      else this.#perWebhook.set(d.webhookId, left);
      this.#inFlight--;
      this.#pump();
      if (this.#wanted) this.#signal?.();
    };
    const run = this.#attempt(d, freeSlot).finally(() => {
      freeSlot();
      this.#unrecorded--;
      this.#finished++;
      this.#attempts.delete(run);
      this.#pump();
      if (this.#wanted) this.#signal?.();
    });
    this.#attempts.add(run);
  }

  async #attempt(taken: ClaimedDelivery, freeSlot: () => void): Promise<void> {
    const gone = taken.goneRevision === undefined ? this.#gone.get(taken.webhookId) : undefined;
    const d = gone === undefined ? taken : { ...taken, goneRevision: gone };
    let outcome: Awaited<ReturnType<typeof attempt>>;
    try {
      outcome = await attempt(d, this.#o);
      const s = outcome.settlement;
      // Known before the slot frees: the next delivery started in it may be for the same webhook.
      if (s.kind === "attempted" && s.goneRevision !== undefined) {
        if (this.#gone.size >= 10_000) this.#gone.clear();
        this.#gone.set(d.webhookId, s.goneRevision);
      }
      freeSlot();
    } catch (err) {
      // A resolver failure (e.g. reading the webhook's Secret): try again shortly, no attempt counted.
      this.#o.log.warn("cannot prepare a delivery attempt; retrying", {
        webhook: d.webhookId,
        event: d.event.id,
        error: (err as Error).message,
      });
      const at = this.#o.clock() + 5_000;
      await this.#record({ kind: "released", deliveryId: d.deliveryId, claimToken: d.claimToken, at });
      return;
    }
    const { settlement, report } = outcome;
    const retryAt =
      settlement.kind === "attempted" && settlement.next.state === "pending"
        ? settlement.next.at
        : settlement.kind === "released"
          ? settlement.at
          : undefined;
    if (retryAt !== undefined && retryAt < this.#nextDue) {
      this.#nextDue = retryAt;
      this.#signal?.(); // the loop's wait may be longer than that
    }
    await this.#record(settlement);
    this.#o.onAttempt?.(report);
  }

  async #record(s: Settlement): Promise<void> {
    if (s.kind === "attempted" && s.claim && this.#o.forgotten?.(s.log.webhookId)) {
      const { deliveryId, claimToken } = s.claim;
      s = { kind: "dropped", deliveryId, claimToken, webhookId: s.log.webhookId, reason: "webhook deleted" };
    }
    try {
      await this.#recorder.add(s);
    } catch (err) {
      // Not recorded: the lease runs out and the delivery is attempted again (at-least-once).
      this.#o.log.warn("cannot record a delivery outcome; it will be attempted again after its lease", {
        error: (err as Error).message,
      });
    }
  }

  /** Resolves true when `ms` passed, false when signalled first. */
  #sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#signal = undefined;
        resolve(true);
      }, ms);
      this.#signal = () => {
        this.#signal = undefined;
        clearTimeout(timer);
        resolve(false);
      };
    });
  }
}
