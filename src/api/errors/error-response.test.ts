import { describe, expect, it } from "vitest";
import { errorResponse } from "./error-response.ts";
import { HttpError } from "./http-error.ts";

describe("errorResponse", () => {
  it("passes HttpErrors through with their headers", () => {
    const r = errorResponse(new HttpError(429, "slow down", { "retry-after": "3" }));
    expect(r).toEqual({
      status: 429,
      body: { errors: ["slow down"] },
      headers: { "retry-after": "3" },
      internal: false,
    });
  });

  it.each([
    ["FST_ERR_CTP_INVALID_JSON_BODY", 400, /not valid JSON/],
    ["FST_ERR_CTP_EMPTY_JSON_BODY", 400, /empty/],
    ["FST_ERR_CTP_INVALID_MEDIA_TYPE", 415, /'text\/plain'.*application\/json/],
    ["FST_ERR_CTP_BODY_TOO_LARGE", 413, /1024-byte limit/],
    ["FST_ERR_MAX_PARAM_LENGTH", 414, /too long/],
  ])("maps fastify's %s to %i with a message saying what to send", (code, status, message) => {
    const r = errorResponse(
      { code, statusCode: 400, message: "x" },
      { contentType: "text/plain", bodyLimit: 1024 },
    );
    expect(r.status).toBe(status);
    expect(r.body.errors[0]).toMatch(message);
  });

  it("turns anything unexpected into a 500 that names the request, not the internals", () => {
    const r = errorResponse(new Error("ECONNREFUSED 10.0.0.1:6443 secret-stuff"), { requestId: "req-7" });
    expect(r.status).toBe(500);
    expect(r.internal).toBe(true);
    expect(r.body.errors[0]).toMatch(/req-7/);
    expect(r.body.errors[0]).not.toMatch(/ECONNREFUSED|secret/);
  });

  it("keeps other client errors' status and message", () => {
    const r = errorResponse({ statusCode: 400, message: "Unexpected token" });
    expect(r).toMatchObject({ status: 400, body: { errors: ["Unexpected token"] }, internal: false });
  });
});
