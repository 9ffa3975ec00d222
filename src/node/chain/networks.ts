// What the chain checks know about a network: the chain id its RPC must answer, the protocol
// Controller the node uses (the same built-in addresses as go-livepeer's starter), and how long a
// round block takes. The RoundsManager counts rounds in layer-1 blocks (block.number on
// Arbitrum is the layer-1 block number), so named networks tick every 12 s whatever their L2 does.
import { BUILT_IN_CONTROLLERS } from "../config/networks.ts";

export interface ChainProfile {
  network: string;
  /** The chain id -ethUrl must answer; undefined when nothing says (a custom network). */
  chainId?: number;
  /** The Controller the node asks for contract addresses. */
  controller?: string;
  /** Seconds per RoundsManager block, for "time left in the round"; undefined: unknown. */
  secondsPerRoundBlock?: number;
}

/** Chain ids of the networks go-livepeer knows (build/chain.go: ChainSupported). */
export const NETWORK_CHAIN_IDS: Readonly<Record<string, number>> = {
  mainnet: 1,
  "arbitrum-one-mainnet": 42161,
  rinkeby: 4,
  "arbitrum-one-rinkeby": 421611,
};

const L1_SECONDS_PER_BLOCK: Readonly<Record<string, number>> = {
  mainnet: 12,
  "arbitrum-one-mainnet": 12,
  rinkeby: 15,
  "arbitrum-one-rinkeby": 15,
};

export interface ProfileOverrides {
  /** -ethController, or a devnet deployment's Controller. */
  controller?: string;
  /** A devnet deployment's `.chainId`. */
  chainId?: number;
  secondsPerRoundBlock?: number;
}

export function chainProfile(network: string, overrides: ProfileOverrides = {}): ChainProfile {
  return {
    network,
    chainId: overrides.chainId ?? NETWORK_CHAIN_IDS[network],
    controller: overrides.controller ?? BUILT_IN_CONTROLLERS[network],
    secondsPerRoundBlock: overrides.secondsPerRoundBlock ?? L1_SECONDS_PER_BLOCK[network],
  };
}
