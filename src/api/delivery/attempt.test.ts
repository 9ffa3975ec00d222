import { describe, expect, it } from "vitest";
import { type AttemptContext, attempt } from "./attempt.ts";
import type { ClaimedDelivery, DeliveryTarget } from "./model.ts";
import { DEFAULT_RETRY_SCHEDULE } from "./retry-policy.ts";
import type { SendResult } from "./sender.ts";

const NOW = 1_800_000_000_000;
const claimed: ClaimedDelivery = {
  deliveryId: 7,
  claimToken: "tok",
  webhookId: "w1",
  attempts: 2,
  createdAt: NOW - 10_000,
  event: { id: "e1", userId: "u", projectId: "p", kind: "stream.idle", createdAt: NOW - 10_000 },
};

/** A context whose sender answers `result` and records what it was asked to send. */
function context(target: DeliveryTarget | undefined, result: SendResult, graceMs = 60_000) {
  const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
  const ctx: AttemptContext = {
    send: async (url, headers, body) => {
      sent.push({ url, headers, body });
      return result;
    },
    resolveTarget: () => target,
    schedule: { ...DEFAULT_RETRY_SCHEDULE, jitter: 0 },
    userAgent: "ua",
    missingWebhookGraceMs: graceMs,
    clock: () => NOW,
    random: () => 0.5,
  };
  return { ctx, sent };
}

const ok: SendResult = {
  outcome: { kind: "response", status: 204, statusText: "No Content", body: "" },
  response: { status: 204, statusText: "No Content", body: "" },
  durationMs: 12,
};
const busy: SendResult = {
  outcome: { kind: "response", status: 503, statusText: "", body: "later" },
  response: { status: 503, statusText: "", body: "later" },
  durationMs: 8,
};
const target: DeliveryTarget = { url: "https://hooks.example/x", sharedSecret: "s", revision: "3" };

describe("attempt", () => {
  it("sends a signed request and settles a 2xx as delivered, logging the request and response", async () => {
    const { ctx, sent } = context(target, ok);
    const { settlement, report } = await attempt(claimed, ctx);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers["livepeer-signature"]).toMatch(/^t=\d+,v1=/);
    expect(settlement).toMatchObject({
      kind: "attempted",
      claim: { deliveryId: 7, claimToken: "tok", attemptsMade: 3 },
      next: { state: "delivered" },
      log: { webhookId: "w1", eventId: "e1", event: "stream.idle", success: true, durationMs: 12 },
    });
    expect(report).toMatchObject({ result: "delivered", attemptsMade: 3, statusCode: 204 });
  });

  it("schedules a retry for a 5xx with the error logged", async () => {
    const { ctx } = context(target, busy);
    const { settlement } = await attempt(claimed, ctx);
    // Third failure: 5 s x 2^2.
    expect(settlement).toMatchObject({
      next: { state: "pending", at: NOW + 20_000 },
      log: { error: "HTTP 503" },
    });
  });

  it("records the webhook's revision when the endpoint answers 410", async () => {
    const gone: SendResult = { ...busy, outcome: { ...busy.outcome, status: 410 } as SendResult["outcome"] };
    const { settlement, report } = await attempt(claimed, context(target, gone).ctx);
    expect(settlement).toMatchObject({ next: { state: "failed" }, goneRevision: "3" });
    expect(report.result).toBe("gone");
  });

  it("drops without sending when the endpoint turned this revision off", async () => {
    const { ctx, sent } = context(target, ok);
    const { settlement } = await attempt({ ...claimed, goneRevision: "3" }, ctx);
    expect(sent).toEqual([]);
    expect(settlement).toMatchObject({ kind: "dropped", reason: expect.stringMatching(/410 Gone/) });
    const updated = await attempt({ ...claimed, goneRevision: "2" }, ctx);
    expect(updated.settlement.kind).toBe("attempted");
  });

  it("puts a delivery for an unknown webhook back briefly, then drops it once the grace period is over", async () => {
    const early = await attempt(claimed, context(undefined, ok, 60_000).ctx);
    expect(early.settlement).toEqual({ kind: "released", deliveryId: 7, claimToken: "tok", at: NOW + 1_000 });
    const late = await attempt(claimed, context(undefined, ok, 5_000).ctx);
    expect(late.settlement).toMatchObject({
      kind: "dropped",
      reason: "webhook w1 no longer exists: the delivery was dropped",
    });
  });
});
