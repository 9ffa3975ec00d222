// status.conditions as the Kubernetes API conventions define them (pure functions):
// lastTransitionTime moves only when status changes; reasons are CamelCase; every condition
// records the generation it describes; types the controller owns exist from the first visit
// (as Unknown until known), so `kubectl wait --for=condition=Ready` has something to wait on.

import type { Condition } from "../../schema/condition.ts";

/** A condition to set: lastTransitionTime and observedGeneration are filled in; no message is "". */
export type ConditionUpdate = Pick<Condition, "type" | "status" | "reason"> &
  Partial<Pick<Condition, "message">> & {
    /**
     * Unknown only because nothing was read yet: a True or False known for the same generation is
     * kept as it stands (a restart changes nothing; a spec change makes it Unknown).
     */
    unread?: true;
  };

export interface ConditionContext {
  /** metadata.generation of the object the status describes. */
  generation: number | undefined;
  now: Date;
}

const CAMEL_CASE = /^[A-Z][A-Za-z0-9]*$/;
/** The API server rejects longer condition messages. */
const MAX_MESSAGE = 32_768;

/** Throws unless `reason` is CamelCase (what kubectl users and alerting rules match on). */
export function validateReason(reason: string): void {
  if (!CAMEL_CASE.test(reason)) {
    throw new Error(
      `condition/event reason ${JSON.stringify(reason)} is not CamelCase: use a word like "SecretNotFound" (letters and digits, starting upper case)`,
    );
  }
}

export function validateConditionType(type: string): void {
  if (!CAMEL_CASE.test(type)) {
    throw new Error(`condition type ${JSON.stringify(type)} is not PascalCase: use a word like "Ready"`);
  }
}

/** metav1.Time has second precision: writing milliseconds would read back different. */
export function conditionTime(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, "Z");
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === "True";
}

/** Returns new conditions with `update` set; the input is not modified. */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  update: ConditionUpdate,
  ctx: ConditionContext,
): Condition[] {
  validateConditionType(update.type);
  validateReason(update.reason);
  const existing = findCondition(conditions, update.type);
  // A known answer stands only for the spec it described: after a spec change, Unknown it is.
  const known =
    (existing?.status === "True" || existing?.status === "False") &&
    (existing.observedGeneration === undefined || existing.observedGeneration === ctx.generation);
  const u = update.unread && known ? existing : update;
  const next: Condition = {
    type: u.type,
    status: u.status,
    reason: u.reason,
    message: (u.message ?? "").slice(0, MAX_MESSAGE),
    lastTransitionTime:
      existing && existing.status === u.status ? existing.lastTransitionTime : conditionTime(ctx.now),
  };
  if (ctx.generation !== undefined) next.observedGeneration = ctx.generation;
  const list = [...(conditions ?? [])];
  const at = list.findIndex((c) => c.type === update.type);
  if (at >= 0) list[at] = next;
  else list.push(next);
  return list;
}

/** Adds each missing type as Unknown (first visit); existing conditions are kept as they are. */
export function ensureConditions(
  conditions: readonly Condition[] | undefined,
  types: readonly string[],
  ctx: ConditionContext,
  reason = "Reconciling",
  message = "the controller has not finished checking this resource yet",
): Condition[] {
  let list = [...(conditions ?? [])];
  for (const type of types) {
    if (!findCondition(list, type))
      list = setCondition(list, { type, status: "Unknown", reason, message }, ctx);
  }
  return list;
}

/** Key-order-insensitive deep equality of two status objects: write status only when this is true. */
export function statusChanged(before: unknown, after: unknown): boolean {
  return canonical(before) !== canonical(after);
}

function canonical(v: unknown): string {
  return JSON.stringify(normalize(v)) ?? "undefined";
}

function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const val = (v as Record<string, unknown>)[k];
      if (val !== undefined) out[k] = normalize(val);
    }
    return out;
  }
  return v;
}
