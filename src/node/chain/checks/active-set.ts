// NotInActiveSet (orchestrators): only the top orchestrators by stake are active in a round, and
// only active ones get work from on-chain gateways and earn rewards. A warning: the node itself
// is fine and can still serve gateways that name it directly; what it lacks is stake. The message
// says what would get it in: the smallest stake in a full pool, or room in the pool.
import type { Finding } from "../../diagnosis/types.ts";
import { chainFinding, ethText } from "../chain-finding.ts";
import type { NodeChainFacts } from "../facts.ts";

export function activeSet(address: string, facts: NodeChainFacts): Finding | undefined {
  const o = facts.orchestrator;
  const round = facts.round?.current;
  if (!o || o.active || round === undefined) return undefined;
  const stake = `its stake is ${ethText(o.totalStake)} LPT`;
  let why: string;
  if (o.registered && o.activationRound > round) {
    why = `it is registered and becomes active in round ${o.activationRound}`;
  } else if (!o.pool) {
    why = stake;
  } else if (o.pool.lowestStake !== undefined) {
    const gap = o.pool.lowestStake - o.totalStake;
    why = `${stake}; the pool is full (${o.pool.size} of ${o.pool.maxSize}) and its smallest stake is ${ethText(o.pool.lowestStake)} LPT: ${gap >= 0n ? `more than ${ethText(gap)} LPT more` : "registering as transcoder"} gets it in from the next round`;
  } else {
    why = `${stake}; the pool has room (${o.pool.size} of ${o.pool.maxSize}): bonding to it and registering as transcoder gets it in from the next round`;
  }
  return chainFinding("NotInActiveSet", `${address} is not in the active set in round ${round}: ${why}`);
}
