// GET /getNetworkCapabilities (CLI port): the capabilities registered with the node. The spec
// serves it on the orchestrator; the real node answers it on gateways (a 400 elsewhere).
import { type NodeCapabilities, readCapabilities } from "./capabilities-read.ts";
import { getJson, type RequestOptions } from "./http.ts";
import type { PriceInfo } from "./orchestrator-info.ts";
import { NetworkCapabilitiesSchema } from "./schemas.ts";

export interface NetworkOrchestrator {
  address: string;
  localAddress: string | undefined;
  orchUri: string | undefined;
  capabilities: NodeCapabilities;
  priceInfo: PriceInfo | undefined;
}

export interface NetworkCapabilities {
  /** Capability number -> the node's name for it. */
  capabilityNames: Record<number, string>;
  orchestrators: NetworkOrchestrator[];
  simulated: boolean;
}

export async function readNetworkCapabilities(
  baseUrl: string,
  options: RequestOptions = {},
): Promise<NetworkCapabilities> {
  const body = await getJson(baseUrl, "/getNetworkCapabilities", NetworkCapabilitiesSchema, options);
  const capabilityNames: Record<number, string> = {};
  for (const [id, name] of Object.entries(body.capabilities_names ?? {})) capabilityNames[Number(id)] = name;
  return {
    capabilityNames,
    orchestrators: (body.orchestrators ?? []).map((o) => ({
      address: o.address,
      localAddress: o.local_address || undefined,
      orchUri: o.orch_uri || undefined,
      capabilities: readCapabilities(o.capabilities),
      priceInfo: o.price_info
        ? {
            pricePerUnit: String(o.price_info.pricePerUnit ?? 0),
            pixelsPerUnit: String(o.price_info.pixelsPerUnit ?? 1),
          }
        : undefined,
    })),
    simulated: body.Simulated === true,
  };
}
