import { describe, expect, it } from "vitest";
import type { Principal } from "../auth/claims.ts";
import { HttpError } from "../errors/http-error.ts";
import { MAX_PAYLOAD_BYTES, parseEventBody, tenantFor } from "./event-body.ts";

const producer: Principal = {
  userId: "alice",
  projectId: "p1",
  admin: false,
  scopes: new Set(["events:write"]),
};
const admin: Principal = {
  userId: "ops",
  projectId: "default",
  admin: true,
  scopes: new Set(["admin", "events:write"]),
};

function failure(fn: () => unknown): { status: number; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, message: err.messages.join("; ") };
    throw err;
  }
  throw new Error("expected an HttpError");
}

describe("tenantFor", () => {
  it.each([
    [producer, {}, { userId: "alice", projectId: "p1" }],
    [producer, { userId: "alice", projectId: "p1" }, { userId: "alice", projectId: "p1" }],
    [admin, {}, { userId: "ops", projectId: "default" }],
    [admin, { userId: "bob" }, { userId: "bob", projectId: "default" }],
    [admin, { userId: "bob", projectId: "p9" }, { userId: "bob", projectId: "p9" }],
    [admin, { projectId: "p9" }, { userId: "ops", projectId: "p9" }],
  ])("%o with %o publishes for %o", (p, body, expected) => {
    expect(tenantFor(p, body)).toEqual(expected);
  });

  it.each([[{ userId: "bob" }], [{ projectId: "p2" }], [{ userId: "alice", projectId: "p2" }]])(
    "a producer naming another tenant (%o) is refused with 403",
    (body) => {
      const f = failure(() => tenantFor(producer, body));
      expect(f.status).toBe(403);
      expect(f.message).toMatch(/only admins may publish for another tenant/);
    },
  );
});

describe("parseEventBody", () => {
  it("turns a valid body into the event to enqueue", () => {
    expect(
      parseEventBody(producer, { event: "stream.started", streamId: "s1", id: "e1", payload: { a: 1 } }, 42),
    ).toEqual({
      userId: "alice",
      projectId: "p1",
      id: "e1",
      kind: "stream.started",
      streamId: "s1",
      stream: { id: "s1" },
      payload: { a: 1 },
      createdAt: 42,
    });
  });

  it.each([
    [undefined, 400, /request body is required/],
    [{}, 422, /body field 'event' must be one of stream.started, /],
    [{ event: "stream.exploded" }, 422, /body field 'event' must be one of stream.started, /],
    [{ event: "stream.idle", payload: [1] }, 422, /'payload'/],
    [{ event: "stream.idle", streamId: 7 }, 422, /'streamId' must be a string/],
    [{ event: "stream.idle", id: "" }, 422, /'id' must have at least 1/],
    [
      { event: "stream.idle", id: "a\nb" },
      422,
      /body field .id. must be 1-256 characters without control characters/,
    ],
    [{ event: "stream.idle", extra: true }, 422, /unknown property 'extra'/],
    [
      { event: "stream.idle", payload: { big: "x".repeat(MAX_PAYLOAD_BYTES) } },
      422,
      /'payload' is \d+ bytes/,
    ],
  ])("%o -> %i naming the field", (body, status, message) => {
    const f = failure(() => parseEventBody(producer, body, 0));
    expect(f.status).toBe(status);
    expect(f.message).toMatch(message);
  });
});
