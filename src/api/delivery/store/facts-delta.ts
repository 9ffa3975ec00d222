// A batch of settled attempts, folded into one change per webhook: the newest trigger, the newest
// failure, whether the newest attempt delivered, and a 410. Both stores then write one row per
// webhook per batch, merged with what is stored by time (concurrent workers may settle out of order).
import type { Settlement } from "./types.ts";

export interface FactsDelta {
  webhookId: string;
  lastTriggeredAt: number;
  lastFailure?: { at: number; error: string; response?: string | undefined; statusCode?: number | undefined };
  delivering: { value: boolean; at: number };
  gone?: { revision: string; at: number };
}

export function factsDeltas(batch: readonly Settlement[]): FactsDelta[] {
  const byWebhook = new Map<string, FactsDelta>();
  for (const s of batch) {
    if (s.kind !== "attempted") continue;
    const { log } = s;
    const at = log.createdAt;
    let d = byWebhook.get(log.webhookId);
    if (!d) {
      d = { webhookId: log.webhookId, lastTriggeredAt: at, delivering: { value: log.success, at } };
      byWebhook.set(log.webhookId, d);
    }
    d.lastTriggeredAt = Math.max(d.lastTriggeredAt, at);
    if (at >= d.delivering.at) d.delivering = { value: log.success, at };
    if (!log.success && (!d.lastFailure || at >= d.lastFailure.at)) {
      d.lastFailure = {
        at,
        error: log.error || "delivery failed",
        response: log.response?.body,
        statusCode: log.response?.status,
      };
    }
    if (s.goneRevision !== undefined && (!d.gone || at >= d.gone.at))
      d.gone = { revision: s.goneRevision, at };
  }
  // A stable order: concurrent writers lock facts rows in the same order (no deadlocks).
  return [...byWebhook.values()].sort((a, b) =>
    a.webhookId < b.webhookId ? -1 : a.webhookId > b.webhookId ? 1 : 0,
  );
}
