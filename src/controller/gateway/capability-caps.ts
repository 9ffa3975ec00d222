// A gateway's AI price caps (-maxPricePerCapability) as a live setting: the node reads the JSON
// file at start, and takes one capability's cap at a time on its CLI port while it runs
// (`POST /setMaxPriceForCapability`). A cap removed from the spec cannot be removed from a running
// node: that change restarts the pod instead (the call refuses, and the fallback restarts it).
import { setMaxPriceForCapability } from "../../node/client/index.ts";
import type { LiveSetting } from "../live/settings.ts";
import { MAX_PRICE_PER_CAPABILITY_FILE } from "./flags.ts";

interface CapEntry {
  pipeline: string;
  model_id: string;
  price_per_unit: number | string;
  pixels_per_unit: number;
  currency?: string;
}

const entries = (value: string): CapEntry[] =>
  (JSON.parse(value) as { capabilities_prices?: CapEntry[] }).capabilities_prices ?? [];
const keyOf = (e: CapEntry) => `${e.pipeline}/${e.model_id}`;

export const GATEWAY_CAPABILITY_CAPS: LiveSetting = {
  what: "capability price caps",
  annotation: "livepeer.org/max-price-per-capability",
  // The flag names the file, whose path never changes: the file is what changes.
  flags: [],
  valueOf: (_flags, files) =>
    JSON.stringify(JSON.parse(files[MAX_PRICE_PER_CAPABILITY_FILE] ?? '{"capabilities_prices":[]}')),
  endpoint: "/setMaxPriceForCapability",
  async set(url, change, options) {
    const before = entries(change.from);
    const after = entries(change.to);
    const removed = before.filter((b) => !after.some((a) => keyOf(a) === keyOf(b)));
    if (removed.length) {
      throw new Error(`a running node cannot drop a capability's cap (${removed.map(keyOf).join(", ")})`);
    }
    for (const e of after) {
      if (before.some((b) => JSON.stringify(b) === JSON.stringify(e))) continue;
      await setMaxPriceForCapability(
        url,
        {
          pipeline: e.pipeline,
          modelID: e.model_id,
          maxPricePerUnit: e.price_per_unit,
          pixelsPerUnit: e.pixels_per_unit,
          currency: e.currency ?? "wei",
        },
        options,
      );
    }
  },
  events: {
    done: "CapabilityPriceCapsSetLive",
    failed: "CapabilityPriceCapsNotSetLive",
    action: "SetMaxPriceForCapability",
  },
};
