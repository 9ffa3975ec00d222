// One orchestrator's price against a gateway's cap, in price per pixel on both sides (each side
// divides by its own -pixelsPerUnit), exactly. A gateway accepts an orchestrator whose advertised
// price per pixel is <= its cap (server/selection_algorithm.go filterByMaxPrice).
import { type PerPixel, PriceInputError, perPixel, unitName } from "./price.ts";
import { compare, floatString, isZero, mul, type Rational } from "./rational.ts";
import { advertisedPerPixel, NOMINAL_TICKET_OVERHEAD } from "./ticket-overhead.ts";

export interface GatewayPriceCap {
  /** -maxPricePerUnit: wei, or an amount with a currency; "0" accepts any price. */
  maxPricePerUnit: string;
  /** -pixelsPerUnit of the gateway (default 1). */
  pixelsPerUnit?: string | number | bigint;
}

export interface OrchestratorPrice {
  name: string;
  pricePerUnit: string;
  pixelsPerUnit?: string | number | bigint;
  /**
   * advertised: the node's own answer (GetOrchestrator price_info), ticket overhead included;
   * configured: the spec or the flags, to which the node adds the overhead with -autoAdjustPrice.
   */
  source: "advertised" | "configured";
  /** -autoAdjustPrice of the orchestrator (the node's default: true). Only for configured prices. */
  autoAdjustPrice?: boolean;
}

export interface PriceVerdict {
  name: string;
  verdict: "within" | "above" | "unknown";
  /** The price per pixel the gateway is expected to see (absent when it cannot be read). */
  expected?: PerPixel;
  /** Why, in a phrase that names the numbers. */
  why: string;
}

/** The gateway's cap per pixel, or "any" for 0. Bad input throws a PriceInputError. */
export function capPerPixel(cap: GatewayPriceCap): PerPixel | "any" {
  const parsed = perPixel(
    { value: cap.maxPricePerUnit, field: "maxPricePerUnit" },
    { value: cap.pixelsPerUnit ?? 1, field: "pixelsPerUnit" },
  );
  // The node treats a cap that is not > 0 as "accept any price" (starter.go, handlers.go).
  return isZero(parsed.perPixel) ? "any" : parsed;
}

/** "171.429 wei/pixel": exact when whole, else 3 decimals of wei as the node logs them (8 of a currency). */
export function describePerPixel(p: PerPixel): string {
  const n = p.perPixel;
  const text =
    n.den === 1n ? n.num.toString() : floatString(n, p.unit === "wei" ? 3 : 8).replace(/\.?0+$/, "");
  return `${text} ${unitName(p)}/pixel`;
}

/** What the gateway will see of this orchestrator's price, per pixel. */
export function expectedPerPixel(offer: OrchestratorPrice): { expected: PerPixel; base: PerPixel } {
  const base = perPixel(
    { value: offer.pricePerUnit, field: `${offer.name} pricePerUnit` },
    { value: offer.pixelsPerUnit ?? 1, field: `${offer.name} pixelsPerUnit` },
  );
  const adjust = offer.source === "configured" && offer.autoAdjustPrice !== false;
  if (!adjust) return { expected: base, base };
  // In wei the node truncates to 1/1000 wei; in a currency the truncation happens after conversion.
  const perPixelValue: Rational =
    base.unit === "wei"
      ? advertisedPerPixel(base.perPixel, true)
      : isZero(base.perPixel)
        ? base.perPixel
        : mul(base.perPixel, NOMINAL_TICKET_OVERHEAD);
  return { expected: { ...base, perPixel: perPixelValue }, base };
}

export function comparePrice(cap: PerPixel | "any", offer: OrchestratorPrice): PriceVerdict {
  let expected: PerPixel;
  let base: PerPixel;
  try {
    ({ expected, base } = expectedPerPixel(offer));
  } catch (err) {
    if (!(err instanceof PriceInputError)) throw err;
    return { name: offer.name, verdict: "unknown", why: `its price cannot be read (${err.message})` };
  }
  const seen = describePerPixel(expected);
  const adjusted = expected !== base && compare(expected.perPixel, base.perPixel) !== 0;
  const withOverhead = adjusted
    ? ` (${describePerPixel(base)} plus the nominal 1 % ticket overhead of -autoAdjustPrice)`
    : "";
  if (cap === "any") {
    return { name: offer.name, verdict: "within", expected, why: `${seen}; the gateway accepts any price` };
  }
  if (unitName(cap) !== unitName(expected)) {
    return {
      name: offer.name,
      verdict: "unknown",
      expected,
      why: `its price is in ${unitName(expected)} and the cap in ${unitName(cap)}: the nodes convert between them with the chain's price feed (-priceFeedAddr), which the operator does not read`,
    };
  }
  const order = compare(expected.perPixel, cap.perPixel);
  if (order <= 0) return { name: offer.name, verdict: "within", expected, why: `${seen}${withOverhead}` };
  const overheadOnly = adjusted && compare(base.perPixel, cap.perPixel) <= 0;
  return {
    name: offer.name,
    verdict: "above",
    expected,
    why: overheadOnly
      ? `${seen}: its base price ${describePerPixel(base)} is within the cap, but the 1 % ticket overhead of -autoAdjustPrice takes it above`
      : `${seen}${withOverhead}`,
  };
}
