import { parseEther } from "ethers";
import { describe, expect, it } from "vitest";
import { gasUsedSince, walletShortfall } from "./wallet-policy.ts";

const gwei = 1_000_000_000n;
describe("walletShortfall", () => {
  it.each<[string, Parameters<typeof walletShortfall>[0], boolean]>([
    ["plenty", { balanceWei: parseEther("1"), gasPriceWei: gwei, duty: "reward", recentGas: [] }, false],
    // 400k gas x 1 gwei x 1.5 = 0.0006 ETH
    [
      "just enough for a typical reward call",
      { balanceWei: parseEther("0.0006"), gasPriceWei: gwei, duty: "reward", recentGas: [] },
      false,
    ],
    [
      "short of a typical reward call",
      { balanceWei: parseEther("0.0005"), gasPriceWei: gwei, duty: "reward", recentGas: [] },
      true,
    ],
    [
      "a gas spike makes a fixed-threshold balance short",
      { balanceWei: parseEther("0.05"), gasPriceWei: 100n * gwei, duty: "reward", recentGas: [] },
      true,
    ],
    [
      "recent gas use is what counts",
      {
        balanceWei: parseEther("0.0006"),
        gasPriceWei: gwei,
        duty: "reward",
        recentGas: [300_000n, 800_000n],
      },
      true,
    ],
    [
      "a top-up's value counts",
      {
        balanceWei: parseEther("1"),
        gasPriceWei: gwei,
        duty: "topUp",
        recentGas: [],
        valueWei: parseEther("1"),
      },
      true,
    ],
  ])("%s", (_n, input, short) => {
    expect(walletShortfall(input) !== undefined).toBe(short);
  });
});

describe("gasUsedSince", () => {
  const before = { block: 10, balanceWei: parseEther("1"), gasPriceWei: gwei, valueWei: 0n };
  it.each<[string, Parameters<typeof gasUsedSince>[1], bigint | undefined, bigint?]>([
    [
      "a reward call's cost at 1 gwei",
      { block: 11, balanceWei: parseEther("1") - 350_000n * gwei },
      350_000n,
    ],
    ["not read at a later block yet", { block: 10, balanceWei: parseEther("0.9") }, undefined],
    ["balance went up (funded meanwhile)", { block: 12, balanceWei: parseEther("2") }, undefined],
    ["far more than one transaction", { block: 12, balanceWei: parseEther("0.5") }, undefined],
    [
      "a top-up's value is not gas",
      { block: 11, balanceWei: parseEther("0.5") - 100_000n * gwei },
      100_000n,
      parseEther("0.5"),
    ],
  ])("%s", (_n, after, gas, value = 0n) => {
    expect(gasUsedSince({ ...before, valueWei: value }, after)).toBe(gas);
  });
});
