import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ErrorObjectSchema,
  WebhookObjectSchema,
  WebhookRequestSchema,
  WebhookResponseSchema,
} from "./webhook-api.ts";
import { WEBHOOK_EVENT_KINDS } from "./webhook-events.ts";

function problems(value: unknown): string[] {
  const r = WebhookRequestSchema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

const minimal = { name: "hook", url: "https://example.com/hook" };

describe("webhook request body", () => {
  it("needs name and url", () => {
    expect(problems(minimal)).toEqual([]);
    expect(problems({ url: minimal.url })).toEqual([expect.stringMatching(/^name:/)]);
    expect(problems({ name: "hook" })).toEqual([expect.stringMatching(/^url: url must be a string/)]);
  });

  it("rejects unknown properties, listing the known ones", () => {
    expect(problems({ ...minimal, secret: "x" })).toEqual([
      expect.stringContaining('unknown properties "secret": a webhook has only id, name, kind'),
    ]);
  });

  it("takes only http(s) URLs", () => {
    expect(problems({ ...minimal, url: "http://example.com" })).toEqual([]);
    expect(problems({ ...minimal, url: "ftp://example.com" })).toEqual([
      expect.stringContaining("must start with http:// or https://"),
    ]);
    expect(problems({ ...minimal, url: "https://exa mple.com" })).toEqual([
      expect.stringContaining("not a valid URI"),
    ]);
  });

  it.each([
    ["https://Ï", "https://xn--gda/"],
    ["https://example.com/a b", "https://example.com/a%20b"],
    ["https://example.com/caf\u00e9", "https://example.com/caf%C3%A9"],
  ])("refuses the non-ASCII URI %s, naming its ASCII form %s", (url, ascii) => {
    expect(problems({ ...minimal, url })).toEqual([
      `url: url ${JSON.stringify(url)} is not an ASCII URI (RFC 3986): write it as ${JSON.stringify(ascii)} (punycode host, percent-encoded path)`,
    ]);
    expect(problems({ ...minimal, url: ascii })).toEqual([]);
  });

  it("takes every event kind of the spec and nothing else", () => {
    expect(problems({ ...minimal, events: [...WEBHOOK_EVENT_KINDS] })).toEqual([]);
    expect(problems({ ...minimal, events: [] })).toEqual([]);
    expect(problems({ ...minimal, events: ["stream.Started"] })).toEqual([
      expect.stringMatching(/^events.0: "stream.Started" is not an event kind: use one of stream.started/),
    ]);
  });

  it("takes a shared secret of 1 to 512 printable ASCII characters", () => {
    expect(problems({ ...minimal, sharedSecret: "s3cret with spaces!" })).toEqual([]);
    expect(problems({ ...minimal, sharedSecret: "x".repeat(512) })).toEqual([]);
    expect(problems({ ...minimal, sharedSecret: "" })).toEqual([
      expect.stringContaining("must not be empty"),
    ]);
    expect(problems({ ...minimal, sharedSecret: "x".repeat(513) })).toEqual([
      expect.stringContaining("at most 512"),
    ]);
    expect(problems({ ...minimal, sharedSecret: "tab\there" })).toEqual([
      expect.stringContaining("printable ASCII"),
    ]);
    expect(problems({ ...minimal, sharedSecret: "clé" })).toEqual([
      expect.stringContaining("printable ASCII"),
    ]);
  });

  it("accepts the read-only fields the SDK may echo back", () => {
    expect(
      problems({
        ...minimal,
        id: "6f1c2e3a",
        kind: "webhook",
        userId: "u",
        createdAt: 1700000000000,
        status: {
          lastTriggeredAt: 1700000000000,
          lastFailure: { timestamp: 1, error: "e", response: "r", statusCode: 500 },
        },
      }),
    ).toEqual([]);
  });
});

describe("webhook response", () => {
  it("never carries the secret", () => {
    expect(WebhookResponseSchema.safeParse({ ...minimal, sharedSecret: "s" }).success).toBe(false);
    expect(Object.keys(WebhookResponseSchema.shape)).not.toContain("sharedSecret");
  });
});

describe("OpenAPI of the webhook object", () => {
  const json = z.toJSONSchema(WebhookObjectSchema, { target: "openapi-3.0", io: "input" }) as {
    properties: Record<string, Record<string, unknown>>;
    required: string[];
  };

  it("marks read-only, write-only and deprecated fields like the spec", () => {
    expect(json.required).toEqual(["name", "url"]);
    expect(json.properties.id).toMatchObject({ readOnly: true });
    expect(json.properties.createdAt).toMatchObject({ readOnly: true });
    expect(json.properties.status).toMatchObject({ readOnly: true });
    expect(json.properties.kind).toMatchObject({ readOnly: true, deprecated: true });
    expect(json.properties.userId).toMatchObject({ readOnly: true, deprecated: true });
    expect(json.properties.sharedSecret).toMatchObject({ writeOnly: true, minLength: 1, maxLength: 512 });
  });

  it("writes the url as a uri with the spec's pattern and the events as the spec's enum", () => {
    expect(json.properties.url).toMatchObject({ type: "string", format: "uri", pattern: "^http(s)?://" });
    expect(json.properties.events).toMatchObject({ items: { enum: [...WEBHOOK_EVENT_KINDS] } });
  });
});

describe("error object", () => {
  it("has at least one message", () => {
    expect(ErrorObjectSchema.safeParse({ errors: ["not found"] }).success).toBe(true);
    expect(ErrorObjectSchema.safeParse({ errors: [] }).success).toBe(false);
  });
});
