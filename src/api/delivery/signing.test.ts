import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import type { StoredEvent } from "./model.ts";
import { signedRequest } from "./signing.ts";

const event: StoredEvent = {
  id: "evt-1",
  userId: "u1",
  projectId: "p1",
  kind: "stream.started",
  streamId: "s1",
  stream: { id: "s1", name: "my stream" },
  payload: { note: "héllo" },
  createdAt: 1_700_000_000_000,
};
const attemptAt = 1_700_000_123_456;
const secret = "s3cret with space ~!";

/** A receiver's check of Livepeer-Signature, written from the hosted service's description. */
function livepeerSignatureValid(header: string, body: string, key: string): boolean {
  const parts = Object.fromEntries(header.split(",").map((kv) => kv.split("=") as [string, string]));
  const expected = createHmac("sha256", key).update(body, "utf8").digest();
  const given = Buffer.from(parts.v1 ?? "", "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe("signedRequest", () => {
  const { body, headers } = signedRequest(event, "wh-1", secret, attemptAt, "test-agent/1");

  it("sends the hosted service's body: event id, webhook id, event time, attempt time, kind, stream, payload", () => {
    expect(JSON.parse(body)).toEqual({
      id: "evt-1",
      webhookId: "wh-1",
      createdAt: event.createdAt,
      timestamp: attemptAt,
      event: "stream.started",
      stream: { id: "s1", name: "my stream" },
      payload: { note: "héllo" },
    });
    expect(Object.keys(JSON.parse(body))).toEqual([
      "id",
      "webhookId",
      "createdAt",
      "timestamp",
      "event",
      "stream",
      "payload",
    ]);
  });

  it("signs the raw body in Livepeer-Signature with t=<attempt ms>", () => {
    const header = headers["livepeer-signature"]!;
    expect(header).toMatch(new RegExp(`^t=${attemptAt},v1=[0-9a-f]{64}$`));
    expect(livepeerSignatureValid(header, body, secret)).toBe(true);
    expect(livepeerSignatureValid(header, body, "other secret")).toBe(false);
    expect(livepeerSignatureValid(header, body.replace("my stream", "my strean"), secret)).toBe(false);
  });

  it("passes the standardwebhooks library's verification with the raw-secret option (string and bytes)", () => {
    // The library checks the timestamp against its clock (5 min tolerance).
    vi.useFakeTimers({ toFake: ["Date"], now: attemptAt + 1_000 });
    try {
      for (const key of [secret, new Uint8Array(Buffer.from(secret, "utf8"))]) {
        const verified = new Webhook(key, { format: "raw" }).verify(body, headers);
        expect(verified).toEqual(JSON.parse(body));
      }
      expect(() => new Webhook("wrong", { format: "raw" }).verify(body, headers)).toThrow(/signature/i);
    } finally {
      vi.useRealTimers();
    }
    expect(headers["webhook-id"]).toBe("evt-1");
    expect(headers["webhook-timestamp"]).toBe(String(Math.floor(attemptAt / 1000)));
  });

  it("names itself and the content type", () => {
    expect(headers["user-agent"]).toBe("test-agent/1");
    expect(headers["content-type"]).toBe("application/json");
  });

  it("sends no signature headers without a secret, but keeps the idempotency id", () => {
    const unsigned = signedRequest(event, "wh-1", undefined, attemptAt).headers;
    expect(unsigned["livepeer-signature"]).toBeUndefined();
    expect(unsigned["webhook-signature"]).toBeUndefined();
    expect(unsigned["webhook-id"]).toBe("evt-1");
  });

  it("keeps the event id across attempts and re-signs each attempt's timestamp", () => {
    const later = signedRequest(event, "wh-1", secret, attemptAt + 5_000);
    expect(JSON.parse(later.body).id).toBe("evt-1");
    expect(later.headers["livepeer-signature"]).not.toBe(headers["livepeer-signature"]);
    expect(later.headers["webhook-id"]).toBe(headers["webhook-id"]);
  });

  it("sends a stream object built from the stream id when the producer gave only the id", () => {
    const bare = signedRequest(
      { ...event, stream: undefined, payload: undefined },
      "wh-1",
      secret,
      attemptAt,
    );
    expect(JSON.parse(bare.body)).toMatchObject({ stream: { id: "s1" } });
    expect(JSON.parse(bare.body)).not.toHaveProperty("payload");
  });
});
