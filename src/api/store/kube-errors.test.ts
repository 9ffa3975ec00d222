import { describe, expect, it } from "vitest";
import { KubeApiError } from "../../kube/api-error.ts";
import { HttpError } from "../errors/http-error.ts";
import { translateKubeError } from "./kube-errors.ts";

const withCode = (code: string) => Object.assign(new Error(`stream failed (${code})`), { code });
const statusOf = (err: unknown) => {
  const t = translateKubeError(err);
  return t instanceof HttpError ? t.status : "unchanged";
};

describe("Kubernetes API failures as the API's clients see them", () => {
  it.each<[string, unknown, number | "unchanged"]>([
    ["the cluster refusing the object", new KubeApiError(422, "Invalid", "refused", "PUT", "/x"), 422],
    ["the API server overloaded", new KubeApiError(429, "TooManyRequests", "refused", "PUT", "/x"), 503],
    ["the API server failing", new KubeApiError(500, "InternalError", "refused", "PUT", "/x"), 503],
    ["an HTTP/2 stream reset under load", withCode("ERR_HTTP2_STREAM_ERROR"), 503],
    ["an HTTP/2 session gone", withCode("ERR_HTTP2_GOAWAY_SESSION"), 503],
    ["a connection reset", withCode("ECONNRESET"), 503],
    ["a timeout", Object.assign(new Error("timed out"), { name: "TimeoutError" }), 503],
    [
      "RBAC (ours to fix: logged as a 500)",
      new KubeApiError(403, "Forbidden", "refused", "PUT", "/x"),
      "unchanged",
    ],
    ["a bug (logged as a 500)", new Error("undefined is not a function"), "unchanged"],
  ])("%s", (_n, err, want) => expect(statusOf(err)).toBe(want));
});

describe("the API server pushing back", () => {
  it.each<[string, unknown]>([
    [
      "429 please try again later",
      new KubeApiError(429, "TooManyRequests", "please try again later", "POST", "/x"),
    ],
    ["503 unavailable", new KubeApiError(503, "ServiceUnavailable", "unavailable", "POST", "/x")],
    ["504 timeout", new KubeApiError(504, "Timeout", "no response in time", "POST", "/x")],
    ["a reset HTTP/2 stream", withCode("ERR_HTTP2_STREAM_ERROR")],
    ["an answer's body cut off (Premature close)", withCode("ERR_STREAM_PREMATURE_CLOSE")],
  ])("%s: a retryable 503 with Retry-After and an {errors} message saying to retry", (_n, err) => {
    const t = translateKubeError(err);
    expect(t).toBeInstanceOf(HttpError);
    const h = t as HttpError;
    expect(h.status).toBe(503);
    expect(Number(h.headers["retry-after"])).toBeGreaterThan(0);
    expect(h.messages[0]).toMatch(/retry/);
  });
});
