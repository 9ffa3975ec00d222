// Reward assurance as policy (pure): from what the chain says of the round and the orchestrator,
// what the operator did so far this round, and the spec, whether to ask the node to call reward
// now, and what RewardCurrent and the findings say. The node calls reward itself at the round's
// start; the operator steps in only past the deadline, and never while gas is above the cap.
import type { Verdict } from "../runtime/index.ts";

export interface RewardAttempt {
  round: bigint;
  atMs: number;
  /** The node's answer when it failed; absent: it succeeded. */
  error?: string;
}

export interface RewardSituation {
  /** Assurance on (spec.rewardAssurance.enabled, default: reward on). */
  enabled: boolean;
  /** spec.reward (false: the node does not call reward, and neither does the operator). */
  reward: boolean;
  /** Undefined until the chain was read. */
  chain?: {
    round: bigint;
    active: boolean;
    lastRewardRound: bigint;
    /** Share of the round gone by, 0..1. */
    elapsed: number;
    gasPriceWei?: bigint;
  };
  deadline: number;
  maxGasPriceWei?: bigint;
  /** The operator's last attempt (any round). */
  lastAttempt?: RewardAttempt;
  /** A round seen past the deadline without reward, and why (for RewardMissed once it is over). */
  pendingRound?: { round: bigint; cause: string };
  nowMs: number;
  /** Between two tries in one round after a failure. */
  retryAfterMs: number;
}

export type RewardFinding = { id: "RewardPending" | "RewardFailed" | "RewardMissed"; message: string };

export interface RewardDecision {
  /** Ask the node to call reward now. */
  call: boolean;
  verdict: Verdict;
  finding?: RewardFinding;
  /** Who called reward in the current round, when it was called. */
  calledBy?: "node" | "operator";
  /** The round to remember as pending (past the deadline, not called), for RewardMissed later. */
  pending?: { round: bigint; cause: string };
}

const pct = (share: number) => `${Math.round(share * 100)} %`;
const gwei = (wei: bigint) => `${Number(wei) / 1e9} gwei`;

export function rewardDecision(s: RewardSituation): RewardDecision {
  const leave = (reason: string, message: string): RewardDecision => ({
    call: false,
    verdict: { status: "Unknown", reason, message },
  });
  if (!s.reward)
    return leave(
      "RewardOff",
      "spec.reward is false: the node does not call reward and the operator leaves it alone",
    );
  const c = s.chain;
  if (!c)
    return {
      call: false,
      verdict: {
        status: "Unknown",
        reason: "Checking",
        message: "the chain has not been read yet",
        unread: true,
      },
    };
  if (c.lastRewardRound >= c.round) {
    const byOperator = s.lastAttempt?.round === c.round && s.lastAttempt.error === undefined;
    const calledBy = byOperator ? "operator" : "node";
    return {
      call: false,
      calledBy,
      verdict: {
        status: "True",
        reason: "RewardCalled",
        message: `reward called in round ${c.round} by the ${calledBy === "operator" ? "operator (through the node's CLI port)" : "node"}`,
      },
    };
  }
  if (!c.active) {
    return leave(
      "NotActive",
      `not in the active set in round ${c.round}: only active orchestrators can call reward, so the operator leaves it alone`,
    );
  }
  const missed =
    s.pendingRound && s.pendingRound.round < c.round && c.lastRewardRound < s.pendingRound.round
      ? s.pendingRound
      : undefined;
  if (!s.enabled) {
    return leave(
      "AssuranceOff",
      `reward not called yet in round ${c.round}; spec.rewardAssurance.enabled is false, so the operator does not step in`,
    );
  }
  if (c.elapsed < s.deadline) {
    if (missed) {
      const message = `round ${missed.round} ended without a reward call (${missed.cause}); in round ${c.round} the operator steps in at ${pct(s.deadline)} of the round`;
      return {
        call: false,
        verdict: { status: "False", reason: "RewardMissed", message },
        finding: { id: "RewardMissed", message },
      };
    }
    return leave(
      "AwaitingNode",
      `reward not called yet in round ${c.round}: the node calls it; the operator steps in at ${pct(s.deadline)} of the round`,
    );
  }
  const a = s.lastAttempt?.round === c.round ? s.lastAttempt : undefined;
  if (s.maxGasPriceWei !== undefined && c.gasPriceWei !== undefined && c.gasPriceWei > s.maxGasPriceWei) {
    const cause = `gas price ${gwei(c.gasPriceWei)} is above the cap ${gwei(s.maxGasPriceWei)}`;
    const message = `reward not called in round ${c.round} by the deadline (${pct(s.deadline)} of the round): ${cause}; the operator waits for a cheaper moment in the round`;
    return {
      call: false,
      verdict: { status: "False", reason: "RewardPending", message },
      finding: { id: "RewardPending", message },
      pending: { round: c.round, cause },
    };
  }
  if (a?.error !== undefined) {
    const due = s.nowMs - a.atMs >= s.retryAfterMs;
    const message = `the operator's reward call in round ${c.round} failed: ${a.error}; it tries again every ${Math.round(s.retryAfterMs / 1000)} s while the round lasts`;
    return {
      call: due,
      verdict: { status: "False", reason: "RewardFailed", message },
      finding: { id: "RewardFailed", message },
      pending: { round: c.round, cause: `the call failed: ${a.error}` },
    };
  }
  const message = a
    ? `reward asked of the node in round ${c.round}; waiting for the chain to show it`
    : `reward not called in round ${c.round} by the deadline (${pct(s.deadline)} of the round): the operator asks the node to call it`;
  return {
    call: !a,
    verdict: { status: "False", reason: "RewardPending", message },
    finding: { id: "RewardPending", message },
    pending: { round: c.round, cause: "not called by the deadline" },
  };
}
