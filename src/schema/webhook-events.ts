// The event kinds a webhook may subscribe to (the spec's "Events" list, exact values).
import { z } from "zod";

export const WEBHOOK_EVENT_KINDS = [
  "stream.started",
  "stream.detection",
  "stream.idle",
  "recording.ready",
  "recording.started",
  "recording.waiting",
  "multistream.connected",
  "multistream.error",
  "multistream.disconnected",
  "playback.user.new",
  "playback.accessControl",
  "asset.created",
  "asset.updated",
  "asset.failed",
  "asset.ready",
  "asset.deleted",
  "task.spawned",
  "task.updated",
  "task.completed",
  "task.failed",
] as const;

export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

export const WebhookEventKindSchema = z
  .enum(WEBHOOK_EVENT_KINDS, {
    error: (iss) =>
      `${JSON.stringify(iss.input)} is not an event kind: use one of ${WEBHOOK_EVENT_KINDS.join(", ")}`,
  })
  .describe("An event kind, for example stream.started.");

export function isWebhookEventKind(value: string): value is WebhookEventKind {
  return (WEBHOOK_EVENT_KINDS as readonly string[]).includes(value);
}
