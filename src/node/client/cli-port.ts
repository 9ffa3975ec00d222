// Form POSTs to a node's CLI port that change it while it runs (no restart, no dropped streams).
import { type RequestOptions, requestText } from "./http.ts";

/** POST /setMaxSessions: an integer > 0, or auto (orchestrators with remote transcoders). */
export async function setMaxSessions(
  baseUrl: string,
  maxSessions: number | "auto",
  options: RequestOptions = {},
): Promise<string> {
  return requestText(
    { method: "POST", baseUrl, endpoint: "/setMaxSessions", form: { maxSessions: String(maxSessions) } },
    options,
  );
}

export interface OrchestratorConfig {
  pricePerUnit?: string | number;
  pixelsPerUnit?: string | number;
  currency?: string;
  blockRewardCut?: number;
  feeShare?: number;
  /** Changes the on-chain service URI: a transaction. */
  serviceURI?: string;
}

/** POST /setOrchestratorConfig (the price changes only when both price and pixels are given). */
export async function setOrchestratorConfig(
  baseUrl: string,
  config: OrchestratorConfig,
  options: RequestOptions = {},
): Promise<string> {
  const form: Record<string, string> = {};
  for (const [key, value] of Object.entries(config)) if (value !== undefined) form[key] = String(value);
  return requestText({ method: "POST", baseUrl, endpoint: "/setOrchestratorConfig", form }, options);
}

export interface BroadcastConfig {
  /** -maxPricePerUnit: wei per pixelsPerUnit pixels (0 = any price); with a currency when set. */
  maxPricePerUnit?: string | number;
  pixelsPerUnit?: string | number;
  /** wei (default), eth, or a currency the node converts with its price feed (on chain only). */
  currency?: string;
  /** Rendition presets, e.g. "P240p30fps16x9,P360p30fps16x9". */
  transcodingOptions?: string;
}

/** POST /setBroadcastConfig (a gateway's cap changes only when price and pixels come together). */
export async function setBroadcastConfig(
  baseUrl: string,
  config: BroadcastConfig,
  options: RequestOptions = {},
): Promise<string> {
  return requestText(
    { method: "POST", baseUrl, endpoint: "/setBroadcastConfig", form: formOf(config) },
    options,
  );
}

export interface CapabilityMaxPrice {
  pipeline: string;
  modelID: string;
  maxPricePerUnit: string | number;
  pixelsPerUnit: string | number;
  /** Required by the node: "wei" for plain wei. */
  currency: string;
}

/** POST /setMaxPriceForCapability (gateways; every field required). */
export async function setMaxPriceForCapability(
  baseUrl: string,
  price: CapabilityMaxPrice,
  options: RequestOptions = {},
): Promise<string> {
  return requestText(
    { method: "POST", baseUrl, endpoint: "/setMaxPriceForCapability", form: formOf({ ...price }) },
    options,
  );
}

export interface GatewayPrice {
  /** The gateway's eth address (or "default", the orchestrator's own price). */
  broadcasterEthAddr: string;
  pricePerUnit: string | number;
  pixelsPerUnit: string | number;
  currency?: string;
}

/** POST /setPriceForBroadcaster (orchestrators): a price for one gateway. */
export async function setPriceForBroadcaster(
  baseUrl: string,
  price: GatewayPrice,
  options: RequestOptions = {},
): Promise<string> {
  return requestText(
    { method: "POST", baseUrl, endpoint: "/setPriceForBroadcaster", form: formOf({ ...price }) },
    options,
  );
}

function formOf(values: object): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) form[key] = String(value);
  return form;
}

/** POST /reward: the node calls reward for the current round (a transaction; it waits for it). */
export async function callReward(baseUrl: string, options: RequestOptions = {}): Promise<string> {
  return requestText({ method: "POST", baseUrl, endpoint: "/reward", form: {} }, options);
}

/** POST /fundDepositAndReserve: adds wei amounts to a gateway's TicketBroker deposit and reserve. */
export async function fundDepositAndReserve(
  baseUrl: string,
  amounts: { depositWei: bigint; reserveWei: bigint },
  options: RequestOptions = {},
): Promise<string> {
  return requestText(
    {
      method: "POST",
      baseUrl,
      endpoint: "/fundDepositAndReserve",
      form: { depositAmount: amounts.depositWei.toString(), reserveAmount: amounts.reserveWei.toString() },
    },
    options,
  );
}
