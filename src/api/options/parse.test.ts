import { describe, expect, it } from "vitest";
import { parseByteSize, parseDurationSeconds, parseListen, parseNonNegativeInt } from "./parse.ts";

describe("parseListen", () => {
  it.each([
    ["127.0.0.1:3000", { host: "127.0.0.1", port: 3000 }],
    ["0.0.0.0:0", { host: "0.0.0.0", port: 0 }],
    [":8080", { host: "0.0.0.0", port: 8080 }],
    ["[::1]:3000", { host: "::1", port: 3000 }],
    ["localhost:80", { host: "localhost", port: 80 }],
  ])("reads %s", (v, expected) => {
    expect(parseListen(v)).toEqual(expected);
  });
  it.each(["3000", "host", "h:99999", "::1:3000"])("refuses %s with an example", (v) => {
    expect(() => parseListen(v)).toThrow(/127\.0\.0\.1:3000/);
  });
});

describe("parseDurationSeconds", () => {
  it("reads plain seconds and units", () => {
    expect(parseDurationSeconds("3600", "--ttl")).toBe(3600);
    expect(parseDurationSeconds("30m", "--ttl")).toBe(1800);
    expect(parseDurationSeconds("7d", "--ttl")).toBe(604_800);
  });
  it.each(["0", "-1", "1w", "", "h"])("refuses %j", (v) => {
    expect(() => parseDurationSeconds(v, "--ttl")).toThrow(/--ttl/);
  });
});

describe("parseByteSize", () => {
  it("reads bytes, k and m", () => {
    expect(parseByteSize("65536", "--body-limit")).toBe(65536);
    expect(parseByteSize("64k", "--body-limit")).toBe(65536);
    expect(parseByteSize("1MiB", "--body-limit")).toBe(1048576);
  });
  it.each(["0", "1g", "x"])("refuses %j", (v) => {
    expect(() => parseByteSize(v, "--body-limit")).toThrow(/--body-limit/);
  });
});

describe("parseNonNegativeInt", () => {
  it("reads whole numbers and refuses the rest", () => {
    expect(parseNonNegativeInt("0", "--rate-limit")).toBe(0);
    expect(() => parseNonNegativeInt("1.5", "--rate-limit")).toThrow(/whole number/);
  });
});
