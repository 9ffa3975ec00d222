// The facts upsert, shared by both backends: its values, and its merge, in which each fact is
// replaced only by a newer one (concurrent workers settle out of order). `greatest` is max() in
// SQLite, GREATEST in PostgreSQL.

import type { FactsDelta } from "./facts-delta.ts";

export const FACTS_COLUMNS = [
  "webhook_id",
  "last_triggered_at",
  "last_failure_at",
  "last_failure_error",
  "last_failure_response",
  "last_failure_status",
  "delivering",
  "delivering_at",
  "gone_revision",
  "gone_at",
  "updated_at",
] as const;

/** A batch's facts for one webhook as values in FACTS_COLUMNS order, updated at `now`. */
export function factsValues(d: FactsDelta, now: number): (string | number | boolean | null)[] {
  return [
    d.webhookId,
    d.lastTriggeredAt,
    d.lastFailure?.at ?? null,
    d.lastFailure?.error ?? null,
    d.lastFailure?.response ?? null,
    d.lastFailure?.statusCode ?? null,
    d.delivering.value,
    d.delivering.at,
    d.gone?.revision ?? null,
    d.gone?.at ?? null,
    now,
  ];
}

export function factsMergeSet(greatest: string): string {
  const t = "webhook_facts";
  const newerFailure = `excluded.last_failure_at IS NOT NULL AND excluded.last_failure_at >= coalesce(${t}.last_failure_at, 0)`;
  const newerGone = `excluded.gone_at IS NOT NULL AND excluded.gone_at >= coalesce(${t}.gone_at, 0)`;
  const newerResult = `excluded.delivering_at >= coalesce(${t}.delivering_at, 0)`;
  const pick = (cond: string, col: string) =>
    `${col} = CASE WHEN ${cond} THEN excluded.${col} ELSE ${t}.${col} END`;
  return [
    `last_triggered_at = ${greatest}(coalesce(${t}.last_triggered_at, 0), excluded.last_triggered_at)`,
    pick(newerFailure, "last_failure_at"),
    pick(newerFailure, "last_failure_error"),
    pick(newerFailure, "last_failure_response"),
    pick(newerFailure, "last_failure_status"),
    pick(newerResult, "delivering"),
    `delivering_at = ${greatest}(coalesce(${t}.delivering_at, 0), excluded.delivering_at)`,
    pick(newerGone, "gone_revision"),
    pick(newerGone, "gone_at"),
    "updated_at = excluded.updated_at",
  ].join(",\n    ");
}
