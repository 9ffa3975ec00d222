// What the chain says about one node, as read: the input of every check. Reading fills it
// (read-facts.ts); the checks only judge it, so they are tested from tables of these.

export type NodeRole = "orchestrator" | "gateway";

/** One node as the chain checks see it. */
export interface NodeChainTarget {
  role: NodeRole;
  /** -network: devnet, a named network, or another name with its own Controller. */
  network: string;
  /** -ethUrl as the node uses it. */
  ethUrl: string;
  /** -ethAcctAddr: the node's account. */
  address: string;
  /** -ethController, or a devnet deployment's Controller; default: the network's built-in one. */
  controller?: string;
  /** The chain id the RPC must answer (a devnet deployment's .chainId); default: the network's. */
  chainId?: number;
  /** Orchestrators: the host:port the operator exposes the node at (-serviceAddr). */
  serviceAddr?: string;
  /** -reward; undefined: the node's default, which calls reward once registered on chain. */
  reward?: boolean;
  /** Seconds per RoundsManager block, to say the time left in a round; default: the network's. */
  secondsPerRoundBlock?: number;
}

export type RpcFacts =
  | {
      ok: true;
      chainId: number;
      blockNumber: number;
      /** The head block's timestamp, seconds since the epoch. */
      blockTimestamp: number;
      /** When this reader first saw this block number (ms since the epoch). */
      blockSeenSince: number;
    }
  | { ok: false; kind: string; message: string };

export type ProtocolFacts =
  | { ok: true; controller: string; addresses: Record<string, string> }
  | { ok: false; message: string };

export interface RoundFacts {
  current: bigint;
  initialized: boolean;
  startBlock: bigint;
  length: bigint;
  /** RoundsManager.blockNum(): the block the rounds count (layer 1 on Arbitrum). */
  blockNum: bigint;
}

/** The transcoder pool: next round's active set, sorted by stake. */
export interface PoolFacts {
  size: number;
  maxSize: number;
  /** The smallest stake in a full pool, which a newcomer must beat; undefined when not full. */
  lowestStake?: bigint;
}

export interface OrchestratorFacts {
  serviceURI: string;
  /** In the transcoder pool (BondingManager.isRegisteredTranscoder). */
  registered: boolean;
  /** Active in the current round (BondingManager.isActiveTranscoder). */
  active: boolean;
  lastRewardRound: bigint;
  /** BondingManager's rewardCut and feeShare, in millionths (PERC_DIVISOR 1,000,000 = 100 %). */
  rewardCut?: bigint;
  feeShare?: bigint;
  activationRound: bigint;
  deactivationRound: bigint;
  totalStake: bigint;
  /** Read only when the orchestrator is not active: what it would take to get in. */
  pool?: PoolFacts;
}

export interface GatewayFacts {
  deposit: bigint;
  reserve: bigint;
  /** Non-zero while an unlock is in progress: the round the deposit and reserve can be withdrawn. */
  withdrawRound: bigint;
}

export interface NodeChainFacts {
  /** When the reading finished (ms since the epoch). */
  readAt: number;
  rpc: RpcFacts;
  protocol?: ProtocolFacts;
  round?: RoundFacts;
  balanceWei?: bigint;
  /** eth_gasPrice at the head (wei), what a transaction sent now would pay per gas. */
  gasPriceWei?: bigint;
  orchestrator?: OrchestratorFacts;
  gateway?: GatewayFacts;
  /** A read after the head failed (transport or revert): what was not read and why. */
  readFailure?: string;
}
