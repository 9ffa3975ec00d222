// What a simulated orchestrator answers GetOrchestrator with (server/rpc.go orchestratorInfoWithCaps):
// its service URI, the price for the asking gateway, capabilities with their AI constraints and
// prices, a fresh auth token, its GPUs (memory_free follows the steered GPU memory use) and, on
// chain, its address and ticket parameters. It says it is simulated where the message leaves
// room: `capabilities.version` carries `+simulated` build metadata (which semver comparisons
// ignore) and the GPUs are named "Simulated GPU".
import { bitstringFromCapabilities, VIDEO_CAPABILITIES } from "../node/client/capabilities.ts";
import { rational } from "../node/pricing/rational.ts";
import type { MessageInput, OrchestratorInfoMessage } from "../node/wire/messages.ts";
import type { AuthToken } from "./auth-tokens.ts";
import type { NodeModel } from "./node-model.ts";
import { advertisedPriceInfo } from "./orchestrator-price.ts";
import type { SimulatorState } from "./state.ts";
import type { TicketParamsSource } from "./ticket-params.ts";
import { INSUFFICIENT_SENDER_RESERVE } from "./ticket-params.ts";

const GIB = 1024 ** 3;
/** core.Capability_LiveVideoToVideo. */
const LIVE_VIDEO_TO_VIDEO = 35;
export const SIMULATED_GPU = { name: "Simulated GPU", memoryTotal: 24 * GIB };

export interface InfoSource {
  node: NodeModel;
  state: SimulatorState;
  /** Already marked simulated (`0.9.1+simulated`). */
  version: string;
  /** On chain: the orchestrator's address (20 bytes) and its ticket parameters. */
  address: () => Promise<Buffer>;
  tickets?: TicketParamsSource;
  /** Ticket parameters could not be worked out (the chain did not answer): sent without them. */
  onTicketError?: (err: unknown) => void;
  /** Live AI models served by live runners (live/orchestrator-live.ts). */
  liveModels?: () => LiveModel[];
}

export interface LiveModel {
  modelId: string;
  capacity: number;
  inUse: number;
  version: string;
}

/** `sender`: the asking gateway's address bytes (empty: anonymous). */
export async function orchestratorInfoMessage(
  source: InfoSource,
  sender: Buffer,
  authToken: AuthToken | undefined,
): Promise<MessageInput<"OrchestratorInfo">> {
  const { node, state } = source;
  const senderHex = sender.length === 20 ? `0x${sender.toString("hex")}` : undefined;
  const price = advertisedPriceInfo(node, state, senderHex);
  let ticketParams: MessageInput<"OrchestratorInfo">["ticketParams"];
  if (source.tickets && price) {
    try {
      ticketParams = await source.tickets.paramsFor(
        sender,
        rational(price.pricePerUnit, price.pixelsPerUnit),
      );
    } catch (err) {
      // The node refuses an asker it cannot quote (pm/recipient.go): so does the simulator.
      if ((err as Error).message === INSUFFICIENT_SENDER_RESERVE) throw err;
      source.onTicketError?.(err);
    }
  }
  return {
    transcoder: state.serviceUri ?? "",
    ...(ticketParams ? { ticketParams } : {}),
    ...(price ? { priceInfo: { pricePerUnit: price.pricePerUnit, pixelsPerUnit: price.pixelsPerUnit } } : {}),
    // Off chain the node's address is the zero address: 20 zero bytes (core/orchestrator.go Address).
    address: await source.address(),
    capabilities: capabilitiesMessage(node, state, source.version, source.liveModels?.() ?? []),
    ...(authToken ? { authToken } : {}),
    hardware: hardwareMessage(node, state),
    capabilitiesPrices: node.aiModels.map((m) => ({
      pricePerUnit: Math.trunc(m.pricePerUnit ?? 0),
      pixelsPerUnit: Math.trunc(m.pixelsPerUnit ?? 1),
      capability: m.capability,
      constraint: m.modelId,
    })),
  };
}

interface ModelConstraint {
  warm: boolean;
  capacity: number;
  runnerVersion: string;
  capacityInUse: number;
}

export function capabilitiesMessage(
  node: NodeModel,
  state: SimulatorState,
  version: string,
  live: readonly LiveModel[] = [],
): MessageInput<"OrchestratorInfo">["capabilities"] {
  const capacities: Record<string, number> = {};
  for (const id of VIDEO_CAPABILITIES) capacities[id] = state.sessionLimit;
  const perCapability: Record<string, { models: Record<string, ModelConstraint> }> = {};
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
  for (const m of live) {
    const cap = LIVE_VIDEO_TO_VIDEO;
    capacities[cap] = (capacities[cap] ?? 0) + m.capacity;
    perCapability[cap] ??= { models: {} };
    perCapability[cap]!.models[m.modelId] = {
      warm: true,
      capacity: m.capacity,
      runnerVersion: m.version || "0.0.0-simulated",
      capacityInUse: m.inUse,
    };
  }
  const ids = [
    ...VIDEO_CAPABILITIES,
    ...served.map((m) => m.capability),
    ...(live.length ? [LIVE_VIDEO_TO_VIDEO] : []),
  ];
  return {
    bitstring: bitstringFromCapabilities(ids),
    mandatories: [],
    capacities,
    version,
    constraints: { minVersion: "", PerCapability: perCapability },
  };
}

function hardwareMessage(
  node: NodeModel,
  state: SimulatorState,
): MessageInput<"OrchestratorInfo">["hardware"] {
  if (node.gpuIds.length === 0) return [];
  const gpuInfo = Object.fromEntries(
    node.gpuIds.map((id) => [
      id,
      {
        id,
        name: SIMULATED_GPU.name,
        major: 8,
        minor: 6,
        memoryFree: Math.round(SIMULATED_GPU.memoryTotal * (1 - (state.gpuMemoryUsed.get(id) ?? 0))),
        memoryTotal: SIMULATED_GPU.memoryTotal,
      },
    ]),
  );
  return [{ pipeline: "", modelId: "", gpuInfo }];
}

/**
 * An orchestrator as /getNetworkCapabilities lists it (server/handlers.go: the OrchestratorInfo's
 * capabilities, prices and hardware in JSON, snake_case as before).
 */
export function networkOrchestratorJson(m: OrchestratorInfoMessage): Record<string, unknown> {
  const caps = m.capabilities;
  return {
    capabilities: caps
      ? {
          bitstring: caps.bitstring.map(Number),
          mandatories: caps.mandatories.map(Number),
          capacities: caps.capacities,
          version: caps.version,
          constraints: caps.constraints ?? { minVersion: "", PerCapability: {} },
        }
      : null,
    ...(m.priceInfo
      ? {
          price_info: {
            pricePerUnit: Number(m.priceInfo.pricePerUnit),
            pixelsPerUnit: Number(m.priceInfo.pixelsPerUnit),
          },
        }
      : {}),
    capabilities_prices: m.capabilitiesPrices.map((p) => ({
      pricePerUnit: Number(p.pricePerUnit),
      pixelsPerUnit: Number(p.pixelsPerUnit),
      capability: p.capability,
      constraint: p.constraint,
    })),
    hardware: m.hardware.map((h) => ({
      pipeline: h.pipeline,
      model_id: h.modelId,
      gpu_info: Object.fromEntries(
        Object.entries(h.gpuInfo).map(([k, g]) => [
          k,
          {
            id: g.id,
            name: g.name,
            major: g.major,
            minor: g.minor,
            memory_free: Number(g.memoryFree),
            memory_total: Number(g.memoryTotal),
          },
        ]),
      ),
    })),
  };
}
