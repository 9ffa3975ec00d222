// What the chain says about one node, judged: the condition inputs (ChainHealthy, and Registered
// for orchestrators or Funded for gateways), the findings (one per catalog id, errors first) and
// the facts a status shows. Pure: the same facts and policy give the same report, for the CLI
// and the controller alike.
import type { Finding } from "../diagnosis/types.ts";
import { type ChainCondition, ethText } from "./chain-finding.ts";
import { activeSet } from "./checks/active-set.ts";
import { DEFAULT_MIN_BALANCE_WEI, lowBalance } from "./checks/balance.ts";
import { chainHealth } from "./checks/chain-healthy.ts";
import { funding } from "./checks/funded.ts";
import { registration } from "./checks/registered.ts";
import { rewardNotCalled } from "./checks/reward.ts";
import { roundTimeLeft } from "./checks/round-time.ts";
import type { NodeChainFacts, NodeChainTarget } from "./facts.ts";
import { chainProfile } from "./networks.ts";
import type { RpcUrl } from "./rpc-url.ts";

export interface ChainPolicy {
  /** The head is stale when older than this or unchanged this long (default 120 s, about 10 L1 blocks). */
  staleAfterMs: number;
  /** LowWalletBalance below this (default 0.02 ETH). */
  minBalanceWei: bigint;
  /** RewardNotCalled only once this share of the round has passed (default 0.05). */
  rewardGraceFraction: number;
}

export const DEFAULT_CHAIN_POLICY: ChainPolicy = {
  staleAfterMs: 120_000,
  minBalanceWei: DEFAULT_MIN_BALANCE_WEI,
  rewardGraceFraction: 0.05,
};

/** The facts a resource's status shows (amounts in ETH as decimal strings). */
export interface ChainStatusFacts {
  chainId?: number;
  blockNumber?: number;
  serviceURI?: string;
  deposit?: string;
  reserve?: string;
  balance?: string;
  activeSet?: boolean;
  lastRewardRound?: number;
  currentRound?: number;
  /** RoundsManager blocks left in the current round, and the time when the block time is known. */
  roundBlocksLeft?: number;
  roundSecondsLeft?: number;
}

export interface ChainReport {
  conditions: ChainCondition[];
  /** One per catalog id, errors first. */
  findings: Finding[];
  facts: ChainStatusFacts;
}

export function evaluateNodeChain(
  target: NodeChainTarget,
  rpc: RpcUrl,
  facts: NodeChainFacts,
  policy: ChainPolicy = DEFAULT_CHAIN_POLICY,
  now: number = facts.readAt,
): ChainReport {
  const profile = chainProfile(target.network, {
    controller: target.controller,
    chainId: target.chainId,
    secondsPerRoundBlock: target.secondsPerRoundBlock,
  });
  const health = chainHealth({
    rpc,
    facts,
    expectedChainId: profile.chainId,
    staleAfterMs: policy.staleAfterMs,
    now,
  });
  const conditions: ChainCondition[] = [health.condition!];
  const findings: (Finding | undefined)[] = [...health.findings];
  if (target.role === "orchestrator") {
    const reg = registration({ address: target.address, serviceAddr: target.serviceAddr, facts });
    conditions.push(reg.condition!);
    findings.push(
      ...reg.findings,
      activeSet(target.address, facts),
      rewardNotCalled({
        address: target.address,
        reward: target.reward,
        facts,
        graceFraction: policy.rewardGraceFraction,
        secondsPerBlock: profile.secondsPerRoundBlock,
      }),
      lowBalance(target.address, facts.balanceWei, policy.minBalanceWei),
    );
  } else {
    const fund = funding({ address: target.address, facts, minBalanceWei: policy.minBalanceWei });
    conditions.push(fund.condition!);
    findings.push(...fund.findings);
  }
  return {
    conditions,
    findings: distinctBySeverity(findings),
    facts: statusFacts(target.role, facts, profile.secondsPerRoundBlock),
  };
}

/** An offchain node has no chain: every condition says so and nothing is read. */
export function offchainReport(role: NodeChainTarget["role"]): ChainReport {
  const message = "network offchain: the node uses no chain, so there is nothing to check";
  const types =
    role === "orchestrator"
      ? (["ChainHealthy", "Registered"] as const)
      : (["ChainHealthy", "Funded"] as const);
  return {
    conditions: types.map((type) => ({ type, status: "True", reason: "Offchain", message })),
    findings: [],
    facts: {},
  };
}

const RANK = { error: 0, warning: 1, normal: 2 } as const;

function distinctBySeverity(found: (Finding | undefined)[]): Finding[] {
  const byId = new Map<string, Finding>();
  for (const f of found) if (f && !byId.has(f.id)) byId.set(f.id, f);
  return [...byId.values()].sort((a, b) => RANK[a.severity] - RANK[b.severity]);
}

function statusFacts(
  role: NodeChainTarget["role"],
  facts: NodeChainFacts,
  secondsPerBlock: number | undefined,
): ChainStatusFacts {
  const out: ChainStatusFacts = {};
  if (facts.rpc.ok) {
    out.chainId = facts.rpc.chainId;
    out.blockNumber = facts.rpc.blockNumber;
  }
  if (facts.balanceWei !== undefined) out.balance = ethText(facts.balanceWei);
  if (facts.round) {
    out.currentRound = Number(facts.round.current);
    const left = roundTimeLeft(facts.round, secondsPerBlock);
    out.roundBlocksLeft = Number(left.blocks);
    if (left.seconds !== undefined) out.roundSecondsLeft = left.seconds;
  }
  if (role === "orchestrator" && facts.orchestrator) {
    out.serviceURI = facts.orchestrator.serviceURI;
    out.activeSet = facts.orchestrator.active;
    out.lastRewardRound = Number(facts.orchestrator.lastRewardRound);
  }
  if (role === "gateway" && facts.gateway) {
    out.deposit = ethText(facts.gateway.deposit);
    out.reserve = ethText(facts.gateway.reserve);
  }
  return out;
}
