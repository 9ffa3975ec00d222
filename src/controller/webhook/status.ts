// The Webhook's status from what the steps saw (pure): one Ready condition and the generation it
// describes. Fields other writers own (lastFailure, lastTriggeredAt from delivery) are not touched.
import type { Condition } from "../../schema/condition.ts";
import type { StoredWebhook } from "../../schema/webhook.ts";
import { ensureConditions, setCondition, type Verdict } from "../runtime/index.ts";

export interface WebhookStatusPatch {
  observedGeneration?: number;
  conditions: Condition[];
}

/** Ready only: the API writes Delivering with its own field manager; applying it here would undo its updates. */
function ownConditions(webhook: StoredWebhook) {
  return (webhook.status?.conditions ?? []).filter((c) => c.type === "Ready");
}

/** Ready: the first check that did not pass, else Configured. */
export function readyFrom(webhook: StoredWebhook, verdicts: Verdict[]): Verdict {
  const failed = verdicts.find((v) => v.status !== "True");
  if (failed) return failed;
  const ref = webhook.spec.sharedSecretRef;
  const signing = ref?.name
    ? `signed with key ${ref.key} of Secret ${ref.name}`
    : "unsigned (no spec.sharedSecretRef)";
  return {
    status: "True",
    reason: "Configured",
    message: `events are delivered to ${webhook.spec.url}, ${signing}`,
  };
}

export function computeStatus(webhook: StoredWebhook, verdicts: Verdict[], now: Date): WebhookStatusPatch {
  const generation = webhook.metadata?.generation;
  const ctx = { generation, now };
  const conditions = setCondition(
    ensureConditions(ownConditions(webhook), ["Ready"], ctx),
    {
      type: "Ready",
      ...readyFrom(webhook, verdicts),
    },
    ctx,
  );
  return { ...(generation !== undefined ? { observedGeneration: generation } : {}), conditions };
}

/** The part of the current status this controller owns, to compare with computeStatus(). */
export function ownedStatus(webhook: StoredWebhook): WebhookStatusPatch {
  const s = webhook.status ?? {};
  return {
    ...(s.observedGeneration !== undefined ? { observedGeneration: s.observedGeneration } : {}),
    conditions: ownConditions(webhook),
  };
}

/** Ready=Unknown for a first visit that could not finish (the error is retried). */
export function unknownStatus(webhook: StoredWebhook, message: string, now: Date): WebhookStatusPatch {
  const generation = webhook.metadata?.generation;
  const ctx = { generation, now };
  return {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions: setCondition(
      ownConditions(webhook),
      { type: "Ready", status: "Unknown", reason: "CheckFailed", message },
      ctx,
    ),
  };
}
