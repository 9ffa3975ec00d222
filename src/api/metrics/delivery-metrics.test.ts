import { describe, expect, it } from "vitest";
import { DeliveryMetrics } from "./delivery-metrics.ts";

describe("delivery metrics", () => {
  it("are served while the store does not answer (the queue gauges keep their last value)", async () => {
    let down = false;
    const m = new DeliveryMetrics(
      async () => {
        if (down) throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
        return { pending: 3, oldestPendingCreatedAt: undefined };
      },
      { processMetrics: false },
    );
    expect(await m.registry.metrics()).toMatch(/^livepeer_webhook_delivery_queue_depth 3$/m);
    down = true;
    await new Promise((r) => setTimeout(r, 5));
    const text = await m.registry.metrics();
    expect(text).toMatch(/^livepeer_webhook_delivery_queue_depth 3$/m);
    expect(text).toMatch(/livepeer_webhook_delivery_attempts_total/);
  });
});
