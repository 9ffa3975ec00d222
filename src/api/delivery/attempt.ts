// One attempt, start to settlement: resolve the webhook, sign, send, decide, and say what the
// store should record. A webhook not known (yet) is retried shortly, then dropped once it has
// been missing long enough to be truly gone; a webhook its endpoint turned off (410) for its
// current revision is dropped without sending.
import { randomUUIDv7 } from "node:crypto";
import type { ClaimedDelivery, DeliveryTarget, LogEntry } from "./model.ts";
import { type Decision, decide, type RetrySchedule } from "./retry-policy.ts";
import type { SendResult } from "./sender.ts";
import { signedRequest } from "./signing.ts";
import type { Settlement } from "./store/types.ts";

export interface AttemptContext {
  send: (url: string, headers: Record<string, string>, body: string) => Promise<SendResult>;
  resolveTarget: (webhookId: string) => DeliveryTarget | undefined | Promise<DeliveryTarget | undefined>;
  schedule: RetrySchedule;
  userAgent: string;
  /** A webhook unknown for longer than this after its delivery was created is taken as deleted. */
  missingWebhookGraceMs: number;
  clock: () => number;
  random: () => number;
}

/** What happened, for metrics and logs. */
export interface AttemptReport {
  webhookId: string;
  eventId: string;
  /** delivered / retry / failed / gone, or released / dropped when nothing was sent. */
  result: Decision["kind"] | "released" | "dropped";
  attemptsMade: number;
  durationMs: number;
  statusCode?: number | undefined;
  error?: string | undefined;
}

const RECHECK_MISSING_MS = 1_000;

export async function attempt(
  d: ClaimedDelivery,
  ctx: AttemptContext,
): Promise<{ settlement: Settlement; report: AttemptReport }> {
  const base = { webhookId: d.webhookId, eventId: d.event.id, attemptsMade: d.attempts, durationMs: 0 };
  const target = await ctx.resolveTarget(d.webhookId);
  const now = ctx.clock();
  if (!target) {
    if (now - d.createdAt <= ctx.missingWebhookGraceMs) {
      return {
        settlement: {
          kind: "released",
          deliveryId: d.deliveryId,
          claimToken: d.claimToken,
          at: now + RECHECK_MISSING_MS,
        },
        report: { ...base, result: "released" },
      };
    }
    const reason = `webhook ${d.webhookId} no longer exists: the delivery was dropped`;
    return { settlement: dropped(d, reason), report: { ...base, result: "dropped", error: reason } };
  }
  if (d.goneRevision !== undefined && d.goneRevision === target.revision) {
    const reason = "the endpoint answered 410 Gone: deliveries are off until the webhook is updated";
    return { settlement: dropped(d, reason), report: { ...base, result: "dropped", error: reason } };
  }

  const attemptAt = ctx.clock();
  const { body, headers } = signedRequest(
    d.event,
    d.webhookId,
    target.sharedSecret,
    attemptAt,
    ctx.userAgent,
  );
  const sent = await ctx.send(target.url, headers, body);
  const attemptsMade = d.attempts + 1;
  const decision = decide(sent.outcome, {
    attemptsMade,
    createdAt: d.createdAt,
    now: ctx.clock(),
    schedule: ctx.schedule,
    random: ctx.random(),
  });
  const error = decision.kind === "delivered" ? undefined : decision.error;
  const log: LogEntry = {
    // Time-ordered ids: log inserts append to the index instead of touching a random page each.
    id: randomUUIDv7(),
    webhookId: d.webhookId,
    eventId: d.event.id,
    event: d.event.kind,
    createdAt: attemptAt,
    durationMs: sent.durationMs,
    success: decision.kind === "delivered",
    request: { url: target.url, method: "POST", headers, body },
    response: sent.response,
    error,
  };
  const next =
    decision.kind === "delivered"
      ? ({ state: "delivered" } as const)
      : decision.kind === "retry"
        ? ({ state: "pending", at: decision.at } as const)
        : ({ state: "failed" } as const);
  return {
    settlement: {
      kind: "attempted",
      claim: { deliveryId: d.deliveryId, claimToken: d.claimToken, attemptsMade },
      next,
      log,
      goneRevision: decision.kind === "gone" ? target.revision : undefined,
    },
    report: {
      ...base,
      result: decision.kind,
      attemptsMade,
      durationMs: sent.durationMs,
      statusCode: sent.response?.status,
      error,
    },
  };
}

function dropped(d: ClaimedDelivery, reason: string): Settlement {
  return {
    kind: "dropped",
    deliveryId: d.deliveryId,
    claimToken: d.claimToken,
    webhookId: d.webhookId,
    reason,
  };
}
