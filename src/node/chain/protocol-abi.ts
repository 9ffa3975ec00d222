// The few protocol functions the chain checks call, as human-readable fragments: small enough
// for the controller to hold (never the full artifacts), and checked against the @livepeer/sdk
// artifacts in protocol-abi.test.ts. Struct results are declared up to the last field used; the
// rest of a static tuple is ignored when decoding, so newer contract versions still decode.
import { Interface } from "ethers/abi";
import { keccak256 } from "ethers/crypto";
import { toUtf8Bytes } from "ethers/utils";

export const CONTROLLER_ABI = new Interface(["function getContract(bytes32 id) view returns (address)"]);

export const SERVICE_REGISTRY_ABI = new Interface([
  "function getServiceURI(address addr) view returns (string)",
]);

export const BONDING_MANAGER_ABI = new Interface([
  "function isActiveTranscoder(address transcoder) view returns (bool)",
  "function isRegisteredTranscoder(address transcoder) view returns (bool)",
  "function transcoderTotalStake(address transcoder) view returns (uint256)",
  "function getTranscoder(address transcoder) view returns (uint256 lastRewardRound, uint256 rewardCut, uint256 feeShare, uint256 lastActiveStakeUpdateRound, uint256 activationRound, uint256 deactivationRound)",
  "function getTranscoderPoolSize() view returns (uint256)",
  "function getTranscoderPoolMaxSize() view returns (uint256)",
  "function getFirstTranscoderInPool() view returns (address)",
  "function getNextTranscoderInPool(address transcoder) view returns (address)",
]);

export const ROUNDS_MANAGER_ABI = new Interface([
  "function currentRound() view returns (uint256)",
  "function currentRoundInitialized() view returns (bool)",
  "function currentRoundStartBlock() view returns (uint256)",
  "function roundLength() view returns (uint256)",
  "function blockNum() view returns (uint256)",
]);

export const TICKET_BROKER_ABI = new Interface([
  "function getSenderInfo(address sender) view returns (tuple(uint256 deposit, uint256 withdrawRound) sender, tuple(uint256 fundsRemaining, uint256 claimedInCurrentRound) reserve)",
]);

/** The contracts the checks read, by their Controller name. */
export const PROTOCOL_CONTRACTS = [
  "BondingManager",
  "RoundsManager",
  "ServiceRegistry",
  "TicketBroker",
] as const;
export type ProtocolContract = (typeof PROTOCOL_CONTRACTS)[number];

/** How the Controller names a contract: keccak256 of its name. */
export function controllerId(name: string): string {
  return keccak256(toUtf8Bytes(name));
}
