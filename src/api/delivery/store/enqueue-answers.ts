// What an enqueue answers each request of its batch, shared by both stores: the first request
// for a new (tenant, id) is `created` (with the deliveries leased to the enqueuer, if any); a
// later duplicate in the same batch, or an id already recorded, is not.
import type { ClaimedDelivery, StoredEvent } from "../model.ts";
import type { EnqueueRequest, EnqueueResult } from "./types.ts";

/** An event's identity: its tenant (user, project) and id. */
export function eventKey(e: { userId: string; projectId: string; id: string }): string {
  return `${e.userId}\u0000${e.projectId}\u0000${e.id}`;
}

/** `created` maps the eventKey of each event that is new to the deliveries leased for it (maybe none). */
export function answers(
  batch: readonly EnqueueRequest[],
  created: ReadonlyMap<string, ClaimedDelivery[]>,
): EnqueueResult[] {
  const answered = new Set<string>();
  return batch.map((r) => {
    const k = eventKey(r.event);
    const leased = answered.has(k) ? undefined : created.get(k);
    answered.add(k);
    if (!leased) return { id: r.event.id, created: false };
    return leased.length > 0 ? { id: r.event.id, created: true, leased } : { id: r.event.id, created: true };
  });
}

/** The event as a claim would read it back (its time defaults to when it was recorded). */
export function storedEvent(e: EnqueueRequest["event"], now: number): StoredEvent {
  return {
    id: e.id,
    userId: e.userId,
    projectId: e.projectId,
    kind: e.kind,
    streamId: e.streamId,
    stream: e.stream,
    payload: e.payload,
    createdAt: e.createdAt ?? now,
  };
}
