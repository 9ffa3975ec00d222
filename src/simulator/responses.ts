// JSON bodies of the simulated endpoints: the real node's fields plus the spec's, derived from the
// flags and the current state. Every body carries "Simulated": true.

import type { NodeModel } from "./node-model.ts";
import { broadcasterPrices } from "./orchestrator-price.ts";
import type { SimulatorState } from "./state.ts";

export const GO_RUNTIME = { GolangRuntimeVersion: "go1.23.4", GOArch: "amd64", GOOS: "linux" } as const;

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
