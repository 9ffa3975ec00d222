import { describe, expect, it } from "vitest";
import { type RewardSituation, rewardDecision } from "./reward-policy.ts";

const base: RewardSituation = {
  enabled: true,
  reward: true,
  chain: { round: 10n, active: true, lastRewardRound: 9n, elapsed: 0.9, gasPriceWei: 1_000_000_000n },
  deadline: 0.8,
  nowMs: 100_000,
  retryAfterMs: 30_000,
};
const at = (over: Partial<RewardSituation>, chain: Partial<NonNullable<RewardSituation["chain"]>> = {}) => ({
  ...base,
  ...over,
  chain: { ...base.chain!, ...chain },
});

describe("rewardDecision: unread", () => {
  it("only the unread chain is unread (a known RewardCurrent stands through a restart)", () => {
    expect(rewardDecision({ ...base, chain: undefined } as RewardSituation).verdict.unread).toBe(true);
    expect(rewardDecision(at({})).verdict.unread).toBeUndefined();
    expect(rewardDecision(at({ reward: false })).verdict.unread).toBeUndefined();
  });
});

describe("rewardDecision", () => {
  it.each<[string, RewardSituation, boolean, string, string | undefined]>([
    ["past the deadline, not called: the operator calls", at({}), true, "RewardPending", "RewardPending"],
    ["before the deadline: the node's turn", at({}, { elapsed: 0.5 }), false, "AwaitingNode", undefined],
    ["called by the node this round", at({}, { lastRewardRound: 10n }), false, "RewardCalled", undefined],
    ["inactive: left alone", at({}, { active: false }), false, "NotActive", undefined],
    ["reward off: left alone", at({ reward: false }), false, "RewardOff", undefined],
    ["assurance off: reported, no call", at({ enabled: false }), false, "AssuranceOff", undefined],
    ["chain not read yet", { ...base, chain: undefined } as RewardSituation, false, "Checking", undefined],
    [
      "gas above the cap: waits",
      at({ maxGasPriceWei: 500_000_000n }),
      false,
      "RewardPending",
      "RewardPending",
    ],
    ["gas at the cap: calls", at({ maxGasPriceWei: 1_000_000_000n }), true, "RewardPending", "RewardPending"],
    [
      "asked this round, chain not showing it yet: no second call",
      at({ lastAttempt: { round: 10n, atMs: 90_000 } }),
      false,
      "RewardPending",
      "RewardPending",
    ],
    [
      "failed this round, retry not due",
      at({ lastAttempt: { round: 10n, atMs: 90_000, error: "insufficient funds" } }),
      false,
      "RewardFailed",
      "RewardFailed",
    ],
    [
      "failed this round, retry due",
      at({ lastAttempt: { round: 10n, atMs: 60_000, error: "insufficient funds" } }),
      true,
      "RewardFailed",
      "RewardFailed",
    ],
    [
      "a failure in an earlier round does not hold this one",
      at({ lastAttempt: { round: 9n, atMs: 99_000, error: "x" } }),
      true,
      "RewardPending",
      "RewardPending",
    ],
    [
      "the pending round ended uncalled: missed",
      at({ pendingRound: { round: 9n, cause: "gas above cap" } }, { elapsed: 0.1, lastRewardRound: 8n }),
      false,
      "RewardMissed",
      "RewardMissed",
    ],
    [
      "the pending round was called after all: not missed",
      at({ pendingRound: { round: 9n, cause: "x" } }, { elapsed: 0.1, lastRewardRound: 9n }),
      false,
      "AwaitingNode",
      undefined,
    ],
  ])("%s", (_name, situation, call, reason, finding) => {
    const d = rewardDecision(situation);
    expect(d.call).toBe(call);
    expect(d.verdict.reason).toBe(reason);
    expect(d.finding?.id).toBe(finding);
  });

  it("names who called: operator when its call of this round succeeded, else the node", () => {
    const called = { lastRewardRound: 10n };
    expect(rewardDecision(at({ lastAttempt: { round: 10n, atMs: 1 } }, called)).calledBy).toBe("operator");
    expect(rewardDecision(at({ lastAttempt: { round: 10n, atMs: 1, error: "e" } }, called)).calledBy).toBe(
      "node",
    );
    expect(rewardDecision(at({}, called)).calledBy).toBe("node");
  });

  it("messages name the round and the cause", () => {
    const failed = rewardDecision(at({ lastAttempt: { round: 10n, atMs: 0, error: "out of gas" } }));
    expect(failed.verdict.message).toContain("round 10");
    expect(failed.verdict.message).toContain("out of gas");
    const capped = rewardDecision(at({ maxGasPriceWei: 500_000_000n }));
    expect(capped.verdict.message).toContain("above the cap 0.5 gwei");
  });
});
