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
