import { parseEther } from "ethers";
import { describe, expect, it } from "vitest";
import { DAY_MS, type FundingSituation, fundingDecision, shortfallKey, weiOf } from "./funding-policy.ts";

const eth = (s: string) => parseEther(s);
const plan = {
  minDeposit: eth("1"),
  minReserve: eth("0.5"),
  topUpDeposit: eth("2"),
  topUpReserve: eth("1"),
  maxPerDay: eth("4"),
};
const now = 10 * DAY_MS;
const s = (over: Partial<FundingSituation>): FundingSituation => ({
  plan,
  deposit: eth("5"),
  reserve: eth("5"),
  topUps: [],
  nowMs: now,
  ...over,
});

describe("fundingDecision", () => {
  it.each<[string, FundingSituation, string, bigint?, bigint?]>([
    ["above both minimums", s({}), "funded"],
    ["at the minimums exactly", s({ deposit: eth("1"), reserve: eth("0.5") }), "funded"],
    ["deposit low: deposit topped up only", s({ deposit: eth("0.2") }), "top-up", eth("2"), 0n],
    ["reserve low: reserve topped up only", s({ reserve: 0n }), "top-up", 0n, eth("1")],
    ["both low: both", s({ deposit: 0n, reserve: 0n }), "top-up", eth("2"), eth("1")],
    [
      "the same shortfall again: handled, never twice",
      s({ deposit: 0n, reserve: 0n, handled: shortfallKey(0n, 0n) }),
      "handled",
    ],
    [
      "a new shortfall within the cap",
      s({
        deposit: 0n,
        reserve: 0n,
        handled: shortfallKey(eth("0.1"), 0n),
        topUps: [{ atMs: now - 1000, deposit: eth("1"), reserve: 0n }],
      }),
      "top-up",
      eth("2"),
      eth("1"),
    ],
    [
      "beyond the cap: capped, no transaction",
      s({ deposit: 0n, reserve: 0n, topUps: [{ atMs: now - 1000, deposit: eth("2"), reserve: eth("1") }] }),
      "capped",
    ],
    [
      "top-ups older than 24 hours do not count",
      s({ deposit: 0n, reserve: 0n, topUps: [{ atMs: now - DAY_MS, deposit: eth("2"), reserve: eth("1") }] }),
      "top-up",
      eth("2"),
      eth("1"),
    ],
  ])("%s", (_name, situation, kind, deposit, reserve) => {
    const d = fundingDecision(situation);
    expect(d.kind).toBe(kind);
    if (d.kind === "top-up") expect([d.deposit, d.reserve]).toEqual([deposit, reserve]);
  });

  it("capped says the numbers: what is needed, what was added, the cap", () => {
    const d = fundingDecision(
      s({ deposit: 0n, reserve: 0n, topUps: [{ atMs: now - 1000, deposit: eth("2"), reserve: eth("1") }] }),
    );
    expect(d.kind === "capped" && d.message).toBe(
      "deposit 0 ETH < minimum 1, reserve 0 ETH < minimum 0.5: a top-up of 3 ETH would bring the last 24 hours to 6 ETH, above funding.maxPerDay 4 ETH (3 ETH already added): no transaction sent; raise maxPerDay or fund it by hand",
    );
  });
});

describe("weiOf", () => {
  it.each(["0", "1", "1.5", "0.000000000000000001", "123456.123456789012345678"])(
    "%s as ethers parses it",
    (eth) => {
      expect(weiOf(eth)).toBe(parseEther(eth));
    },
  );
  it("refuses what is not an amount", () => {
    expect(() => weiOf("1e18")).toThrow(/not an amount of ETH/);
  });
});
