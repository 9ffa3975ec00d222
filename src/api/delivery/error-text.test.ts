import { describe, expect, it } from "vitest";
import { networkErrorText, timeoutText } from "./error-text.ts";

function errno(message: string, code?: string): Error {
  return Object.assign(new Error(message), code ? { code } : {});
}

describe("timeoutText", () => {
  it.each<[number, string]>([
    [10_000, "timeout after 10 s"],
    [250, "timeout after 0.25 s"],
    [1_500, "timeout after 1.5 s"],
  ])("%d ms -> %s", (ms, text) => {
    expect(timeoutText(ms)).toBe(text);
  });
});

describe("networkErrorText", () => {
  it.each<[string, unknown, string]>([
    [
      "a plain connect error",
      errno("connect ECONNREFUSED 127.0.0.1:9", "ECONNREFUSED"),
      "connect ECONNREFUSED 127.0.0.1:9",
    ],
    [
      "happy eyeballs' AggregateError with an empty message",
      new AggregateError(
        [
          errno("connect ECONNREFUSED ::1:9", "ECONNREFUSED"),
          errno("connect ECONNREFUSED 127.0.0.1:9", "ECONNREFUSED"),
        ],
        "",
      ),
      "connect ECONNREFUSED ::1:9; connect ECONNREFUSED 127.0.0.1:9",
    ],
    ["an empty message with a code", errno("", "ECONNRESET"), "ECONNRESET"],
    ["an empty message, no code", new TypeError(""), "TypeError"],
    ["nothing at all", errno(""), "network error (no detail given)"],
    ["a string", "boom", "boom"],
    ["undefined", undefined, "network error (no detail given)"],
  ])("%s", (_, err, text) => {
    expect(networkErrorText(err)).toBe(text);
  });
});
