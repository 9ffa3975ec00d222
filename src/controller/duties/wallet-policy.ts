// Whether a node's wallet can pay its next duty (pure): projected from the gas its recent duty
// transactions used (or a typical amount before any) at today's gas price, with headroom for a
// price rise, plus the ETH a top-up sends. A fixed threshold misses a gas spike; this does not.
import { ethText } from "../../node/chain/index.ts";

/** Gas of a reward call with hints, and of fundDepositAndReserve, when none was seen yet. */
export const TYPICAL_GAS = { reward: 400_000n, topUp: 120_000n } as const;
/** Headroom on the gas price: the next transaction may pay more than the one seen now. */
const HEADROOM_PERCENT = 150n;

export function walletShortfall(i: {
  balanceWei: bigint;
  gasPriceWei: bigint;
  duty: "reward" | "topUp";
  /** Gas used by recent transactions of this duty (latest last). */
  recentGas: readonly bigint[];
  /** ETH the transaction sends (a top-up's deposit + reserve). */
  valueWei?: bigint;
}): string | undefined {
  let gas = i.recentGas.length ? 0n : TYPICAL_GAS[i.duty];
  for (const used of i.recentGas) if (used > gas) gas = used;
  const needs = (gas * i.gasPriceWei * HEADROOM_PERCENT) / 100n + (i.valueWei ?? 0n);
  if (i.balanceWei >= needs) return undefined;
  const what = i.duty === "reward" ? "its next reward call" : "its next top-up";
  return `the wallet has ${ethText(i.balanceWei)} ETH and ${what} needs about ${ethText(needs)} ETH (${gas} gas at ${Number(i.gasPriceWei) / 1e9} gwei with 50 % headroom${i.valueWei ? `, plus ${ethText(i.valueWei)} ETH sent` : ""}): send ETH to the node's account`;
}

/** The wallet as read just before a duty's transaction was asked for. */
export interface BalanceBefore {
  block: number;
  balanceWei: bigint;
  gasPriceWei: bigint;
  /** ETH the transaction sent (a top-up), not gas. */
  valueWei: bigint;
}

/**
 * The gas a duty's transaction used, estimated from the balance it cost (the node does not say):
 * undefined until a later block was read, or when the drop does not look like one transaction
 * (other spending or income in between).
 */
export function gasUsedSince(
  before: BalanceBefore,
  after: { block: number; balanceWei: bigint },
): bigint | undefined {
  if (after.block <= before.block || before.gasPriceWei <= 0n) return undefined;
  const spent = before.balanceWei - after.balanceWei - before.valueWei;
  if (spent <= 0n) return undefined;
  const gas = spent / before.gasPriceWei;
  return gas >= 21_000n && gas <= 10_000_000n ? gas : undefined;
}
