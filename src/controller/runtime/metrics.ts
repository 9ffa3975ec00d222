// Prometheus metrics under the names controller-runtime and client-go dashboards already use.
// One registry per Manager (tests run several managers in one process).
import { Counter, collectDefaultMetrics, Gauge, Histogram, type Registry } from "prom-client";
import type { InformerMetrics } from "../../kube/informer.ts";
import { ObjectGauge, ObjectGaugeRegistry, type ObjectRef } from "./object-gauge.ts";
import type { QueueMetrics } from "./work-queue.ts";

/**
 * What a status says about one object, as gauges: the findings in force
 * (livepeer_operator_findings), the conditions (livepeer_operator_condition) and the numeric
 * facts (livepeer_operator_status_fact). The chart's alerts and dashboard read these.
 */
export interface FindingsMetrics {
  set(object: ObjectRef, findings: readonly FindingLabel[]): void;
  conditions?(object: ObjectRef, conditions: readonly ConditionLabel[]): void;
  facts?(object: ObjectRef, facts: Readonly<Record<string, number>>): void;
}

export interface ConditionLabel {
  type: string;
  status: string;
  reason: string;
}

export interface FindingLabel {
  id: string;
  severity: string;
}

export type ReconcileResultLabel = "success" | "error" | "requeue" | "requeue_after";

// controller-runtime's reconcile buckets and client-go's workqueue buckets.
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
// client-go's powers of ten, plus steps between 0.1 s and 10 s where a queue's latency goals live.
const QUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 100, 1000];

export class RuntimeMetrics {
  /** Renders the object gauges' text itself (ObjectGaugeRegistry), everything else as prom-client. */
  readonly registry: Registry = new ObjectGaugeRegistry();
  readonly reconcileTotal: Counter<"controller" | "result">;
  readonly reconcileErrors: Counter<"controller">;
  readonly reconcileTime: Histogram<"controller">;
  readonly activeWorkers: Gauge<"controller">;
  readonly maxConcurrentReconciles: Gauge<"controller">;
  readonly queueDepth: Gauge<"name">;
  readonly queueAdds: Counter<"name">;
  readonly queueDuration: Histogram<"name">;
  readonly workDuration: Histogram<"name">;
  readonly queueRetries: Counter<"name">;
  readonly leaderStatus: Gauge<"name">;
  readonly informerSynced: Gauge<"resource" | "namespace">;
  readonly informerRestarts: Counter<"resource" | "reason">;
  readonly restRequests: Counter<"code" | "method">;
  readonly restLatency: Histogram<"verb">;
  readonly enqueues: Counter<"controller" | "cause">;
  readonly findings: ObjectGauge<"id" | "severity">;
  readonly conditions: ObjectGauge<"type" | "status" | "reason">;
  readonly facts: ObjectGauge<"fact">;

  constructor(opts: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (opts.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    this.reconcileTotal = new Counter({
      name: "controller_runtime_reconcile_total",
      help: "Total number of reconciliations per controller",
      labelNames: ["controller", "result"],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: "controller_runtime_reconcile_errors_total",
      help: "Total number of reconciliation errors per controller",
      labelNames: ["controller"],
      registers,
    });
    this.reconcileTime = new Histogram({
      name: "controller_runtime_reconcile_time_seconds",
      help: "Length of time per reconciliation per controller",
      labelNames: ["controller"],
      buckets: RECONCILE_BUCKETS,
      registers,
    });
    this.activeWorkers = new Gauge({
      name: "controller_runtime_active_workers",
      help: "Number of currently used workers per controller",
      labelNames: ["controller"],
      registers,
    });
    this.maxConcurrentReconciles = new Gauge({
      name: "controller_runtime_max_concurrent_reconciles",
      help: "Maximum number of concurrent reconciles per controller",
      labelNames: ["controller"],
      registers,
    });
    this.queueDepth = new Gauge({
      name: "workqueue_depth",
      help: "Current depth of workqueue",
      labelNames: ["name"],
      registers,
    });
    this.queueAdds = new Counter({
      name: "workqueue_adds_total",
      help: "Total number of adds handled by workqueue",
      labelNames: ["name"],
      registers,
    });
    this.queueDuration = new Histogram({
      name: "workqueue_queue_duration_seconds",
      help: "How long in seconds an item stays in workqueue before being requested",
      labelNames: ["name"],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.workDuration = new Histogram({
      name: "workqueue_work_duration_seconds",
      help: "How long in seconds processing an item from workqueue takes",
      labelNames: ["name"],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.queueRetries = new Counter({
      name: "workqueue_retries_total",
      help: "Total number of retries handled by workqueue",
      labelNames: ["name"],
      registers,
    });
    this.leaderStatus = new Gauge({
      name: "leader_election_master_status",
      help: "1 while this replica holds the leader lease, else 0",
      labelNames: ["name"],
      registers,
    });
    this.informerSynced = new Gauge({
      name: "informer_synced",
      help: "1 once the informer's first list has been cached, per resource and namespace ('' = all)",
      labelNames: ["resource", "namespace"],
      registers,
    });
    this.informerRestarts = new Counter({
      name: "informer_watch_restarts_total",
      help: "Watch restarts by reason: gone (410, relisted), error (retried with backoff), timeout (resumed)",
      labelNames: ["resource", "reason"],
      registers,
    });
    this.restRequests = new Counter({
      name: "rest_client_requests_total",
      help: "Number of HTTP requests to the API server, by status code ('0' = no response) and method",
      labelNames: ["code", "method"],
      registers,
    });
    this.restLatency = new Histogram({
      name: "rest_client_request_duration_seconds",
      help: "API server request latency (until response headers) by verb",
      labelNames: ["verb"],
      buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
      registers,
    });
    this.enqueues = new Counter({
      name: "livepeer_operator_enqueues_total",
      help: "Keys added to a controller's queue (workqueue_adds_total) by cause: the kind whose event mapped to the key, wake (the reconciler's own components, e.g. the node doctor), requeue (a reconcile asked to look again), retry (after an error), resync, start (a leadership term began)",
      labelNames: ["controller", "cause"],
      registers,
    });
    this.findings = new ObjectGauge({
      name: "livepeer_operator_findings",
      help: "1 per finding in force on a resource (status.findings), by catalog id and severity; alerts match on id",
      labelNames: ["id", "severity"],
      registers,
    });
    this.conditions = new ObjectGauge({
      name: "livepeer_operator_condition",
      help: "1 per condition on a resource (status.conditions) with its status and reason; alerts match on type, status and reason",
      labelNames: ["type", "status", "reason"],
      registers,
    });
    this.facts = new ObjectGauge({
      name: "livepeer_operator_status_fact",
      help: "Numeric facts of a resource's status: maxSessions, deposit, reserve and balance (ETH), activeSet (0/1), lastRewardRound, liveRunnersDesired, liveCapacity and liveSessions (live AI)",
      labelNames: ["fact"],
      registers,
    });
  }

  /** The findings gauge, as the status writers update it. */
  findingsMetrics(): FindingsMetrics {
    return {
      set: (object, findings) =>
        this.findings.set(
          object,
          findings.map((f) => [{ id: f.id, severity: f.severity }, 1]),
        ),
      conditions: (object, conditions) =>
        this.conditions.set(
          object,
          conditions.map((c) => [{ type: c.type, status: c.status, reason: c.reason }, 1]),
        ),
      facts: (object, facts) =>
        this.facts.set(
          object,
          Object.entries(facts).map(([fact, value]) => [{ fact }, value]),
        ),
    };
  }

  queue(name: string): QueueMetrics {
    const l = { name };
    this.queueDepth.set(l, 0);
    this.queueAdds.inc(l, 0);
    this.queueRetries.inc(l, 0);
    return {
      depth: (n) => this.queueDepth.set(l, n),
      added: (cause) => {
        this.queueAdds.inc(l);
        this.enqueues.inc({ controller: name, cause });
      },
      queued: (s) => this.queueDuration.observe(l, s),
      worked: (s) => this.workDuration.observe(l, s),
      retried: () => this.queueRetries.inc(l),
    };
  }

  informer(): InformerMetrics {
    return {
      synced: (resource, namespace, synced) =>
        this.informerSynced.set({ resource, namespace }, synced ? 1 : 0),
      restarted: (resource, reason) => this.informerRestarts.inc({ resource, reason }),
    };
  }

  /** Registers a controller so its series exist (at 0) before the first reconcile. */
  controller(name: string, workers: number): void {
    for (const result of ["success", "error", "requeue", "requeue_after"] as const) {
      this.reconcileTotal.inc({ controller: name, result }, 0);
    }
    this.reconcileErrors.inc({ controller: name }, 0);
    this.maxConcurrentReconciles.set({ controller: name }, workers);
    this.activeWorkers.set({ controller: name }, 0);
  }

  reconciled(controller: string, result: ReconcileResultLabel, seconds: number): void {
    this.reconcileTotal.inc({ controller, result });
    if (result === "error") this.reconcileErrors.inc({ controller });
    this.reconcileTime.observe({ controller }, seconds);
  }

  request(method: string, status: number, seconds: number): void {
    this.restRequests.inc({ code: String(status), method });
    this.restLatency.observe({ verb: method }, seconds);
  }
}
