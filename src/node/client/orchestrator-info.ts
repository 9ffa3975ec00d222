// GetOrchestrator on an orchestrator's service port (gRPC net.Orchestrator over TLS, as every
// gateway asks it): the service URI, price, capabilities and their prices, GPUs and, on chain, the
// ticket parameters. The same read for every node: nothing here knows whether it is simulated.
import type { CallOptions, NodeConnection } from "../wire/connection.ts";
import type { OrchestratorIdentity } from "../wire/identity.ts";
import { bytesToBigInt, type OrchestratorInfoMessage, type PriceInfoMessage } from "../wire/messages.ts";
import { type NodeCapabilities, readCapabilities } from "./capabilities-read.ts";
import { NodeEndpointError } from "./errors.ts";

export interface PriceInfo {
  /** Wei per pixelsPerUnit pixels, an int64 as decimal text (the node sends a rational num/den). */
  pricePerUnit: string;
  pixelsPerUnit: string;
}

export interface TicketParams {
  /** The orchestrator's address that tickets pay (0x...). */
  recipient: string;
  /** Wei, decimal text. */
  faceValue: string;
  /** Of 2^256, decimal text. */
  winProb: string;
  expirationBlock: string;
  creationRound: string | undefined;
}

export interface OrchestratorGpu {
  id: string;
  name: string;
  memoryTotal: number;
  memoryFree: number;
}

export interface OrchestratorInfo {
  /** The service URI the orchestrator advertises. */
  serviceUri: string | undefined;
  /** Its eth address (0x...), when it has one (on chain). */
  address: string | undefined;
  priceInfo: PriceInfo | undefined;
  capabilities: NodeCapabilities;
  /** Per-capability (AI) prices; modelId from the price's constraint. */
  capabilityPrices: (PriceInfo & { capability: number; modelId: string | undefined })[];
  ticketParams: TicketParams | undefined;
  gpus: OrchestratorGpu[];
  message: OrchestratorInfoMessage;
}

export const GET_ORCHESTRATOR = "/net.Orchestrator/GetOrchestrator";

/** Asks as `identity` (its address and signature: the price read is the one that address gets). */
export async function readOrchestratorInfo(
  connection: NodeConnection,
  identity: OrchestratorIdentity,
  options: CallOptions = {},
): Promise<OrchestratorInfo> {
  const message = await connection.call(
    "GetOrchestrator",
    {
      type: "OrchestratorRequest",
      value: { address: identity.address, sig: identity.sig, ignoreCapacityCheck: true },
    },
    "OrchestratorInfo",
    options,
  );
  return orchestratorInfoOf(message, connection.url);
}

/** The reading of an OrchestratorInfo message; throws NodeEndpointError naming a field that cannot be read. */
export function orchestratorInfoOf(m: OrchestratorInfoMessage, baseUrl = "(message)"): OrchestratorInfo {
  const invalid = (field: string, detail: string) =>
    new NodeEndpointError({
      method: "POST",
      baseUrl,
      endpoint: GET_ORCHESTRATOR,
      reason: "invalid-field",
      field,
      detail: `${field}: ${detail}`,
    });
  const caps = m.capabilities;
  const capabilities = readCapabilities(
    caps
      ? ({
          bitstring: caps.bitstring,
          mandatories: caps.mandatories,
          capacities: caps.capacities,
          version: caps.version,
          constraints: caps.constraints ?? null,
        } as Parameters<typeof readCapabilities>[0])
      : null,
  );
  const price = (p: PriceInfoMessage, field: string): PriceInfo => {
    if (BigInt(p.pixelsPerUnit) <= 0n)
      throw invalid(`${field}.pixelsPerUnit`, `must be > 0, got ${p.pixelsPerUnit}`);
    if (BigInt(p.pricePerUnit) < 0n)
      throw invalid(`${field}.pricePerUnit`, `must be >= 0, got ${p.pricePerUnit}`);
    return { pricePerUnit: p.pricePerUnit, pixelsPerUnit: p.pixelsPerUnit };
  };
  const t = m.ticketParams;
  return {
    serviceUri: m.transcoder || undefined,
    // Off chain the node sends 20 zero bytes: no address.
    address:
      m.address.length === 20 && m.address.some((b) => b !== 0)
        ? `0x${m.address.toString("hex")}`
        : undefined,
    priceInfo: m.priceInfo ? price(m.priceInfo, "price_info") : undefined,
    capabilities,
    capabilityPrices: m.capabilitiesPrices.map((p, i) => ({
      ...price(p, `capabilities_prices[${i}]`),
      capability: p.capability,
      modelId: p.constraint || undefined,
    })),
    ticketParams: t
      ? {
          recipient: `0x${t.recipient.toString("hex")}`,
          faceValue: bytesToBigInt(t.faceValue).toString(),
          winProb: bytesToBigInt(t.winProb).toString(),
          expirationBlock: bytesToBigInt(t.expirationBlock).toString(),
          creationRound: t.expirationParams?.creationRound,
        }
      : undefined,
    gpus: m.hardware.flatMap((h) =>
      Object.values(h.gpuInfo).map((g) => ({
        id: g.id,
        name: g.name,
        memoryTotal: Number(g.memoryTotal),
        memoryFree: Number(g.memoryFree),
      })),
    ),
    message: m,
  };
}
