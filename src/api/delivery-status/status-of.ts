// The delivery part of a Webhook's status from the engine's facts (pure): lastTriggeredAt,
// lastFailure and the `Delivering` condition. The Webhook controller owns Ready; these fields
// are the API's alone (its own field manager), so neither writer undoes the other.
import { type Condition, ConditionType } from "../../schema/condition.ts";
import type { StoredWebhook, WebhookStatus } from "../../schema/webhook.ts";
import type { WebhookFacts } from "../delivery/index.ts";

export interface DeliveryStatus {
  lastTriggeredAt?: number;
  lastFailure?: NonNullable<WebhookStatus["lastFailure"]>;
  conditions?: Condition[];
}

// The CRD bounds these strings (4096); the engine keeps 1 KiB of a response anyway.
const MAX_TEXT = 4096;

function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.000Z$/, "Z");
}

/** The revision deliveries use (matches WebhookTargets.resolve). */
export function revisionOf(r: StoredWebhook): string {
  return String(r.metadata?.generation ?? r.metadata?.resourceVersion ?? "0");
}

/** Turned off by a 410 Gone for the webhook's current spec (the next spec change turns it on). */
export function goneNow(facts: Pick<WebhookFacts, "gone">, r: StoredWebhook): boolean {
  return facts.gone !== undefined && facts.gone.revision === revisionOf(r);
}

function delivering(
  facts: WebhookFacts,
  r: StoredWebhook,
): Pick<Condition, "status" | "reason" | "message"> | undefined {
  if (facts.gone && goneNow(facts, r)) {
    return {
      status: "False",
      reason: "Gone",
      message: `the endpoint answered 410 Gone at ${rfc3339(facts.gone.at)}: deliveries are off until the webhook is updated`,
    };
  }
  if (facts.delivering === false) {
    const why = facts.lastFailure?.error ?? "the latest attempt failed";
    return {
      status: "False",
      reason: "Failing",
      message: `the latest delivery attempt failed: ${why}`.slice(0, MAX_TEXT),
    };
  }
  if (facts.delivering === true) {
    return { status: "True", reason: "Delivered", message: "the latest delivery attempt succeeded" };
  }
  return undefined;
}

/** The status to apply for `facts`, keeping a condition's lastTransitionTime while its status holds. */
export function deliveryStatusOf(facts: WebhookFacts, r: StoredWebhook, now: number): DeliveryStatus {
  const out: DeliveryStatus = {};
  if (facts.lastTriggeredAt !== undefined) out.lastTriggeredAt = facts.lastTriggeredAt;
  if (facts.lastFailure) {
    const f = facts.lastFailure;
    out.lastFailure = {
      timestamp: f.timestamp,
      error: f.error.slice(0, MAX_TEXT),
      ...(f.response !== undefined ? { response: f.response.slice(0, MAX_TEXT) } : {}),
      ...(f.statusCode !== undefined ? { statusCode: f.statusCode } : {}),
    };
  }
  const d = delivering(facts, r);
  if (d) {
    const existing = r.status?.conditions?.find((c) => c.type === ConditionType.Delivering);
    const condition: Condition = {
      type: ConditionType.Delivering,
      ...d,
      lastTransitionTime:
        existing && existing.status === d.status ? existing.lastTransitionTime : rfc3339(now),
    };
    const generation = r.metadata?.generation;
    if (generation !== undefined) condition.observedGeneration = generation;
    out.conditions = [condition];
  }
  return out;
}

/** Whether applying `next` would change what the Webhook shows now. */
export function deliveryStatusChanged(next: DeliveryStatus, r: StoredWebhook): boolean {
  const s = r.status ?? {};
  if (next.lastTriggeredAt !== s.lastTriggeredAt) return true;
  const a = next.lastFailure;
  const b = s.lastFailure;
  if (
    a?.timestamp !== b?.timestamp ||
    a?.error !== b?.error ||
    a?.response !== b?.response ||
    a?.statusCode !== b?.statusCode
  )
    return true;
  const want = next.conditions?.[0];
  if (!want) return false;
  const have = s.conditions?.find((c) => c.type === want.type);
  return (
    !have ||
    have.status !== want.status ||
    have.reason !== want.reason ||
    have.message !== want.message ||
    have.observedGeneration !== want.observedGeneration
  );
}
