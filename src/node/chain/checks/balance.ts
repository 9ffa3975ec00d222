// The node's wallet pays gas (reward calls, ticket redemption, deposits). Below the threshold
// (the spec recommends keeping 0.02 to 0.05 ETH at least) it is a warning: the node still
// serves, but its next transaction may fail with "insufficient funds".
import type { Finding } from "../../diagnosis/types.ts";
import { chainFinding, ethText } from "../chain-finding.ts";

export const DEFAULT_MIN_BALANCE_WEI = 2n * 10n ** 16n;

export function lowBalance(
  address: string,
  balanceWei: bigint | undefined,
  minWei: bigint,
): Finding | undefined {
  if (balanceWei === undefined || balanceWei >= minWei) return undefined;
  return chainFinding(
    "LowWalletBalance",
    `${address} holds ${ethText(balanceWei)} ETH, below ${ethText(minWei)} ETH: send it ETH for gas before a reward call or ticket redemption fails`,
  );
}
