// The funding guard as policy (pure): from a gateway's deposit and reserve, its declared minimums
// and top-up amounts, the top-ups of the last 24 hours and the shortfall already answered,
// whether to ask the node to top up now. One shortfall gets at most one top-up; beyond the daily
// cap nothing is sent and Funded says so with the numbers.
import { ethText } from "../../node/chain/index.ts";

export const DAY_MS = 86_400_000;

/**
 * Wei for ETH written as the schema allows ("1.5": digits, at most 18 decimals). Not ethers'
 * parseEther: the controller does not load ethers (it brings Node's bundled undici along).
 */
export function weiOf(eth: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,18}))?$/.exec(eth);
  if (!m) throw new RangeError(`${JSON.stringify(eth)} is not an amount of ETH such as "0.5"`);
  return BigInt(m[1]!) * 10n ** 18n + BigInt((m[2] ?? "").padEnd(18, "0"));
}

export interface FundingPlan {
  minDeposit: bigint;
  minReserve: bigint;
  topUpDeposit: bigint;
  topUpReserve: bigint;
  maxPerDay: bigint;
}

export interface DoneTopUp {
  atMs: number;
  deposit: bigint;
  reserve: bigint;
}

export interface FundingSituation {
  plan: FundingPlan;
  deposit: bigint;
  reserve: bigint;
  /** Top-ups done (any age: only the last 24 hours count). */
  topUps: readonly DoneTopUp[];
  /** The shortfall a top-up was already sent for (see shortfallKey). */
  handled?: string;
  nowMs: number;
}

export type FundingDecision =
  | { kind: "funded" }
  /** This shortfall was answered; the chain does not show the top-up yet. */
  | { kind: "handled"; shortfall: string }
  | { kind: "top-up"; shortfall: string; deposit: bigint; reserve: bigint; message: string }
  | { kind: "capped"; shortfall: string; message: string };

/** A shortfall as seen: the same deposit and reserve below a minimum are the same shortfall. */
export const shortfallKey = (deposit: bigint, reserve: bigint) =>
  `deposit ${ethText(deposit)} ETH, reserve ${ethText(reserve)} ETH`;

export function spentToday(topUps: readonly DoneTopUp[], nowMs: number): bigint {
  return topUps.filter((t) => nowMs - t.atMs < DAY_MS).reduce((sum, t) => sum + t.deposit + t.reserve, 0n);
}

export function fundingDecision(s: FundingSituation): FundingDecision {
  const { plan } = s;
  const lowDeposit = s.deposit < plan.minDeposit;
  const lowReserve = s.reserve < plan.minReserve;
  if (!lowDeposit && !lowReserve) return { kind: "funded" };
  const shortfall = shortfallKey(s.deposit, s.reserve);
  if (s.handled === shortfall) return { kind: "handled", shortfall };
  const deposit = lowDeposit ? plan.topUpDeposit : 0n;
  const reserve = lowReserve ? plan.topUpReserve : 0n;
  const below = [
    lowDeposit ? `deposit ${ethText(s.deposit)} ETH < minimum ${ethText(plan.minDeposit)}` : "",
    lowReserve ? `reserve ${ethText(s.reserve)} ETH < minimum ${ethText(plan.minReserve)}` : "",
  ]
    .filter(Boolean)
    .join(", ");
  const spent = spentToday(s.topUps, s.nowMs);
  if (spent + deposit + reserve > plan.maxPerDay) {
    return {
      kind: "capped",
      shortfall,
      message: `${below}: a top-up of ${ethText(deposit + reserve)} ETH would bring the last 24 hours to ${ethText(spent + deposit + reserve)} ETH, above funding.maxPerDay ${ethText(plan.maxPerDay)} ETH (${ethText(spent)} ETH already added): no transaction sent; raise maxPerDay or fund it by hand`,
    };
  }
  return {
    kind: "top-up",
    shortfall,
    deposit,
    reserve,
    message: `${below}: topping up deposit +${ethText(deposit)} ETH, reserve +${ethText(reserve)} ETH (${ethText(spent + deposit + reserve)} of ${ethText(plan.maxPerDay)} ETH in 24 hours)`,
  };
}
