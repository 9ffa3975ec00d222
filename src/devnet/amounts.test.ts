import { parseEther } from "ethers";
import { describe, expect, it } from "vitest";
import { negativeAmountOption, parseEthAmount } from "./amounts.ts";

describe("parseEthAmount", () => {
  it("reads plain decimal ETH amounts as wei", () => {
    expect(parseEthAmount("0.5", "--deposit")).toBe(parseEther("0.5"));
    expect(parseEthAmount("10", "--deposit")).toBe(10n * 10n ** 18n);
    expect(parseEthAmount("0", "--reserve")).toBe(0n);
    expect(parseEthAmount("1.000000000000000001", "--deposit")).toBe(10n ** 18n + 1n);
  });

  it.each([
    ["-1", /negative/],
    ["1,5", /write 1\.5/],
    ["1e18", /exponent/],
    ["0x10", /hexadecimal/],
    ["1 ETH", /without a unit/],
    ["abc", /not a number/],
    ["", /empty/],
    [".5", /like 0\.5/],
    ["1.", /like 0\.5/],
    ["1.2.3", /like 0\.5/],
    ["0.0000000000000000001", /19 decimals/],
  ])("refuses '%s' and says why", (input, why) => {
    expect(() => parseEthAmount(input, "--deposit")).toThrow(why);
  });

  it("names the option in its errors", () => {
    expect(() => parseEthAmount("x", "--reserve")).toThrow(/^--reserve: 'x'/);
  });
});

describe("negativeAmountOption", () => {
  it("spots a negative value the argument parser would call ambiguous", () => {
    expect(
      negativeAmountOption(["--deposit", "-1", "--reserve", "1"], ["--deposit", "--reserve"])?.message,
    ).toMatch(/--deposit: '-1' is negative/);
    expect(negativeAmountOption(["--deposit", "1", "--yes"], ["--deposit"])).toBeUndefined();
  });
});
