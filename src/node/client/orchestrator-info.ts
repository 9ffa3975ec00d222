// GET /getOrchestratorInfo on an orchestrator's service address: its capabilities and price,
// the only per-orchestrator discovery there is. (The real node answers this over gRPC; the spec
// makes it JSON. Field names are the protobuf JSON names, snake_case or lowerCamel.)
import { z } from "zod";
import { type NodeCapabilities, readCapabilities } from "./capabilities-read.ts";
import { getJson, type RequestOptions } from "./http.ts";
import { OrchestratorInfoSchema } from "./schemas.ts";

export interface PriceInfo {
  pricePerUnit: number;
  pixelsPerUnit: number;
}

export interface OrchestratorInfo {
  /** The service URI the orchestrator advertises. */
  serviceUri: string | undefined;
  priceInfo: PriceInfo | undefined;
  capabilities: NodeCapabilities;
  /** Per-capability (AI) prices; modelId from the price's constraint. */
  capabilityPrices: (PriceInfo & { capability: number; modelId: string | undefined })[];
  simulated: boolean;
  raw: Record<string, unknown>;
}

const CAMEL_TO_SNAKE: Record<string, string> = {
  priceInfo: "price_info",
  ticketParams: "ticket_params",
  capabilitiesPrices: "capabilities_prices",
  authToken: "auth_token",
};

const InfoSchema = z.preprocess((body) => {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const [camel, snake] of Object.entries(CAMEL_TO_SNAKE)) {
    if (out[snake] === undefined && out[camel] !== undefined) out[snake] = out[camel];
  }
  return out;
}, OrchestratorInfoSchema);

export async function readOrchestratorInfo(
  baseUrl: string,
  options: RequestOptions = {},
): Promise<OrchestratorInfo> {
  const info = await getJson(baseUrl, "/getOrchestratorInfo", InfoSchema, options);
  return {
    serviceUri: info.transcoder || undefined,
    priceInfo: info.price_info ? priceOf(info.price_info) : undefined,
    capabilities: readCapabilities(info.capabilities),
    capabilityPrices: info.capabilities_prices.map((p) => ({
      ...priceOf(p),
      capability: p.capability ?? 0,
      modelId: p.constraint || undefined,
    })),
    simulated: info.Simulated === true,
    raw: info as Record<string, unknown>,
  };
}

export function priceOf(p: {
  pricePerUnit?: number | undefined;
  pixelsPerUnit?: number | undefined;
}): PriceInfo {
  return { pricePerUnit: p.pricePerUnit ?? 0, pixelsPerUnit: p.pixelsPerUnit ?? 1 };
}
