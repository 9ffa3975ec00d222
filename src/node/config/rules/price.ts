// Prices, parsed as the node parses them (starter.go parsePricePerUnit and -pixelsPerUnit checks).
import { type FlagRule, problem } from "../problem.ts";
import { flagText } from "../read.ts";

/** The node's own price pattern: a number with an optional currency suffix (e.g. 0.5USD). */
export const PRICE_PATTERN = /^(\d+(\.\d+)?)([A-z][A-z0-9]*)?$/;

export const pricePerUnit: FlagRule = ({ values, role, roles, onChain }) => {
  const price = flagText(values, "pricePerUnit");
  if (price === undefined) {
    return role === "orchestrator" && onChain && !roles.includes("aiWorker")
      ? [
          problem(
            "pricePerUnit",
            "error",
            "an on-chain orchestrator without -pricePerUnit: the node refuses to start (it would work for free)",
            "set -pricePerUnit to wei per -pixelsPerUnit pixels, or a currency price such as 0.5USD",
          ),
        ]
      : [];
  }
  return PRICE_PATTERN.test(price)
    ? []
    : [
        problem(
          "pricePerUnit",
          "error",
          `-pricePerUnit ${price} is not a price: the node exits`,
          "give wei as a number (1000) or a number with a currency (0.5USD)",
        ),
      ];
};

export const pixelsPerUnit: FlagRule = ({ values }) => {
  const pixels = flagText(values, "pixelsPerUnit");
  if (pixels === undefined || (/^\d+$/.test(pixels) && BigInt(pixels) > 0n)) return [];
  return [
    problem(
      "pixelsPerUnit",
      "error",
      `-pixelsPerUnit ${pixels} is not an integer > 0: the node exits`,
      "give a whole number of pixels > 0, e.g. 1",
    ),
  ];
};

export const maxPricePerUnit: FlagRule = ({ values }) => {
  const cap = flagText(values, "maxPricePerUnit");
  if (cap === undefined || /^\d+$/.test(cap)) return [];
  const m = PRICE_PATTERN.exec(cap);
  if (m?.[3]) return [];
  return [
    problem(
      "maxPricePerUnit",
      "error",
      `-maxPricePerUnit ${cap} is neither whole wei nor a currency price`,
      "give an integer >= 0 in wei (0 = any price), or a number with a currency such as 0.02USD",
    ),
  ];
};
