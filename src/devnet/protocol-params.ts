// Protocol parameters for a devnet: upstream's values for its private dev network (geth dev),
// where rounds are short so that round-based behaviour can be seen within minutes.
import { parseEther } from "ethers";

export interface ProtocolParams {
  /** Blocks per round (RoundsManager.setRoundLength). */
  roundLength: number;
  /** Share of a round, in parts per million, during which transcoder params are locked. */
  roundLockAmount: number;
  /** Rounds before unbonded stake can be withdrawn. */
  unbondingPeriod: number;
  /** Size of the active set (the top N orchestrators by stake). */
  numActiveTranscoders: number;
  /** Rounds a sender waits after unlock() before withdrawing deposit and reserve. */
  unlockPeriod: number;
  /** Rounds a winning ticket stays redeemable. */
  ticketValidityPeriod: number;
  /** Minter: per-round inflation, its change and the target bonding rate, in parts per million. */
  inflation: number;
  inflationChange: number;
  targetBondingRate: number;
  /** LPT the faucet hands out per request, and the wait between requests (seconds). */
  faucetRequestAmount: bigint;
  faucetRequestWait: number;
  /** LPT minted to the faucet and to the deployer at genesis. */
  faucetSupply: bigint;
  deployerSupply: bigint;
}

export const DEVNET_PROTOCOL_PARAMS: ProtocolParams = {
  roundLength: 50,
  roundLockAmount: 100_000,
  unbondingPeriod: 7,
  numActiveTranscoders: 50,
  unlockPeriod: 50,
  ticketValidityPeriod: 2,
  inflation: 137,
  inflationChange: 3,
  targetBondingRate: 500_000,
  faucetRequestAmount: parseEther("10"),
  faucetRequestWait: 1,
  faucetSupply: parseEther("6343700"),
  deployerSupply: parseEther("500000"),
};
