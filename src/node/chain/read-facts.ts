// Reading what the chain says about one node, through the process's shared ChainReads. The order
// is the order of dependence: the head (is the RPC there, which chain, which block), the
// protocol's addresses from the Controller, then the round and this node's own reads, all cached
// under the head's block and sent together. A node outside the active set also gets the pool's
// entry stake. Whatever fails is recorded in the facts, for the checks to judge.
import type { ChainReads } from "./chain-reads.ts";
import type {
  GatewayFacts,
  NodeChainFacts,
  NodeChainTarget,
  OrchestratorFacts,
  RoundFacts,
} from "./facts.ts";
import { chainProfile } from "./networks.ts";
import {
  BONDING_MANAGER,
  type ProtocolFunction,
  ROUNDS_MANAGER,
  SERVICE_REGISTRY,
  TICKET_BROKER,
} from "./protocol-abi.ts";
import type { RpcReader } from "./rpc-reader.ts";
import type { RpcUrl } from "./rpc-url.ts";

export async function readNodeChainFacts(
  reads: ChainReads,
  target: NodeChainTarget,
  rpc: RpcUrl,
): Promise<NodeChainFacts> {
  if (!/^0x[0-9a-fA-F]{40}$/.test(target.address)) {
    throw new TypeError(
      `${JSON.stringify(target.address)} is not an account address: 0x followed by 40 hex digits`,
    );
  }
  if (!rpc.readable) {
    return {
      readAt: reads.now(),
      rpc: {
        ok: false,
        kind: "not-read",
        message: `${rpc.shown} is a ${rpc.scheme}:// endpoint: the chain checks read JSON-RPC over http(s) only`,
      },
    };
  }
  const reader = reads.reader(rpc);
  const head = await reader.readHead();
  const facts: NodeChainFacts = { readAt: reads.now(), rpc: head };
  if (!head.ok) return facts;
  const profile = chainProfile(target.network, { controller: target.controller, chainId: target.chainId });
  // On another chain the protocol's addresses mean nothing: the chain id is the finding.
  if (profile.chainId !== undefined && head.chainId !== profile.chainId) return facts;
  if (!profile.controller) {
    facts.protocol = {
      ok: false,
      message: `-network ${target.network} has no built-in Controller address and none was given (-ethController)`,
    };
    return facts;
  }
  try {
    facts.protocol = await reader.readProtocol(head.blockNumber, profile.controller);
    if (!facts.protocol.ok) return facts;
    const { addresses } = facts.protocol;
    const block = head.blockNumber;
    const [round, balance, gasPrice, own] = await Promise.all([
      readRound(reader, block, addresses.RoundsManager!),
      reader.balanceAt(block, target.address),
      reader.gasPriceAt(block),
      target.role === "orchestrator"
        ? readOrchestrator(reader, block, addresses, target.address)
        : readGateway(reader, block, addresses.TicketBroker!, target.address),
    ]);
    facts.round = round;
    facts.balanceWei = balance;
    facts.gasPriceWei = gasPrice;
    if (target.role === "orchestrator") {
      const orchestrator = own as OrchestratorFacts;
      if (!orchestrator.active) {
        orchestrator.pool = await reader.readPool(block, addresses.BondingManager!, round.current);
      }
      facts.orchestrator = orchestrator;
    } else {
      facts.gateway = own as GatewayFacts;
    }
  } catch (err) {
    facts.readFailure = (err as Error).message;
  }
  facts.readAt = reads.now();
  return facts;
}

async function readRound(reader: RpcReader, block: number, rm: string): Promise<RoundFacts> {
  const read = <T>(f: ProtocolFunction) => reader.callAt<T>(block, rm, f);
  const [current, initialized, startBlock, length, blockNum] = await Promise.all([
    read<bigint>(ROUNDS_MANAGER.currentRound),
    read<boolean>(ROUNDS_MANAGER.currentRoundInitialized),
    read<bigint>(ROUNDS_MANAGER.currentRoundStartBlock),
    read<bigint>(ROUNDS_MANAGER.roundLength),
    read<bigint>(ROUNDS_MANAGER.blockNum),
  ]);
  return { current, initialized, startBlock, length, blockNum };
}

async function readOrchestrator(
  reader: RpcReader,
  block: number,
  addresses: Record<string, string>,
  address: string,
): Promise<OrchestratorFacts> {
  const bm = addresses.BondingManager!;
  const bonding = <T>(f: ProtocolFunction) => reader.callAt<T>(block, bm, f, [address]);
  const [serviceURI, registered, active, transcoder, totalStake] = await Promise.all([
    reader.callAt<string>(block, addresses.ServiceRegistry!, SERVICE_REGISTRY.getServiceURI, [address]),
    bonding<boolean>(BONDING_MANAGER.isRegisteredTranscoder),
    bonding<boolean>(BONDING_MANAGER.isActiveTranscoder),
    bonding<{
      lastRewardRound: bigint;
      rewardCut: bigint;
      feeShare: bigint;
      activationRound: bigint;
      deactivationRound: bigint;
    }>(BONDING_MANAGER.getTranscoder),
    bonding<bigint>(BONDING_MANAGER.transcoderTotalStake),
  ]);
  return {
    serviceURI,
    registered,
    active,
    lastRewardRound: transcoder.lastRewardRound,
    rewardCut: transcoder.rewardCut,
    feeShare: transcoder.feeShare,
    activationRound: transcoder.activationRound,
    deactivationRound: transcoder.deactivationRound,
    totalStake,
  };
}

async function readGateway(
  reader: RpcReader,
  block: number,
  broker: string,
  address: string,
): Promise<GatewayFacts> {
  const info = await reader.callAt<{ deposit: bigint; withdrawRound: bigint; fundsRemaining: bigint }>(
    block,
    broker,
    TICKET_BROKER.getSenderInfo,
    [address],
  );
  return { deposit: info.deposit, reserve: info.fundsRemaining, withdrawRound: info.withdrawRound };
}
