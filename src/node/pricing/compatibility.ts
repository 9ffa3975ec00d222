// What a Gateway's PriceCompatible condition says: its cap against every orchestrator it was given.
// None within the cap is an error (the gateway gets no acceptances: "Orchestrator ... is above max
// price" in its log, then "No sessions available"); some above it is a warning; prices that cannot
// be compared (another currency) leave the answer Unknown rather than guessed.
import {
  capPerPixel,
  comparePrice,
  describePerPixel,
  type GatewayPriceCap,
  type OrchestratorPrice,
  type PriceVerdict,
} from "./compare.ts";
import type { PerPixel } from "./price.ts";
import { ceil, compare, decimalCeil, mul, rational } from "./rational.ts";

export type PriceCompatibilityReason =
  | "AnyPrice"
  | "PriceCompatible"
  | "PriceCapBelowSome"
  | "PriceCapBelowOrchestrators"
  | "PriceUnknown"
  | "NoOrchestrators";

export interface PriceCompatibility {
  /** The condition's status. */
  status: "True" | "False" | "Unknown";
  reason: PriceCompatibilityReason;
  /** Finding severity: error when nothing is within the cap, warning when some orchestrators are above it. */
  severity: "none" | "warning" | "error";
  message: string;
  compatible: "all" | "some" | "none" | "unknown";
  verdicts: PriceVerdict[];
  /** When none is within the cap: the cheapest orchestrator and what it asks per pixel. */
  cheapest?: { name: string; perPixel: string };
  /** The smallest cap, in the gateway's own pixelsPerUnit, that reaches the cheapest orchestrator. */
  capToReach?: { maxPricePerUnit: string; pixelsPerUnit: string };
}

const names = (vs: PriceVerdict[]) => vs.map((v) => v.name).join(", ");
const detail = (vs: PriceVerdict[]) => vs.map((v) => `${v.name}: ${v.why}`).join("; ");

/** Bad gateway input throws a PriceInputError naming the field; a bad orchestrator price is Unknown. */
export function priceCompatibility(
  cap: GatewayPriceCap,
  orchestrators: OrchestratorPrice[],
): PriceCompatibility {
  const limit = capPerPixel(cap);
  const pixels = String(cap.pixelsPerUnit ?? 1);
  const verdicts = orchestrators.map((o) => comparePrice(limit, o));
  const base = { verdicts };
  if (verdicts.length === 0) {
    return {
      ...base,
      status: "Unknown",
      reason: "NoOrchestrators",
      severity: "none",
      compatible: "unknown",
      message: "no orchestrators to compare the price cap with",
    };
  }
  if (limit === "any") {
    return {
      ...base,
      status: "True",
      reason: "AnyPrice",
      severity: "none",
      compatible: "all",
      message: `maxPricePerUnit ${cap.maxPricePerUnit} accepts any price`,
    };
  }
  const capText = `the cap ${cap.maxPricePerUnit} per ${pixels} pixel(s) (${describePerPixel(limit)})`;
  const within = verdicts.filter((v) => v.verdict === "within");
  const above = verdicts.filter((v) => v.verdict === "above");
  const unknown = verdicts.filter((v) => v.verdict === "unknown");
  const unknownText = unknown.length ? `; cannot compare ${detail(unknown)}` : "";

  if (within.length === verdicts.length) {
    return {
      ...base,
      status: "True",
      reason: "PriceCompatible",
      severity: "none",
      compatible: "all",
      message: `every orchestrator is within ${capText}: ${detail(within)}`,
    };
  }
  if (within.length > 0) {
    return {
      ...base,
      status: "True",
      reason: above.length ? "PriceCapBelowSome" : "PriceCompatible",
      severity: above.length ? "warning" : "none",
      compatible: "some",
      message:
        `work goes only to ${names(within)}, within ${capText}` +
        (above.length ? `; above it: ${detail(above)}` : "") +
        unknownText,
    };
  }
  if (unknown.length > 0) {
    return {
      ...base,
      status: "Unknown",
      reason: "PriceUnknown",
      severity: "none",
      compatible: "unknown",
      message:
        (above.length ? `${names(above)} ${above.length === 1 ? "is" : "are"} above ${capText}` : capText) +
        unknownText,
    };
  }
  const cheapest = above.reduce((a, b) => (compare(b.expected!.perPixel, a.expected!.perPixel) < 0 ? b : a));
  const reach = capToReach(cheapest.expected!, pixels, limit);
  return {
    ...base,
    status: "False",
    reason: "PriceCapBelowOrchestrators",
    severity: "error",
    compatible: "none",
    cheapest: { name: cheapest.name, perPixel: describePerPixel(cheapest.expected!) },
    capToReach: { maxPricePerUnit: reach, pixelsPerUnit: pixels },
    message:
      `${capText} is below every orchestrator's price, so the gateway gets no acceptances; the cheapest is ${cheapest.name} at ${cheapest.why}: ` +
      `set maxPricePerUnit to ${reach} (pixelsPerUnit ${pixels}) or more, or use cheaper orchestrators`,
  };
}

/** price per pixel * the gateway's pixels per unit, rounded up, in the cap's own unit. */
function capToReach(price: PerPixel, pixels: string, cap: PerPixel): string {
  const perUnit = mul(price.perPixel, rational(BigInt(pixels)));
  return cap.unit === "wei" ? ceil(perUnit).toString() : `${decimalCeil(perUnit)}${cap.currency}`;
}
