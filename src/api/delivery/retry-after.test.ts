import { describe, expect, it } from "vitest";
import { retryAfterMs } from "./retry-after.ts";

const now = Date.parse("2026-01-01T00:00:00Z");

describe("retryAfterMs", () => {
  it.each<[string | undefined, number | undefined]>([
    [undefined, undefined],
    ["120", 120_000],
    [" 0 ", 0],
    ["Thu, 01 Jan 2026 00:01:30 GMT", 90_000],
    ["Thursday, 01-Jan-26 00:00:10 GMT", 10_000],
    ["Wed, 31 Dec 2025 23:00:00 GMT", 0],
    ["-5", undefined],
    ["1.5", undefined],
    ["soon", undefined],
    ["", undefined],
  ])("%j -> %j ms", (header, expected) => {
    expect(retryAfterMs(header, now)).toBe(expected);
  });
});
