// Gateway price caps against orchestrator prices, exactly (wei per pixel as BigInt fractions),
// with the node's currency rules and -autoAdjustPrice overhead: the policy behind a Gateway's
// PriceCompatible condition. Pure functions; no I/O.
export type { GatewayPriceCap, OrchestratorPrice, PriceVerdict } from "./compare.ts";
export { capPerPixel, comparePrice, describePerPixel, expectedPerPixel } from "./compare.ts";
export type { PriceCompatibility, PriceCompatibilityReason } from "./compatibility.ts";
export { priceCompatibility } from "./compatibility.ts";
export type { PerPixel } from "./price.ts";
export { PriceInputError, perPixel } from "./price.ts";
export type { Rational } from "./rational.ts";
export { compare, floatString, rational, ratText } from "./rational.ts";
export { advertisedPerPixel, NOMINAL_TICKET_OVERHEAD, TX_COST_MULTIPLIER } from "./ticket-overhead.ts";
