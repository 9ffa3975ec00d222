// Which webhooks an event goes to: its tenant's (same user and project), subscribed to its kind
// (no `events` list = every kind, an empty list = none), and, for a webhook scoped to a stream,
// only that stream's events (the hosted service ignores the scope; we do not).

/** A webhook as matching sees it; the lead builds these from the Webhook cache. */
export interface SubscribedWebhook {
  id: string;
  userId: string;
  projectId: string;
  events?: readonly string[] | undefined;
  streamId?: string | undefined;
  /** Turned off (e.g. the `Delivering` condition after a 410 Gone): gets nothing until updated. */
  disabled?: boolean | undefined;
}

export interface MatchableEvent {
  userId: string;
  projectId: string;
  kind: string;
  streamId?: string | undefined;
}

export function subscribes(webhook: SubscribedWebhook, event: MatchableEvent): boolean {
  if (webhook.disabled) return false;
  if (webhook.userId !== event.userId || webhook.projectId !== event.projectId) return false;
  if (webhook.events && !webhook.events.includes(event.kind)) return false;
  if (webhook.streamId && webhook.streamId !== event.streamId) return false;
  return true;
}

/** The ids of the webhooks `event` goes to, each once. */
export function matchWebhooks(event: MatchableEvent, webhooks: Iterable<SubscribedWebhook>): string[] {
  const ids = new Set<string>();
  for (const w of webhooks) if (subscribes(w, event)) ids.add(w.id);
  return [...ids];
}
