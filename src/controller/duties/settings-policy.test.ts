import { describe, expect, it } from "vitest";
import { settingsDecision, settingsDrift, toMillionths } from "./settings-policy.ts";

describe("settingsDrift", () => {
  it.each<
    [string, { rewardCut: bigint; feeShare: bigint }, { rewardCut?: number; feeShare?: number }, string[]]
  >([
    ["equal", { rewardCut: 100000n, feeShare: 500000n }, { rewardCut: 10, feeShare: 50 }, []],
    [
      "reward cut differs",
      { rewardCut: 250000n, feeShare: 500000n },
      { rewardCut: 10, feeShare: 50 },
      ["rewardCut"],
    ],
    [
      "both differ",
      { rewardCut: 0n, feeShare: 0n },
      { rewardCut: 10, feeShare: 50 },
      ["rewardCut", "feeShare"],
    ],
    ["undeclared fields are not compared", { rewardCut: 0n, feeShare: 0n }, {}, []],
    ["fractions of a percent", { rewardCut: 105000n, feeShare: 0n }, { rewardCut: 10.5 }, []],
  ])("%s", (_n, chain, spec, fields) => {
    expect(settingsDrift(chain, spec).map((d) => d.field)).toEqual(fields);
  });

  it("converts percent as the node's FromPerc does", () => {
    expect(toMillionths(25)).toBe(250000n);
    expect(toMillionths(0.0001)).toBe(1n);
  });
});

describe("settingsDecision", () => {
  const chain = { rewardCut: 250000n, feeShare: 500000n };
  it.each<[string, Parameters<typeof settingsDecision>[0], string]>([
    ["match", { chain, spec: { rewardCut: 25, manage: true }, round: 5n, awaitsReward: false }, "match"],
    [
      "drift, not managed: a finding only",
      { chain, spec: { rewardCut: 10, manage: false }, round: 5n, awaitsReward: false },
      "drift",
    ],
    [
      "drift, managed: set",
      { chain, spec: { rewardCut: 10, manage: true }, round: 5n, awaitsReward: false },
      "set",
    ],
    [
      "drift, managed, already set this round: not again",
      { chain, spec: { rewardCut: 10, manage: true }, round: 5n, lastSetRound: 5n, awaitsReward: false },
      "drift",
    ],
    [
      "drift, managed, reward not yet called this round: waits",
      { chain, spec: { rewardCut: 10, manage: true }, round: 5n, awaitsReward: true },
      "drift",
    ],
    [
      "drift, managed, set last round: again",
      { chain, spec: { rewardCut: 10, manage: true }, round: 6n, lastSetRound: 5n, awaitsReward: false },
      "set",
    ],
  ])("%s", (_n, input, kind) => {
    expect(settingsDecision(input).kind).toBe(kind);
  });

  it("keeps the chain's value for a field the spec does not declare (the node needs both)", () => {
    const d = settingsDecision({
      chain,
      spec: { rewardCut: 10, manage: true },
      round: 5n,
      awaitsReward: false,
    });
    expect(d.kind === "set" && [d.rewardCut, d.feeShare]).toEqual([10, 50]);
  });

  it("names each field with the chain's and the spec's value", () => {
    const d = settingsDecision({
      chain,
      spec: { rewardCut: 10, feeShare: 50, manage: false },
      round: 5n,
      awaitsReward: false,
    });
    expect(d.kind === "drift" && d.message).toContain("rewardCut on chain 25 %, spec 10 %");
  });
});
