// -autoAdjustPrice (on by default): an on-chain orchestrator advertises its price plus the cost of
// redeeming the winning tickets that pay it (core/orchestrator.go priceInfo):
//   advertised = floor(base * (1 + txCost / faceValue) * 1000) / 1000 wei per pixel,
// where txCost = redeemGas * gas price and faceValue = txCost * 100 (pm's txCostMultiplier),
// raised to ticketEV * 100 when that is larger and lowered to the gateway's max float (its reserve
// share) or -maxFaceValue when those are smaller.
//
// What the operator can know: the base price (spec or flags) and the nominal overhead 1 + 1/100,
// i.e. 1 %, which holds whenever the gateway's reserve covers the default face value. What it
// cannot know: the gas price of the moment and the gateway's reserve as this orchestrator sees it;
// a small reserve lowers the face value and raises the overhead (up to 2x and beyond), and a very
// low gas price lowers it towards 0 %. So the advertised price is never below the base price, the
// nominal 1 % is the best estimate, and only the node's own answer (GetOrchestrator's
// price_info, already adjusted) is exact.
import { floor, mul, type Rational, rational } from "./rational.ts";

/** pm's txCostMultiplier: the default face value is 100 times the redemption cost. */
export const TX_COST_MULTIPLIER = 100n;

/** 1 + 1/txCostMultiplier. */
export const NOMINAL_TICKET_OVERHEAD: Rational = rational(TX_COST_MULTIPLIER + 1n, TX_COST_MULTIPLIER);

/** common.PriceToFixed: the node keeps 3 decimals of wei per pixel, truncated. */
const PRICE_SCALE = 1000n;

/** The price per pixel an orchestrator with this base price advertises (the nominal estimate). */
export function advertisedPerPixel(base: Rational, autoAdjustPrice: boolean): Rational {
  if (!autoAdjustPrice) return base;
  if (base.num === 0n) return base; // the node adds no overhead to a free price
  return rational(floor(mul(mul(base, NOMINAL_TICKET_OVERHEAD), rational(PRICE_SCALE))), PRICE_SCALE);
}
