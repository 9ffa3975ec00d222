import { describe, expect, it } from "vitest";
import { DeliveryMetrics } from "./delivery-metrics.ts";

describe("delivery metrics", () => {
  it("are served while the store does not answer (the queue gauges keep their last value)", async () => {
    let down = false;
    let askedWhileDown = 0;
    const m = new DeliveryMetrics(
      async () => {
        if (down) {
          askedWhileDown++;
          throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
        }
        return { pending: 3, oldestPendingCreatedAt: undefined };
      },
      { processMetrics: false },
    );
    expect(await m.registry.metrics()).toMatch(/^livepeer_webhook_delivery_queue_depth 3$/m);
    down = true;
    // Scrape until a scrape really asked the store that is down (the last answer is shared
    // with scrapes in the same turn of the event loop).
    let text = "";
    for (const deadline = Date.now() + 5_000; askedWhileDown === 0; ) {
      if (Date.now() > deadline) throw new Error("no scrape asked the store while it was down");
      await new Promise((r) => setTimeout(r, 1));
      text = await m.registry.metrics();
    }
    expect(text).toMatch(/^livepeer_webhook_delivery_queue_depth 3$/m);
    expect(text).toMatch(/livepeer_webhook_delivery_attempts_total/);
  });
});
