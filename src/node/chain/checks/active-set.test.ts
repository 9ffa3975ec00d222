import { describe, expect, it } from "vitest";
import type { NodeChainFacts, OrchestratorFacts } from "../facts.ts";
import { activeSet } from "./active-set.ts";

const ADDRESS = "0xF47839D02Fc0a5a11573ce7618e7BE7cF6AB7a47";
const LPT = 10n ** 18n;

function facts(o: Partial<OrchestratorFacts>): NodeChainFacts {
  return {
    readAt: 0,
    rpc: { ok: true, chainId: 42161, blockNumber: 1, blockTimestamp: 0, blockSeenSince: 0 },
    round: { current: 50n, initialized: true, startBlock: 0n, length: 10n, blockNum: 3n },
    orchestrator: {
      serviceURI: "https://o:8935",
      registered: true,
      active: true,
      lastRewardRound: 50n,
      activationRound: 10n,
      deactivationRound: 2n ** 256n - 1n,
      totalStake: 1000n * LPT,
      ...o,
    },
  };
}

describe("NotInActiveSet", () => {
  it.each([
    ["active", facts({}), undefined],
    [
      "outside a full pool: the stake it takes",
      facts({
        active: false,
        totalStake: 900n * LPT,
        pool: { size: 100, maxSize: 100, lowestStake: 1200n * LPT },
      }),
      /stake is 900 LPT; the pool is full \(100 of 100\) and its smallest stake is 1200 LPT: more than 300 LPT more gets it in/,
    ],
    [
      "outside a pool with room",
      facts({ active: false, registered: false, totalStake: 0n, pool: { size: 3, maxSize: 100 } }),
      /stake is 0 LPT; the pool has room \(3 of 100\)/,
    ],
    [
      "registered, becoming active next round",
      facts({ active: false, activationRound: 51n, pool: { size: 3, maxSize: 100 } }),
      /registered and becomes active in round 51/,
    ],
  ])("%s", (_name, f, message) => {
    const finding = activeSet(ADDRESS, f);
    if (message === undefined) {
      expect(finding).toBeUndefined();
      return;
    }
    expect(finding).toMatchObject({ id: "NotInActiveSet", severity: "warning" });
    expect(finding?.message).toMatch(message);
    expect(finding?.message).toContain("round 50");
  });

  it("says nothing without orchestrator facts", () => {
    expect(
      activeSet(ADDRESS, { readAt: 0, rpc: { ok: false, kind: "refused", message: "x" } }),
    ).toBeUndefined();
  });
});
