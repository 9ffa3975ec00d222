// RewardNotCalled (orchestrators): an active orchestrator with -reward on (or left to the node's
// default, which calls reward once registered) should call reward every round; go-livepeer does
// it as soon as it sees the round start. Past a grace share of the round without it, the round's
// inflation is at risk: a warning (money, not service) naming the block the round ends at.
import type { Finding } from "../../diagnosis/types.ts";
import { chainFinding } from "../chain-finding.ts";
import type { NodeChainFacts } from "../facts.ts";

export interface RewardInput {
  address: string;
  /** -reward; undefined: the node's default. */
  reward?: boolean;
  facts: NodeChainFacts;
  /** Share of the round (0..1) the node gets to call reward before this is said. */
  graceFraction: number;
  secondsPerBlock?: number;
}

export function rewardNotCalled(input: RewardInput): Finding | undefined {
  const { facts } = input;
  const o = facts.orchestrator;
  const round = facts.round;
  if (input.reward === false || !o || !round || !o.active || o.lastRewardRound >= round.current)
    return undefined;
  const into = round.blockNum > round.startBlock ? round.blockNum - round.startBlock : 0n;
  const grace = BigInt(Math.ceil(Number(round.length) * Math.min(1, Math.max(0, input.graceFraction))));
  if (into < grace) return undefined;
  const last = o.lastRewardRound === 0n ? "never called before" : `last called in round ${o.lastRewardRound}`;
  // The round's end block, not the time left: a status message must not change on every check
  // (each change is a status write); `doctor` prints the time left beside the facts.
  const end = round.startBlock + round.length;
  const uninitialized = round.initialized
    ? ""
    : " The round is not initialized yet, so nobody can call reward until someone does (a node with -initializeRound).";
  return chainFinding(
    "RewardNotCalled",
    `${input.address} has not called reward in round ${round.current} (${last}); the round ends at block ${end}, after which its inflation is lost.${uninitialized}`,
  );
}
