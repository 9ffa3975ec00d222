// Records the gateways' stream events through the delivery engine's durable intake, without ever
// holding up a stream: the auth hook waits at most `budgetMs` for the record (the node's call has
// no timeout, and a stream waits for it), and a record that fails is counted
// (livepeer_stream_events_total{result="unrecorded"}) and said once per outage, not once per stream.
import { Counter, type Registry } from "prom-client";
import { type Logger, silentLogger } from "../../process/log.ts";
import type { DeliveryEngine, SubscribedWebhook } from "../delivery/index.ts";
import type { NewEvent } from "../delivery/model.ts";

export const RECORD_BUDGET_MS = 500;

export type RecordResult = "recorded" | "pending" | "unrecorded";

export interface StreamEventRecorderOptions {
  engine: Pick<DeliveryEngine, "enqueue">;
  webhooks: () => Iterable<SubscribedWebhook>;
  registry?: Registry | undefined;
  log?: Logger | undefined;
  budgetMs?: number | undefined;
}

export class StreamEventRecorder {
  readonly #o: StreamEventRecorderOptions;
  readonly #counter: Counter<"event" | "result">;
  readonly #log: Logger;
  /** Failures since the last success: the first is logged, the rest counted. */
  #failing = 0;

  constructor(o: StreamEventRecorderOptions) {
    this.#o = o;
    this.#log = o.log ?? silentLogger;
    this.#counter = new Counter({
      name: "livepeer_stream_events_total",
      help: "Stream events from gateways by kind and result: recorded, or unrecorded (the delivery store failed; the stream went on)",
      labelNames: ["event", "result"],
      registers: o.registry ? [o.registry] : [],
    });
  }

  /**
   * Records the event; resolves within the budget: "pending" when the store has not answered by
   * then (the record goes on and is counted when it settles).
   */
  async record(event: NewEvent): Promise<RecordResult> {
    const recorded = this.#o.engine.enqueue(event, this.#o.webhooks()).then(
      () => {
        this.#settled(event.kind, undefined);
        return "recorded" as const;
      },
      (err: unknown) => {
        this.#settled(event.kind, err);
        return "unrecorded" as const;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<"pending">((resolve) => {
      timer = setTimeout(() => resolve("pending"), this.#o.budgetMs ?? RECORD_BUDGET_MS);
    });
    try {
      return await Promise.race([recorded, budget]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Records events whose sender retries (the controller's end reports): no budget, and a failure
   * throws for the caller to answer 503 (nothing is lost, so nothing is counted as unrecorded).
   */
  async recordAll(events: readonly NewEvent[]): Promise<void> {
    const webhooks = [...this.#o.webhooks()];
    await Promise.all(events.map((e) => this.#o.engine.enqueue(e, webhooks)));
    for (const e of events) this.#counter.inc({ event: e.kind, result: "recorded" });
  }

  #settled(kind: string, err: unknown): void {
    if (err === undefined) {
      this.#counter.inc({ event: kind, result: "recorded" });
      if (this.#failing > 0) {
        this.#log.info("stream events are recorded again", { unrecorded: this.#failing });
        this.#failing = 0;
      }
      return;
    }
    this.#counter.inc({ event: kind, result: "unrecorded" });
    if (this.#failing++ === 0) {
      this.#log.warn(
        'cannot record stream events (delivery store unavailable): streams are still accepted; the lost events are counted in livepeer_stream_events_total{result="unrecorded"} until the store answers',
        { event: kind, error: err instanceof Error ? err.message : String(err) },
      );
    }
  }
}
