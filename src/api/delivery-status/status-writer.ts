// Writes the delivery facts onto the Webhooks: every ~1 s it reads the facts changed since the
// previous poll (with a few seconds of overlap: replicas' clocks and commit order differ) and
// server-side applies lastTriggeredAt, lastFailure and the Delivering condition through the
// status subresource with the API's own field manager. One write per changed webhook per poll,
// and none when the Webhook already shows the facts: a burst of events is not a burst of writes.
import { isNotFound } from "../../kube/api-error.ts";
import type { KubeClient } from "../../kube/kube-client.ts";
import type { Logger } from "../../process/log.ts";
import { Webhooks } from "../../schema/resources.ts";
import type { StoredWebhook } from "../../schema/webhook.ts";
import type { WebhookFacts } from "../delivery/index.ts";
import { deliveryStatusChanged, deliveryStatusOf } from "./status-of.ts";

export const DELIVERY_STATUS_FIELD_MANAGER = "livepeer-operator-api-delivery";

export interface StatusWriterOptions {
  client: KubeClient;
  /** The Webhook cache: read, and told of each write (so the next poll sees it at once). */
  webhooks: { get(name: string): StoredWebhook | undefined; wrote(obj: StoredWebhook): void };
  facts: (since: number) => Promise<WebhookFacts[]>;
  log: Logger;
  everyMs?: number;
  overlapMs?: number;
  clock?: () => number;
}

export class DeliveryStatusWriter {
  readonly #o: StatusWriterOptions;
  readonly #clock: () => number;
  #since = 0;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = false;

  constructor(o: StatusWriterOptions) {
    this.#o = o;
    this.#clock = o.clock ?? Date.now;
  }

  start(): void {
    const tick = () => {
      this.#running = this.poll()
        .catch((err: Error) =>
          this.#o.log.warn("cannot write webhook delivery status; retrying", { error: err.message }),
        )
        .finally(() => {
          this.#running = undefined;
          if (!this.#stopped) this.#timer = setTimeout(tick, this.#o.everyMs ?? 1000);
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** One poll: applies what changed; the cursor moves only when every write succeeded. */
  async poll(): Promise<number> {
    const started = this.#clock();
    const changed = await this.#o.facts(Math.max(0, this.#since - (this.#o.overlapMs ?? 5000)));
    let written = 0;
    let failed = 0;
    for (const f of changed) {
      const r = this.#o.webhooks.get(f.webhookId);
      if (!r || r.metadata?.deletionTimestamp) continue;
      const next = deliveryStatusOf(f, r, this.#clock());
      if (!deliveryStatusChanged(next, r)) continue;
      try {
        const body = { metadata: { name: r.metadata?.name, namespace: r.metadata?.namespace }, status: next };
        const applied = await this.#o.client.apply<StoredWebhook>(Webhooks, body, {
          fieldManager: DELIVERY_STATUS_FIELD_MANAGER,
          force: true,
          subresource: "status",
        });
        this.#o.webhooks.wrote(applied);
        written++;
      } catch (err) {
        if (isNotFound(err)) continue;
        failed++;
        this.#o.log.warn("cannot write a webhook's delivery status; will retry", {
          webhook: f.webhookId,
          error: (err as Error).message,
        });
      }
    }
    if (failed === 0) this.#since = started;
    return written;
  }
}
