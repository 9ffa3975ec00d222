// Prometheus metrics of webhook delivery, served at /metrics beside the probes: attempts by
// result, attempt latency, attempts a delivery took, queue depth and the oldest pending age.
// One registry per server (tests run several in one process).
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { AttemptReport, QueueStats } from "../delivery/index.ts";

// Receivers answer in milliseconds to the 10 s timeout.
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
// The default schedule makes about 33 attempts over 24 h.
const ATTEMPT_BUCKETS = [1, 2, 3, 5, 8, 13, 21, 34];

export class DeliveryMetrics {
  readonly registry = new Registry();
  readonly #attempts: Counter<"result">;
  readonly #latency: Histogram<"result">;
  readonly #attemptsPerDelivery: Histogram<"result">;

  constructor(
    queueStats: () => Promise<QueueStats>,
    opts: { processMetrics?: boolean; clock?: () => number } = {},
  ) {
    const registers = [this.registry];
    const clock = opts.clock ?? Date.now;
    if (opts.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    this.#attempts = new Counter({
      name: "livepeer_webhook_delivery_attempts_total",
      help: "Delivery attempts by result: delivered, retry, failed, gone (sent); released, dropped (not sent)",
      labelNames: ["result"],
      registers,
    });
    this.#latency = new Histogram({
      name: "livepeer_webhook_delivery_attempt_duration_seconds",
      help: "How long a sent attempt took, by result",
      labelNames: ["result"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#attemptsPerDelivery = new Histogram({
      name: "livepeer_webhook_delivery_attempts_per_delivery",
      help: "Attempts a delivery took until it settled, by final result (delivered, failed, gone)",
      labelNames: ["result"],
      buckets: ATTEMPT_BUCKETS,
      registers,
    });
    // Both gauges from one read of the store per scrape.
    let stats: Promise<QueueStats> | undefined;
    const read = () => {
      stats ??= queueStats().finally(() => setTimeout(() => (stats = undefined), 0));
      return stats;
    };
    new Gauge({
      name: "livepeer_webhook_delivery_queue_depth",
      help: "Deliveries not settled yet (in every replica sharing the store)",
      registers,
      // A store that does not answer keeps the last value: /metrics must work during an outage.
      async collect() {
        const s = await read().catch(() => undefined);
        if (s) this.set(s.pending);
      },
    });
    new Gauge({
      name: "livepeer_webhook_delivery_oldest_pending_age_seconds",
      help: "Age of the oldest unsettled delivery; 0 when none",
      registers,
      async collect() {
        const s = await read().catch(() => undefined);
        if (!s) return;
        const oldest = s.oldestPendingCreatedAt;
        this.set(oldest === undefined ? 0 : Math.max(0, (clock() - oldest) / 1000));
      },
    });
  }

  observe(r: AttemptReport): void {
    this.#attempts.inc({ result: r.result });
    if (r.result === "released" || r.result === "dropped") return;
    this.#latency.observe({ result: r.result }, r.durationMs / 1000);
    if (r.result !== "retry") this.#attemptsPerDelivery.observe({ result: r.result }, r.attemptsMade);
  }
}
