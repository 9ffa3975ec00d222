// Webhook delivery: what the API wires in (see README.md here for the design and its limits).
export {
  Allowlist,
  DEFAULT_DELIVERY_EGRESS,
  DELIVERY_EGRESS,
  type DeliveryEgress,
  LOOPBACK_ALLOWED,
  NOTHING_ALLOWED,
} from "./address-policy.ts";
export type { AttemptReport } from "./attempt.ts";
export { DeliveryEngine, type DeliveryEngineOptions, type Enqueued } from "./engine.ts";
export { matchWebhooks, type SubscribedWebhook } from "./matching.ts";
export {
  apiLogOf,
  type DeliveryTarget,
  type LogEntry,
  type LogPage,
  type LogPosition,
  type NewEvent,
  type WebhookFacts,
} from "./model.ts";
export { DEFAULT_RETRY_SCHEDULE, type RetrySchedule, scheduleProblem } from "./retry-policy.ts";
export { DEFAULT_TIMEOUT_MS } from "./sender.ts";
export { openDeliveryStore, type StoreConfig } from "./store/open-store.ts";
export { DEFAULT_RETENTION, type DeliveryStore, type QueueStats, type Retention } from "./store/types.ts";
