// Typed reads of a Livepeer node's HTTP endpoints, each bounded by a timeout, each failure a
// NodeEndpointError naming the endpoint, the node and why.

export {
  AI_CAPABILITIES,
  bitstringFromCapabilities,
  capabilitiesFromBitstring,
  isAiCapability,
  pipelineCapability,
  VIDEO_CAPABILITIES,
} from "./capabilities.ts";
export type { AiModelCapacity, NodeCapabilities } from "./capabilities-read.ts";
export { readCapabilities } from "./capabilities-read.ts";
export type { BroadcastConfig, CapabilityMaxPrice, GatewayPrice, OrchestratorConfig } from "./cli-port.ts";
export {
  callReward,
  fundDepositAndReserve,
  setBroadcastConfig,
  setMaxPriceForCapability,
  setMaxSessions,
  setOrchestratorConfig,
  setPriceForBroadcaster,
} from "./cli-port.ts";
export type { EndpointFailure } from "./errors.ts";
export { NodeEndpointError } from "./errors.ts";
export type { GpuStats } from "./hardware-stats.ts";
export { readHardwareStats } from "./hardware-stats.ts";
export type { RequestOptions } from "./http.ts";
export { DEFAULT_TIMEOUT_MS } from "./http.ts";
export type { LiveRunnerSeen } from "./live-discovery.ts";
export { readLiveDiscovery, routeOf } from "./live-discovery.ts";
export type { MetricsOptions, NodeMetricName, NodeMetrics } from "./metrics.ts";
export { METRIC_NAMES, readMetrics } from "./metrics.ts";
export type { NetworkCapabilities, NetworkOrchestrator } from "./network-capabilities.ts";
export { readNetworkCapabilities } from "./network-capabilities.ts";
export type { OrchestratorGpu, OrchestratorInfo, PriceInfo, TicketParams } from "./orchestrator-info.ts";
export { GET_ORCHESTRATOR, orchestratorInfoOf, readOrchestratorInfo } from "./orchestrator-info.ts";
export type { RunnerHealth } from "./runner-health.ts";
export { readRunnerHealth, runnerServes } from "./runner-health.ts";
export { SIMULATED_BUILD, saysSimulated } from "./simulated.ts";
export type { NodeStatus, StatusOptions } from "./status.ts";
export { readStatus } from "./status.ts";
