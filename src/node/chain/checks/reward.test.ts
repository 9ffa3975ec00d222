import { describe, expect, it } from "vitest";
import type { NodeChainFacts, OrchestratorFacts, RoundFacts } from "../facts.ts";
import { rewardNotCalled } from "./reward.ts";

const ADDRESS = "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e";

function facts(o: Partial<OrchestratorFacts> = {}, round: Partial<RoundFacts> = {}): NodeChainFacts {
  return {
    readAt: 0,
    rpc: { ok: true, chainId: 42161, blockNumber: 1, blockTimestamp: 0, blockSeenSince: 0 },
    // Round 3500 of 5760 blocks, 1000 blocks in.
    round: {
      current: 3500n,
      initialized: true,
      startBlock: 20_160_000n,
      length: 5760n,
      blockNum: 20_161_000n,
      ...round,
    },
    orchestrator: {
      serviceURI: "https://o:8935",
      registered: true,
      active: true,
      lastRewardRound: 3499n,
      activationRound: 10n,
      deactivationRound: 2n ** 256n - 1n,
      totalStake: 1n,
      ...o,
    },
  };
}

const base = { address: ADDRESS, graceFraction: 0.05, secondsPerBlock: 12 };

describe("RewardNotCalled", () => {
  it.each([
    ["not called this round, 1000 blocks in", facts(), undefined, true],
    ["called this round", facts({ lastRewardRound: 3500n }), undefined, false],
    ["-reward=false", facts(), false, false],
    ["-reward=true", facts(), true, true],
    ["not active: it cannot call reward", facts({ active: false }), undefined, false],
    [
      "within the grace share (5% of 5760 = 288 blocks)",
      facts({}, { blockNum: 20_160_200n }),
      undefined,
      false,
    ],
    ["just past the grace share", facts({}, { blockNum: 20_160_288n }), undefined, true],
  ])("%s", (_name, f, reward, found) => {
    const finding = rewardNotCalled({ ...base, reward, facts: f });
    expect(finding !== undefined).toBe(found);
    if (finding) expect(finding).toMatchObject({ id: "RewardNotCalled", severity: "warning" });
  });

  it("says the round, the last reward and the block the round ends at (stable from check to check)", () => {
    const finding = rewardNotCalled({ ...base, facts: facts() });
    expect(finding?.message).toBe(
      `${ADDRESS} has not called reward in round 3500 (last called in round 3499); the round ends at block 20165760, after which its inflation is lost.`,
    );
    const later = facts();
    later.round!.blockNum += 100n;
    expect(rewardNotCalled({ ...base, facts: later })?.message).toBe(finding?.message);
  });

  it("a never-rewarded orchestrator and an uninitialized round say so", () => {
    const finding = rewardNotCalled({
      ...base,
      secondsPerBlock: undefined,
      facts: facts({ lastRewardRound: 0n }, { initialized: false }),
    });
    expect(finding?.message).toMatch(/never called before\); the round ends at block \d+/);
    expect(finding?.message).toMatch(/not initialized yet/);
  });
});
