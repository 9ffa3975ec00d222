// The live settings of the node roles (data for settings.ts): what each is called, where it is
// recorded, and which CLI endpoint sets it on a running node.
import { setBroadcastConfig, setMaxSessions, setOrchestratorConfig } from "../../node/client/index.ts";
import type { FlagValues } from "../../node/config/index.ts";
import type { LiveSetting } from "./settings.ts";

const str = (v: FlagValues[string] | undefined) => (v === undefined ? undefined : String(v));

/** "0.5USD" -> amount 0.5, currency USD: the CLI endpoints take them apart (wei: no currency). */
export function priceParts(price: string): { amount: string; currency?: string } {
  const m = /^(\d+(?:\.\d+)?)([A-Za-z][A-Za-z0-9]*)$/.exec(price);
  return m ? { amount: m[1]!, currency: m[2]! } : { amount: price };
}

/** The form fields of a price: amount, pixels and, when the price has one, its currency. */
function priceForm(
  field: "pricePerUnit" | "maxPricePerUnit",
  price: string,
  pixels: FlagValues[string] | undefined,
) {
  const { amount, currency } = priceParts(price);
  return { [field]: amount, pixelsPerUnit: String(pixels ?? 1), ...(currency ? { currency } : {}) };
}

/** `-maxSessions`: an integer a node takes live (`auto` belongs to the split setup's transcoders). */
export const SESSION_LIMIT: LiveSetting = {
  what: "session limit",
  annotation: "livepeer.org/max-sessions",
  flags: ["maxSessions"],
  valueOf: (f) => {
    const v = str(f.maxSessions);
    return v !== undefined && /^[1-9]\d*$/.test(v) ? v : undefined;
  },
  endpoint: "/setMaxSessions",
  set: (url, { flags: f }, o) => setMaxSessions(url, Number(f.maxSessions), o),
  events: { done: "SessionLimitSetLive", failed: "SessionLimitNotSetLive", action: "SetMaxSessions" },
};

/** An orchestrator's `-pricePerUnit`/`-pixelsPerUnit` (the node changes its price only when given both). */
export const ORCHESTRATOR_PRICE: LiveSetting = {
  what: "price",
  annotation: "livepeer.org/price",
  flags: ["pricePerUnit", "pixelsPerUnit"],
  valueOf: (f) => (f.pricePerUnit === undefined ? undefined : `${f.pricePerUnit}/${f.pixelsPerUnit ?? 1}`),
  endpoint: "/setOrchestratorConfig",
  set: (url, { flags: f }, o) =>
    setOrchestratorConfig(url, priceForm("pricePerUnit", String(f.pricePerUnit), f.pixelsPerUnit), o),
  events: { done: "PriceSetLive", failed: "PriceNotSetLive", action: "SetOrchestratorConfig" },
};

/** A gateway's `-maxPricePerUnit`/`-pixelsPerUnit` (absent: any price, "0"). */
export const GATEWAY_PRICE_CAP: LiveSetting = {
  what: "price cap",
  annotation: "livepeer.org/max-price",
  flags: ["maxPricePerUnit", "pixelsPerUnit"],
  valueOf: (f) => `${f.maxPricePerUnit ?? "0"}/${f.pixelsPerUnit ?? 1}`,
  endpoint: "/setBroadcastConfig",
  set: (url, { flags: f }, o) =>
    setBroadcastConfig(
      url,
      priceForm("maxPricePerUnit", String(f.maxPricePerUnit ?? "0"), f.pixelsPerUnit),
      o,
    ),
  events: { done: "PriceCapSetLive", failed: "PriceCapNotSetLive", action: "SetBroadcastConfig" },
};
