// The price a simulated orchestrator advertises (OrchestratorInfo price_info) and reports
// (/status BroadcasterPrices), as core/orchestrator.go priceInfo works it out on chain: the price
// for that gateway (-pricePerGateway, /setPriceForBroadcaster) or the default, per pixel, plus the
// ticket overhead with -autoAdjustPrice (the nominal 1 %: the simulator has no gas price and no
// gateway reserve to work out the real one). A currency price needs the chain's price feed, which
// the simulator does not read: no price_info then. Off chain the node advertises no price at all
// (core/orchestrator.go PriceInfo: no ticket recipient, nil price), and neither does the simulator.
import { perPixel } from "../node/pricing/price.ts";
import { type Rational, ratText } from "../node/pricing/rational.ts";
import { advertisedPerPixel } from "../node/pricing/ticket-overhead.ts";
import type { NodeModel } from "./node-model.ts";
import type { SimulatorState } from "./state.ts";

/** price_info: the node's big.Rat as num/den (int64 each on the wire). */
export interface PriceInfo {
  pricePerUnit: bigint;
  pixelsPerUnit: bigint;
}

function basePrice(state: SimulatorState, sender: string | undefined) {
  return (
    (sender ? state.broadcasterPrices.get(sender.toLowerCase()) : undefined) ?? {
      pricePerUnit: state.pricePerUnit,
      pixelsPerUnit: state.pixelsPerUnit,
    }
  );
}

/** Wei per pixel without the overhead, or undefined for a currency price. */
function weiPerPixel(price: { pricePerUnit: string; pixelsPerUnit: string }): Rational | undefined {
  try {
    const p = perPixel(
      { value: price.pricePerUnit, field: "pricePerUnit" },
      { value: price.pixelsPerUnit, field: "pixelsPerUnit" },
    );
    return p.unit === "wei" ? p.perPixel : undefined;
  } catch {
    return undefined;
  }
}

export function advertisedPriceInfo(
  node: NodeModel,
  state: SimulatorState,
  sender?: string,
): PriceInfo | undefined {
  if (node.network === "offchain") return undefined;
  const price = basePrice(state, sender);
  const base = weiPerPixel(price);
  if (!base) return undefined;
  const advertised = advertisedPerPixel(base, node.flags.autoAdjustPrice !== false);
  return { pricePerUnit: advertised.num, pixelsPerUnit: advertised.den };
}

/** /status BroadcasterPrices: per gateway address ("default" on chain), wei per pixel as Go's Rat text. */
export function broadcasterPrices(node: NodeModel, state: SimulatorState): Record<string, string> {
  const out: Record<string, string> = {};
  const own = node.network === "offchain" ? undefined : weiPerPixel(basePrice(state, undefined));
  if (own) out.default = ratText(own);
  for (const [address, price] of state.broadcasterPrices) {
    const p = weiPerPixel(price);
    if (p) out[address] = ratText(p);
  }
  return out;
}
