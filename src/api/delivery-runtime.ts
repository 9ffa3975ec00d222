// Webhook delivery as the API server runs it: the store (SQLite file or PostgreSQL), the engine
// resolving targets from the Webhook cache and Secrets, the status writer, the metrics. Opened
// before the server listens; started once the Webhook cache has synced.
import type { KubeClient } from "../kube/kube-client.ts";
import type { Logger } from "../process/log.ts";
import {
  Allowlist,
  type DeliveryEgress,
  DeliveryEngine,
  openDeliveryStore,
  type Retention,
  type RetrySchedule,
  type StoreConfig,
  type SubscribedWebhook,
} from "./delivery/index.ts";
import { DeliveryStatusWriter } from "./delivery-status/status-writer.ts";
import { DeliveryMetrics } from "./metrics/delivery-metrics.ts";
import type { WebhookCache } from "./store/webhook-cache.ts";
import { WebhookTargets } from "./store/webhook-targets.ts";

export interface DeliveryOptions {
  /** Default: the SQLite file delivery.sqlite in the working directory (one replica). */
  store?: StoreConfig;
  /** Internal ranges (CIDRs) deliveries may reach anyway, e.g. 10.20.0.0/16. */
  allowCidrs?: string[];
  /**
   * "public" (default): public addresses and the allowed ranges. "loopback-only": every address
   * outside 127.0.0.0/8 and ::1 is refused at connect time on top of that, and no name but
   * localhost is looked up (test runs: nothing else is dialled).
   */
  egress?: DeliveryEgress;
  timeoutMs?: number;
  schedule?: RetrySchedule;
  retention?: Retention;
}

export const DEFAULT_DELIVERY_FILE = "delivery.sqlite";
const LOOPBACK_CIDRS = ["127.0.0.0/8", "::1/128"];

export interface DeliveryRuntime {
  engine: DeliveryEngine;
  metrics: DeliveryMetrics;
  webhooks: () => Iterable<SubscribedWebhook>;
  start(): void;
  close(): Promise<void>;
}

export async function openDelivery(
  o: DeliveryOptions & { client: KubeClient; cache: WebhookCache; allowLoopback: boolean; log: Logger },
): Promise<DeliveryRuntime> {
  // Checked before anything is opened: a bad CIDR names itself.
  const allow = new Allowlist(
    [...(o.allowLoopback ? LOOPBACK_CIDRS : []), ...(o.allowCidrs ?? [])],
    "--allow-cidr",
  );
  const store = await openDeliveryStore(
    o.store ?? { backend: "sqlite", file: DEFAULT_DELIVERY_FILE },
    (msg) => o.log.warn(msg),
  );
  try {
    const targets = new WebhookTargets(o.client, o.cache);
    const metrics = new DeliveryMetrics(() => store.queueStats());
    const engine = new DeliveryEngine({
      store,
      resolveTarget: (id) => targets.resolve(id),
      allow,
      egress: o.egress,
      timeoutMs: o.timeoutMs,
      schedule: o.schedule,
      retention: o.retention,
      log: o.log,
      onAttempt: (r) => metrics.observe(r),
    });
    const statusWriter = new DeliveryStatusWriter({
      client: o.client,
      webhooks: o.cache,
      facts: (since) => engine.factsChangedSince(since),
      log: o.log.child("status"),
    });
    // Deleted however (API, kubectl, namespace GC): its queue stops and its log goes now, not at
    // retention. Every replica sees the delete and forgets (idempotent).
    o.cache.onDeleted((id) => {
      engine.forgetWebhook(id).catch((err: Error) =>
        o.log.warn("cannot drop a deleted webhook's deliveries and log; retention removes them later", {
          webhook: id,
          error: err.message,
        }),
      );
    });
    return {
      engine,
      metrics,
      webhooks: () => targets.subscribed(),
      start() {
        engine.start();
        statusWriter.start();
      },
      async close() {
        await statusWriter.stop();
        await engine.stop();
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}
