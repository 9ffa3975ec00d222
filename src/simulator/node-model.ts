// What the simulated node is, derived from its flags the way go-livepeer derives it.
import { readFileSync, statSync } from "node:fs";
import { pipelineCapability } from "../node/client/capabilities.ts";
import { type NodeAddresses, nodeAddresses } from "../node/config/addresses.ts";
import type { NodeFlags } from "../node/config/flag-table.ts";
import { OFFCHAIN } from "../node/config/networks.ts";
import { type NodeRole, roleOf } from "../node/config/roles.ts";

export interface SimulatedAiModel {
  pipeline: string;
  capability: number;
  modelId: string;
  warm: boolean;
  capacity: number;
  pricePerUnit: number | undefined;
  pixelsPerUnit: number | undefined;
  /** An external runner (aiModels.json `url` + `token`); absent: a managed container (needs Docker). */
  url?: string;
  token?: string;
  /** The runner's /version once warmed (the node advertises the lowest). */
  runnerVersion?: string;
}

export interface NodeModel {
  role: NodeRole;
  flags: NodeFlags;
  network: string;
  addresses: NodeAddresses;
  /** "auto": the sum of connected transcoders' capacities (none here, so 0). */
  sessionLimit: number;
  pricePerUnit: string;
  pixelsPerUnit: string;
  serviceUri: string | undefined;
  gpuIds: string[];
  aiModels: SimulatedAiModel[];
  /** -aiWorker: this node runs the models of -aiModels (only then does it advertise them). */
  aiWorker: boolean;
  orchAddrs: string[];
  localTranscoding: boolean;
  /**
   * A gateway's HTTP ingest (/live/): on, unless -httpAddr is not loopback and there is no
   * -authWebhookUrl, when only an explicit -httpIngest turns it on (starter.go).
   */
  httpIngest: boolean;
}

export function nodeModel(flags: NodeFlags, options: { gpuCount: number }): NodeModel {
  const role = roleOf(flags);
  if (!role) throw new Error("no role");
  const maxSessions = flags.maxSessions ?? "10";
  const nvidia = flags.nvidia ?? "";
  const addresses = nodeAddresses(flags, role);
  const localHttp = /^(127(\.\d{1,3}){3}|::1|localhost)$/.test(addresses.http?.host ?? "");
  return {
    role,
    flags,
    network: flags.network ?? OFFCHAIN,
    addresses,
    sessionLimit: maxSessions === "auto" ? 0 : Number(maxSessions),
    pricePerUnit: flags.pricePerUnit ?? "0",
    pixelsPerUnit: flags.pixelsPerUnit ?? "1",
    serviceUri: role === "orchestrator" ? serviceUriOf(flags.serviceAddr) : undefined,
    gpuIds:
      nvidia === ""
        ? []
        : nvidia === "all"
          ? Array.from({ length: options.gpuCount }, (_, i) => String(i))
          : nvidia.split(","),
    aiModels: flags.aiModels ? parseAiModels(flags.aiModels) : [],
    aiWorker: flags.aiWorker === true,
    orchAddrs: (flags.orchAddr ?? "")
      .split(",")
      .map((a) => a.trim())
      .filter(Boolean)
      .map((a) => (/^https?:\/\//.test(a) ? a : `https://${a.includes(":") ? a : `${a}:8935`}`)),
    localTranscoding: role !== "orchestrator" || flags.transcoder === true,
    httpIngest: flags.httpIngest ?? (localHttp || Boolean(flags.authWebhookUrl)),
  };
}

function serviceUriOf(serviceAddr: string | undefined): string | undefined {
  if (!serviceAddr || serviceAddr === "none") return undefined;
  return /^https?:\/\//.test(serviceAddr) ? serviceAddr : `https://${serviceAddr}`;
}

/** -aiModels as the node reads it: a JSON file (aiModels.json), or pipeline:model_id:warm,... */
export function parseAiModels(value: string): SimulatedAiModel[] {
  let entries: Record<string, unknown>[];
  let isFile = false;
  try {
    isFile = statSync(value).isFile();
  } catch {
    isFile = false;
  }
  if (isFile) {
    const parsed = JSON.parse(readFileSync(value, "utf8")) as unknown;
    if (!Array.isArray(parsed)) throw new Error(`${value} is not a JSON array of models`);
    entries = parsed as Record<string, unknown>[];
  } else {
    entries = value.split(",").map((m) => {
      const [pipeline, modelId, warm] = m.split(":");
      if (warm === undefined)
        throw new Error("invalid AI model config expected <pipeline>:<model_id>:<warm>");
      return { pipeline, model_id: modelId, warm: warm === "true" || warm === "1" };
    });
  }
  return entries.map((e) => {
    const pipeline = String(e.pipeline ?? "");
    const capability = pipelineCapability(pipeline);
    if (capability === undefined) throw new Error(`Pipeline is not valid capability: ${pipeline}`);
    return {
      pipeline,
      capability,
      modelId: String(e.model_id ?? ""),
      warm: e.warm === true,
      capacity: typeof e.capacity === "number" && e.capacity > 0 ? e.capacity : 1,
      pricePerUnit: typeof e.price_per_unit === "number" ? e.price_per_unit : undefined,
      pixelsPerUnit: typeof e.pixels_per_unit === "number" ? e.pixels_per_unit : undefined,
      ...(typeof e.url === "string" && e.url.trim() !== "" ? { url: e.url.trim() } : {}),
      ...(typeof e.token === "string" && e.token !== "" ? { token: e.token } : {}),
    };
  });
}
