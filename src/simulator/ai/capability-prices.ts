// A gateway's -maxPricePerCapability (starter.go getCapabilityPrices): JSON inline or in a file,
// {"capabilities_prices": [{"pipeline", "model_id" (absent: "default", every model),
// "price_per_unit", "pixels_per_unit", "currency"}]}, turned into the node's
// /setMaxPriceForCapability fields so both paths share one set of checks and log lines.
import { readFileSync, statSync } from "node:fs";

export interface CapabilityPriceCap {
  pipeline: string;
  modelID: string;
  maxPricePerUnit: string;
  pixelsPerUnit: string;
  currency: string;
}

export type CapabilityPricesResult = { caps: CapabilityPriceCap[]; skipped: string[] } | { error: string };

/** common.ReadFromFile: a path that names a file gives its content, anything else is the text itself. */
function contentOf(value: string): string {
  try {
    if (statSync(value).isFile()) return readFileSync(value, "utf8");
  } catch {
    // not a file: the value is the JSON
  }
  return value;
}

/** A JSON number or a numeric string, as core.JSONRat reads them; undefined when absent. */
function ratText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "string" && /^-?\d+(\.\d+)?(\/\d+)?$/.test(value.trim())) return value.trim();
  throw new Error(`invalid price value ${JSON.stringify(value)}`);
}

export function parseCapabilityPrices(
  flag: string,
  defaults: { maxPricePerUnit: string; pixelsPerUnit: string },
): CapabilityPricesResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(contentOf(flag));
  } catch (err) {
    return { error: `model prices could not be parsed: ${(err as Error).message}` };
  }
  const list = (parsed as { capabilities_prices?: unknown })?.capabilities_prices;
  if (list !== undefined && !Array.isArray(list)) {
    return { error: "model prices could not be parsed: capabilities_prices must be a JSON array" };
  }
  const caps: CapabilityPriceCap[] = [];
  const skipped: string[] = [];
  for (const item of (list ?? []) as Record<string, unknown>[]) {
    let price: string | undefined;
    let pixels: string | undefined;
    try {
      price = ratText(item.price_per_unit);
      pixels = ratText(item.pixels_per_unit);
    } catch (err) {
      return { error: `model prices could not be parsed: ${(err as Error).message}` };
    }
    const pipeline = String(item.pipeline ?? "");
    const modelID = typeof item.model_id === "string" && item.model_id !== "" ? item.model_id : "default";
    if (pixels === undefined || Number(pixels) <= 0) pixels = defaults.pixelsPerUnit;
    if (price === undefined || Number(price) <= 0) {
      if (Number(defaults.maxPricePerUnit) > 0) price = defaults.maxPricePerUnit;
      else {
        skipped.push(
          `Maximum price per unit for capability=${pipeline} model_id=${modelID} in 'maxPricePerCapability' config is not greater than 0, and 'maxPricePerUnit' not set, gateway is currently set to accept ANY price.`,
        );
        continue;
      }
    }
    const currency = typeof item.currency === "string" && item.currency !== "" ? item.currency : "wei";
    caps.push({ pipeline, modelID, maxPricePerUnit: price, pixelsPerUnit: pixels, currency });
  }
  return { caps, skipped };
}

/** Start-up: the flag's caps into the gateway's caps, with the node's lines (starter.go). */
export function applyCapabilityPrices(
  flags: { maxPricePerCapability?: string; maxPricePerUnit?: string; pixelsPerUnit?: string },
  caps: {
    setMaxPriceForCapability(form: URLSearchParams, isGateway: boolean): { status: number; text: string };
  },
  onChain: boolean,
  log: (level: "I" | "W" | "E", where: string, message: string) => void,
): void {
  if (!flags.maxPricePerCapability) return;
  const parsed = parseCapabilityPrices(flags.maxPricePerCapability, {
    maxPricePerUnit: flags.maxPricePerUnit ?? "0",
    pixelsPerUnit: flags.pixelsPerUnit ?? "1",
  });
  if ("error" in parsed) {
    log("E", "starter.go:2464", parsed.error);
    return;
  }
  for (const line of parsed.skipped) log("W", "starter.go:1204", line);
  for (const cap of parsed.caps) {
    const lower = cap.currency.toLowerCase();
    if (!onChain && lower !== "wei" && lower !== "eth") {
      log(
        "W",
        "simulator.go:24",
        `Simulated: the cap for capability=${cap.pipeline} model_id=${cap.modelID} is in ${cap.currency}, which needs the chain's price feed: not applied off chain`,
      );
      continue;
    }
    caps.setMaxPriceForCapability(new URLSearchParams({ ...cap }), true);
  }
}
