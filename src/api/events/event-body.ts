// The intake's body, `{event, streamId?, payload?, id?, userId?, projectId?}`, and whose event it
// is: producers publish for their own tenant; admins may name another (userId, projectId).
import { z } from "zod";
import { WebhookEventKindSchema } from "../../schema/webhook-events.ts";
import { DEFAULT_PROJECT, type Principal } from "../auth/claims.ts";
import type { NewEvent } from "../delivery/index.ts";
import { badRequest, forbidden, unprocessable } from "../errors/http-error.ts";
import { parseOr422 } from "../errors/validation.ts";

/** The payload is stored with the event and sent with every attempt: keep it small. */
export const MAX_PAYLOAD_BYTES = 16 * 1024;

// No control characters (Unicode category Cc: U+0000-U+001F and U+007F-U+009F), written as ranges
// rather than \p{Cc} so that JSON Schema tools in other languages (Python's re, hypothesis) can use
// the document's pattern.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it refuses
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f-\u009f]+$/;

const Id = (what: string) =>
  z
    .string()
    .min(1)
    .max(256)
    .regex(NO_CONTROL_CHARACTERS, {
      error: `${what} must be 1-256 characters without control characters (U+0000-U+001F, U+007F-U+009F): remove them`,
    })
    .describe("1-256 characters, none a control character (U+0000-U+001F, U+007F-U+009F).");

export const EventBodySchema = z.strictObject({
  event: WebhookEventKindSchema,
  id: Id("id")
    .optional()
    .describe(
      "Stable event id: the same id twice is one event (producers may retry). 1-256 characters, none a control character (U+0000-U+001F, U+007F-U+009F).",
    ),
  streamId: Id("streamId").optional(),
  payload: z.record(z.string(), z.unknown()).optional(),
  userId: Id("userId").optional(),
  projectId: Id("projectId").optional(),
});

export type EventBody = z.infer<typeof EventBodySchema>;

/** Whose event this is; 403 when a producer names another tenant. */
export function tenantFor(
  p: Principal,
  b: Pick<EventBody, "userId" | "projectId">,
): {
  userId: string;
  projectId: string;
} {
  const userId = b.userId ?? p.userId;
  // Naming a user without a project means that user's default project.
  const projectId =
    b.projectId ?? (b.userId !== undefined && b.userId !== p.userId ? DEFAULT_PROJECT : p.projectId);
  if (!p.admin && (userId !== p.userId || projectId !== p.projectId)) {
    throw forbidden(
      `only admins may publish for another tenant: omit userId and projectId to publish for your token's (user '${p.userId}', project '${p.projectId}')`,
    );
  }
  return { userId, projectId };
}

export function parseEventBody(p: Principal, body: unknown, now: number): NewEvent {
  if (body === undefined || body === null) {
    throw badRequest('a request body is required: send {"event": "stream.started", ...} as application/json');
  }
  const b = parseOr422(EventBodySchema, body, "body");
  if (b.payload !== undefined) {
    const size = Buffer.byteLength(JSON.stringify(b.payload));
    if (size > MAX_PAYLOAD_BYTES) {
      throw unprocessable(
        `body field 'payload' is ${size} bytes as JSON: at most ${MAX_PAYLOAD_BYTES} are accepted; send a reference instead of the data`,
      );
    }
  }
  return {
    ...tenantFor(p, b),
    id: b.id,
    kind: b.event,
    streamId: b.streamId,
    stream: b.streamId === undefined ? undefined : { id: b.streamId },
    payload: b.payload,
    createdAt: now,
  };
}
