import { describe, expect, it } from "vitest";
import type { StoredWebhook } from "../../schema/webhook.ts";
import type { WebhookFacts } from "../delivery/index.ts";
import { deliveryStatusChanged, deliveryStatusOf } from "./status-of.ts";

const T = Date.UTC(2026, 0, 2, 3, 4, 5);

function hook(generation: number, status?: StoredWebhook["status"]): StoredWebhook {
  return {
    apiVersion: "livepeer.org/v1alpha1",
    kind: "Webhook",
    metadata: { name: "w", namespace: "ns", generation },
    spec: { name: "w", url: "https://example.com/h" },
    ...(status ? { status } : {}),
  } as StoredWebhook;
}

const facts = (f: Partial<WebhookFacts>): WebhookFacts => ({ webhookId: "w", updatedAt: T, ...f });

describe("deliveryStatusOf", () => {
  it.each([
    ["no attempt yet", facts({}), undefined],
    ["delivered", facts({ lastTriggeredAt: T, delivering: true }), { status: "True", reason: "Delivered" }],
    [
      "failing",
      facts({
        lastTriggeredAt: T,
        delivering: false,
        lastFailure: { timestamp: T, error: "HTTP 503", statusCode: 503 },
      }),
      { status: "False", reason: "Failing", message: "the latest delivery attempt failed: HTTP 503" },
    ],
    [
      "gone for this generation",
      facts({ delivering: false, gone: { revision: "3", at: T } }),
      {
        status: "False",
        reason: "Gone",
        message: expect.stringMatching(/410 Gone at 2026-01-02T03:04:05Z.*until the webhook is updated/),
      },
    ],
    [
      "gone for an older generation, now delivering",
      facts({ delivering: true, gone: { revision: "2", at: T } }),
      { status: "True", reason: "Delivered" },
    ],
  ])("%s -> Delivering %o", (_what, f, condition) => {
    const s = deliveryStatusOf(f, hook(3), T + 1000);
    if (condition === undefined) expect(s.conditions).toBeUndefined();
    else
      expect(s.conditions).toEqual([
        expect.objectContaining({ type: "Delivering", observedGeneration: 3, ...condition }),
      ]);
  });

  it("copies lastTriggeredAt and lastFailure, error never empty", () => {
    const s = deliveryStatusOf(
      facts({
        lastTriggeredAt: T,
        delivering: false,
        lastFailure: { timestamp: T, error: "connect ECONNREFUSED 127.0.0.1:9" },
      }),
      hook(1),
      T,
    );
    expect(s.lastTriggeredAt).toBe(T);
    expect(s.lastFailure).toEqual({ timestamp: T, error: "connect ECONNREFUSED 127.0.0.1:9" });
  });

  it("keeps lastTransitionTime while the status holds and moves it when it flips", () => {
    const before = {
      conditions: [
        {
          type: "Delivering",
          status: "False" as const,
          reason: "Failing",
          message: "x",
          lastTransitionTime: "2026-01-01T00:00:00Z",
        },
      ],
    };
    const still = deliveryStatusOf(
      facts({ delivering: false, lastFailure: { timestamp: T, error: "HTTP 500" } }),
      hook(1, before),
      T,
    );
    expect(still.conditions?.[0]?.lastTransitionTime).toBe("2026-01-01T00:00:00Z");
    const flipped = deliveryStatusOf(facts({ delivering: true }), hook(1, before), T);
    expect(flipped.conditions?.[0]?.lastTransitionTime).toBe("2026-01-02T03:04:05Z");
  });
});

describe("deliveryStatusChanged", () => {
  const f = facts({
    lastTriggeredAt: T,
    delivering: false,
    lastFailure: { timestamp: T, error: "HTTP 503", statusCode: 503 },
  });

  it("is false once the Webhook shows the same facts (key order aside), so overlapping polls write nothing", () => {
    const next = deliveryStatusOf(f, hook(1), T);
    const shown = hook(1, {
      lastTriggeredAt: T,
      lastFailure: { error: "HTTP 503", statusCode: 503, timestamp: T },
      conditions: [{ ...next.conditions![0]!, lastTransitionTime: "2020-01-01T00:00:00Z" }],
    });
    expect(deliveryStatusChanged(next, shown)).toBe(false);
  });

  it.each([
    ["nothing shown yet", hook(1)],
    ["an older trigger", hook(1, { lastTriggeredAt: T - 1 })],
  ])("is true for %s", (_what, shown) => {
    expect(deliveryStatusChanged(deliveryStatusOf(f, hook(1), T), shown)).toBe(true);
  });
});
