import { describe, expect, it } from "vitest";
import { HttpError } from "../errors/http-error.ts";
import { parseWebhookWrite } from "./request-body.ts";

const rules = { allowLoopbackTargets: false };

function refusal(body: unknown, r: Parameters<typeof parseWebhookWrite>[1] = rules): HttpError {
  try {
    parseWebhookWrite(body, r);
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("parseWebhookWrite", () => {
  it("keeps the writable fields and drops read-only ones a client sent back", () => {
    const w = parseWebhookWrite(
      {
        id: "x",
        name: "n",
        url: "https://example.com/h",
        kind: "webhook",
        userId: "u",
        createdAt: 1,
        status: { lastTriggeredAt: 2 },
        events: ["stream.started"],
        projectId: "p",
        streamId: "s",
        sharedSecret: "shh",
      },
      rules,
    );
    expect(w).toEqual({
      content: { name: "n", url: "https://example.com/h", events: ["stream.started"], streamId: "s" },
      projectId: "p",
      sharedSecret: "shh",
    });
  });

  it("tells an empty request to send a body (400)", () => {
    expect(refusal(undefined).status).toBe(400);
  });

  it("rejects unknown properties by name (422)", () => {
    const r = refusal({ name: "n", url: "https://e.com", secret: "x" });
    expect(r.status).toBe(422);
    expect(r.messages[0]).toMatch(/'secret'/);
  });

  it.each([
    [{ url: "https://e.com" }, /'name' is required/],
    [{ name: "n" }, /'url' is required/],
    [{ name: "n", url: "ftp://e.com" }, /'url' .*must start with http/],
    [{ name: "n", url: "http://" }, /'url' .*is not a valid/],
    [
      { name: "n", url: "https://e.com", events: ["stream.started", "bogus"] },
      /'events\[1\]' must be one of/,
    ],
    [{ name: "n", url: "https://e.com", sharedSecret: "é" }, /'sharedSecret' must be printable ASCII/],
    [
      { name: "n", url: "https://e.com", sharedSecret: "x".repeat(513) },
      /'sharedSecret' must have at most 512/,
    ],
  ])("names the field in %j", (body, message) => {
    const r = refusal(body);
    expect(r.status).toBe(422);
    expect(r.messages.join("\n")).toMatch(message);
  });

  it("accepts an empty sharedSecret (it means remove / none)", () => {
    expect(parseWebhookWrite({ name: "n", url: "https://e.com", sharedSecret: "" }, rules).sharedSecret).toBe(
      "",
    );
  });

  it("on update, refuses a body id different from the path's and accepts the same one", () => {
    const r = refusal({ id: "b", name: "n", url: "https://e.com" }, { ...rules, pathId: "a" });
    expect(r.status).toBe(422);
    expect(r.messages[0]).toMatch(/differs from the id in the path/);
    expect(() =>
      parseWebhookWrite({ id: "a", name: "n", url: "https://e.com" }, { ...rules, pathId: "a" }),
    ).not.toThrow();
  });

  it("refuses loopback targets unless allowed, saying why", () => {
    const r = refusal({ name: "n", url: "http://127.0.0.1:9/h" });
    expect(r.status).toBe(422);
    expect(r.messages[0]).toMatch(/loopback/);
    expect(
      parseWebhookWrite({ name: "n", url: "http://127.0.0.1:9/h" }, { allowLoopbackTargets: true }).content
        .url,
    ).toBe("http://127.0.0.1:9/h");
  });
});
