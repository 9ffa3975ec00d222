import { describe, expect, it } from "vitest";
import { add, ceilInt, compare, decimalString, mul, parseRational, rational } from "./rational.ts";

describe("wei rationals", () => {
  it.each([
    ["1200", "1200"],
    ["0.5", "0.5"],
    ["500/1", "500"],
    ["-3/2", "-1.5"],
    ["1/3", "0.333333333333333333"],
    ["0.025", "0.025"],
  ])("parses %s and writes it back as %s", (text, shown) => {
    expect(decimalString(parseRational(text)!)).toBe(shown);
  });

  it.each(["", "1e3", "abc", "1/0", "1.", "0x10"])("refuses %j", (text) => {
    expect(parseRational(text)).toBeUndefined();
  });

  it("adds, multiplies, compares and rounds up exactly", () => {
    const third = rational(1n, 3n);
    expect(compare(add(third, third), rational(2n, 3n))).toBe(0);
    expect(compare(mul(third, rational(3n)), rational(1n))).toBe(0);
    expect(ceilInt(rational(7n, 2n))).toBe(4n);
    expect(ceilInt(rational(-7n, 2n))).toBe(-3n);
    expect(ceilInt(rational(8n, 2n))).toBe(4n);
    // Beyond 2^53: no float rounding.
    expect(ceilInt(add(parseRational("9007199254740993")!, rational(1n, 10n)))).toBe(9007199254740994n);
  });
});
