// The Webhook's status from what the steps saw (pure): one Ready condition and the generation it
// describes. Fields other writers own (lastFailure, lastTriggeredAt from delivery) are not touched.
import { type Condition, ensureConditions, setCondition } from "../runtime/index.ts";
import type { Verdict } from "./checks.ts";
import type { Webhook } from "./resource.ts";

export interface WebhookStatusPatch {
  observedGeneration?: number;
  conditions: Condition[];
}

export function readyFrom(
  webhook: Webhook,
  verdicts: Verdict[],
): { status: "True" | "False"; reason: string; message: string } {
  const failed = verdicts.find((v): v is Extract<Verdict, { ok: false }> => !v.ok);
  if (failed) return { status: "False", reason: failed.reason, message: failed.message };
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

export function computeStatus(webhook: Webhook, verdicts: Verdict[], now: Date): WebhookStatusPatch {
  const generation = webhook.metadata?.generation;
  const ctx = { generation, now };
  const conditions = setCondition(
    ensureConditions(webhook.status?.conditions, ["Ready"], ctx),
    {
      type: "Ready",
      ...readyFrom(webhook, verdicts),
    },
    ctx,
  );
  return { ...(generation !== undefined ? { observedGeneration: generation } : {}), conditions };
}

/** The part of the current status this controller owns, to compare with computeStatus(). */
export function ownedStatus(webhook: Webhook): WebhookStatusPatch {
  const s = webhook.status ?? {};
  return {
    ...(s.observedGeneration !== undefined ? { observedGeneration: s.observedGeneration } : {}),
    conditions: s.conditions ?? [],
  };
}

/** Ready=Unknown for a first visit that could not finish (the error is retried). */
export function unknownStatus(webhook: Webhook, message: string, now: Date): WebhookStatusPatch {
  const generation = webhook.metadata?.generation;
  const ctx = { generation, now };
  return {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions: setCondition(
      webhook.status?.conditions,
      { type: "Ready", status: "Unknown", reason: "CheckFailed", message },
      ctx,
    ),
  };
}
