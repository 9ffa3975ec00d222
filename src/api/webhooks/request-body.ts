// A create/update body -> what to write. Read-only fields (createdAt, status, kind, userId) are
// ignored so a client can send back what it read; `id` is ignored on create and on update must
// be absent or the path's id (the path is authoritative). `sharedSecret`: undefined = keep the
// stored one (update) / none (create); "" = remove / none. An empty projectId or streamId is the
// same as an absent one.
import { badRequest, unprocessable } from "../errors/http-error.ts";
import { parseOr422 } from "../errors/validation.ts";
import type { WebhookContent } from "../store/webhook-resource.ts";
import { WebhookRequestBody } from "./api-schema.ts";
import { internalTargetReason } from "./target-policy.ts";

export interface WebhookWrite {
  content: WebhookContent;
  /** Absent: the caller's project (create) or the stored one (update). */
  projectId?: string | undefined;
  sharedSecret?: string | undefined;
}

export interface BodyRules {
  /** The path's id on update; undefined on create. */
  pathId?: string | undefined;
  allowLoopbackTargets: boolean;
}

export function parseWebhookWrite(body: unknown, rules: BodyRules): WebhookWrite {
  if (body === undefined) {
    throw badRequest("a request body is required: send the webhook object as application/json");
  }
  const b = parseOr422(WebhookRequestBody, body, "body");
  if (rules.pathId !== undefined && b.id !== undefined && b.id !== rules.pathId) {
    throw unprocessable(
      `body field 'id' (${b.id.slice(0, 64)}) differs from the id in the path: omit it or send the same id`,
    );
  }
  if (!rules.allowLoopbackTargets) {
    const reason = internalTargetReason(b.url);
    if (reason) throw unprocessable(`body field ${reason}`);
  }
  // An empty projectId or streamId means the same as leaving it out.
  return {
    content: { name: b.name, url: b.url, events: b.events, streamId: b.streamId || undefined },
    projectId: b.projectId || undefined,
    sharedSecret: b.sharedSecret,
  };
}
