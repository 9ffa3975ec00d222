// JSON bodies of the simulated endpoints: the real node's fields plus the spec's, derived from the
// flags and the current state. Every body carries "Simulated": true.

import { randomBytes } from "node:crypto";
import { bitstringFromCapabilities, VIDEO_CAPABILITIES } from "../client/capabilities.ts";
import type { NodeModel } from "./node-model.ts";
import { advertisedPriceInfo, broadcasterPrices } from "./orchestrator-price.ts";
import type { SimulatorState } from "./state.ts";

export const GO_RUNTIME = { GolangRuntimeVersion: "go1.23.4", GOArch: "amd64", GOOS: "linux" } as const;
const GIB = 1024 ** 3;
export const SIMULATED_GPU = { name: "Simulated GPU", memoryTotal: 24 * GIB };

export const CAPABILITY_NAMES: Record<number, string> = {
  0: "H.264",
  1: "MPEGTS",
  2: "MP4",
  3: "Fractional framerates",
  4: "Storage direct",
  5: "Storage S3",
  6: "Storage GCS",
  7: "H264 Baseline profile",
  8: "H264 Main profile",
  9: "H264 High profile",
  10: "H264 Constrained, Contained High profile",
  11: "GOP",
  12: "Auth token",
  14: "MPEG7 signature",
  26: "Segment slicing",
  27: "Text to image",
  28: "Image to image",
  29: "Image to video",
  30: "Upscale",
  31: "Audio to text",
  32: "Segment anything 2",
  33: "Llm",
  34: "Image to text",
  35: "Live video to video",
  36: "Text to speech",
};

/** The spec's PricePerUnit: a JSON number for whole wei, else the flag's text (e.g. "0.5USD"). */
function priceValue(price: string): number | string {
  return /^\d+$/.test(price) && Number.isSafeInteger(Number(price)) ? Number(price) : price;
}

export function statusBody(node: NodeModel, state: SimulatorState, version: string): Record<string, unknown> {
  return {
    Manifests: {},
    InternalManifests: {},
    StreamInfo: {},
    OrchestratorPool: node.role === "gateway" ? node.orchAddrs : [],
    OrchestratorPoolInfos: null,
    Version: version,
    ...GO_RUNTIME,
    RegisteredTranscodersNumber: 0,
    RegisteredTranscoders: [],
    LocalTranscoding: node.localTranscoding,
    BroadcasterPrices: node.role === "orchestrator" ? broadcasterPrices(node, state) : {},
    SessionLimit: state.sessionLimit,
    ...(node.role === "orchestrator" ? { PricePerUnit: priceValue(state.pricePerUnit) } : {}),
    Simulated: true,
  };
}

export function capabilitiesBody(node: NodeModel, state: SimulatorState, version: string) {
  const capacities: Record<string, number> = {};
  for (const id of VIDEO_CAPABILITIES) capacities[id] = state.sessionLimit;
  const perCapability: Record<string, { models: Record<string, unknown> }> = {};
  // Only a node running -aiWorker advertises its models (starter.go fills the constraints then).
  const served = node.aiWorker ? node.aiModels : [];
  for (const m of served) {
    capacities[m.capability] = (capacities[m.capability] ?? 0) + m.capacity;
    perCapability[m.capability] ??= { models: {} };
    perCapability[m.capability]!.models[m.modelId] = {
      warm: m.warm,
      capacity: m.capacity,
      runnerVersion: m.runnerVersion ?? "0.0.0-simulated",
      capacityInUse: 0,
    };
  }
  const ids = [...VIDEO_CAPABILITIES, ...served.map((m) => m.capability)];
  return {
    bitstring: bitstringFromCapabilities(ids),
    mandatories: [],
    capacities,
    version,
    constraints: { minVersion: "", PerCapability: perCapability },
  };
}

function hardwareInfo(node: NodeModel) {
  if (node.gpuIds.length === 0) return [];
  const gpu_info = Object.fromEntries(
    node.gpuIds.map((id) => [
      id,
      {
        id,
        name: SIMULATED_GPU.name,
        major: 8,
        minor: 6,
        memory_free: SIMULATED_GPU.memoryTotal,
        memory_total: SIMULATED_GPU.memoryTotal,
      },
    ]),
  );
  return [{ pipeline: "", model_id: "", gpu_info }];
}

/** Auth tokens live as long as the node's (core/orchestrator.go authTokenValidPeriod: 30 minutes). */
const AUTH_TOKEN_SECONDS = 30 * 60;

/** sender: the asking gateway's eth address (its price may differ, -pricePerGateway). */
export function orchestratorInfoBody(
  node: NodeModel,
  state: SimulatorState,
  version: string,
  sender?: string,
) {
  const price = advertisedPriceInfo(node, state, sender);
  return {
    transcoder: state.serviceUri ?? "",
    ...(node.flags.ethAcctAddr ? { address: node.flags.ethAcctAddr } : {}),
    ...(price ? { price_info: price } : {}),
    // A fresh session id per answer: the gateway sends it with each segment of one stream.
    auth_token: {
      token: randomBytes(32).toString("base64"),
      session_id: randomBytes(16).toString("hex"),
      expiration: Math.floor(Date.now() / 1000) + AUTH_TOKEN_SECONDS,
    },
    capabilities: capabilitiesBody(node, state, version),
    capabilities_prices: node.aiModels.map((m) => ({
      pricePerUnit: m.pricePerUnit ?? 0,
      pixelsPerUnit: m.pixelsPerUnit ?? 1,
      capability: m.capability,
      constraint: m.modelId,
    })),
    hardware: hardwareInfo(node),
    Simulated: true,
  };
}

export function networkCapabilitiesBody(node: NodeModel, state: SimulatorState, version: string) {
  const orchestrators =
    node.role === "orchestrator"
      ? [
          {
            address: node.flags.ethAcctAddr ?? "",
            local_address: state.serviceUri ?? "",
            orch_uri: state.serviceUri ?? "",
            ...(({ transcoder: _t, Simulated: _s, auth_token: _a, address: _addr, ...rest }) => rest)(
              orchestratorInfoBody(node, state, version),
            ),
          },
        ]
      : // A gateway lists the orchestrators it was given (ai/gateway-ai.ts replaces this with their answers).
        node.orchAddrs.map((uri) => ({ address: "", local_address: uri, orch_uri: uri, capabilities: null }));
  return { capabilities_names: CAPABILITY_NAMES, orchestrators, Simulated: true };
}

export function hardwareStatsBody(node: NodeModel, state: SimulatorState) {
  const load =
    state.sessionLimit > 0
      ? Math.min(100, Math.round((100 * state.currentSessions) / state.sessionLimit))
      : 0;
  const gpu_stats = Object.fromEntries(
    node.gpuIds.map((id) => {
      const used = state.gpuMemoryUsed.get(id) ?? 0;
      return [
        id,
        {
          id,
          name: SIMULATED_GPU.name,
          memory_total: SIMULATED_GPU.memoryTotal,
          memory_free: Math.round(SIMULATED_GPU.memoryTotal * (1 - used)),
          utilization_compute: load,
          utilization_memory: Math.round(used * 100),
        },
      ];
    }),
  );
  return { pipeline: "", model_id: "", gpu_stats, Simulated: true };
}
