// A gateway's AI capability caps against the prices the orchestrators serving that capability ask
// (their spec.ai.models price_per_unit), pure, as the video price check does: every one above the
// cap means the node finds nobody to take those requests. Configured prices, so the node's
// -autoAdjustPrice overhead is added; a cap and a price in different units cannot be compared.
import { capPerPixel, comparePrice, PriceInputError } from "../../node/pricing/index.ts";
import type { Finding } from "../../schema/finding.ts";

export interface CapabilityCap {
  pipeline: string;
  modelId?: string | undefined;
  maxPricePerUnit: string;
  pixelsPerUnit: number;
}

export interface ModelPrice {
  orchestrator: string;
  pipeline: string;
  modelId: string;
  /** price_per_unit with its currency appended (as -pricePerUnit takes it), e.g. "4768371" or "0.05USD". */
  pricePerUnit: string;
  pixelsPerUnit: number;
}

export function aiPriceCapTooLow(
  caps: readonly CapabilityCap[],
  prices: readonly ModelPrice[],
): (Omit<Finding, "since"> & { since?: string }) | undefined {
  const problems: string[] = [];
  for (const cap of caps) {
    let limit: ReturnType<typeof capPerPixel>;
    try {
      limit = capPerPixel({ maxPricePerUnit: cap.maxPricePerUnit, pixelsPerUnit: cap.pixelsPerUnit });
    } catch (err) {
      if (err instanceof PriceInputError) continue;
      throw err;
    }
    const offers = prices.filter(
      (p) => p.pipeline === cap.pipeline && (!cap.modelId || cap.modelId === p.modelId),
    );
    const verdicts = offers.map((o) =>
      comparePrice(limit, {
        name: o.orchestrator,
        pricePerUnit: o.pricePerUnit,
        pixelsPerUnit: o.pixelsPerUnit,
        source: "configured",
      }),
    );
    if (verdicts.length === 0 || !verdicts.every((v) => v.verdict === "above")) continue;
    problems.push(
      `${cap.pipeline}${cap.modelId ? ` ${cap.modelId}` : ""}: cap ${cap.maxPricePerUnit} per ${cap.pixelsPerUnit}, but ${verdicts.map((v) => `${v.name} asks ${v.why}`).join(", ")}`,
    );
  }
  if (problems.length === 0) return undefined;
  return {
    id: "AIPriceCapTooLow",
    severity: "warning",
    message: `every orchestrator serving a capped AI capability asks more than the cap: ${problems.join("; ")}. Raise the cap in spec.maxPricePerCapability or use cheaper orchestrators`,
  };
}
