import { describe, expect, it } from "vitest";
import { parseDeliveryEgress } from "./delivery-egress.ts";

describe("parseDeliveryEgress", () => {
  it.each([
    ["public", "public"],
    ["loopback-only", "loopback-only"],
    [" loopback-only ", "loopback-only"],
  ])("%j -> %s", (value, expected) => {
    expect(parseDeliveryEgress(value)).toBe(expected);
  });

  it.each(["", "loopback", "LOOPBACK-ONLY", "any", "private"])("%j is refused naming the values", (value) => {
    expect(() => parseDeliveryEgress(value)).toThrow(
      /^--delivery-egress .* is not an egress: use public or loopback-only/,
    );
  });
});
