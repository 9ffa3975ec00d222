// Chain truth for one node (no Kubernetes): what the chain says about its RPC, registration,
// active set, reward and funds, read through a process-wide ChainReads (shared, cached per block,
// rate-bounded per RPC) and judged by pure checks into condition inputs, catalog findings and
// status facts. The controller holds one ChainReads and calls checkNodeChain per visit;
// `livepeer-operator doctor` does the same once.
export { type ChainCondition, type ChainConditionType, ethText } from "./chain-finding.ts";
export { ChainReads, type ChainReadsOptions, type EndpointStats } from "./chain-reads.ts";
export { checkNodeChain, type NodeChainCheck } from "./check-node.ts";
export { CHAIN_HEALTH_FINDINGS } from "./checks/chain-healthy.ts";
export { durationText } from "./checks/round-time.ts";
export type {
  GatewayFacts,
  NodeChainFacts,
  NodeChainTarget,
  NodeRole,
  OrchestratorFacts,
  PoolFacts,
  ProtocolFacts,
  RoundFacts,
  RpcFacts,
} from "./facts.ts";
export { chainProfile, NETWORK_CHAIN_IDS } from "./networks.ts";
export {
  type ChainPolicy,
  type ChainReport,
  type ChainStatusFacts,
  DEFAULT_CHAIN_POLICY,
  evaluateNodeChain,
  offchainReport,
} from "./report.ts";
export { parseRpcUrl, type RpcUrl, RpcUrlError } from "./rpc-url.ts";
