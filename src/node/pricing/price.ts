// A node price as the node reads it (starter.go parsePricePerUnit, core.NewAutoConvertedPrice):
// an amount with an optional currency suffix, per -pixelsPerUnit pixels. No suffix, "wei" and
// "eth" are wei (eth times 1e18, any letter case); any other currency is converted by the node
// with the chain's price feed (-priceFeedAddr), a rate the operator does not read.
import { PRICE_PATTERN } from "../config/rules/price.ts";
import { div, mul, parseDecimal, type Rational, rational } from "./rational.ts";

const WEI_PER_ETH = rational(10n ** 18n);

/** A price per pixel: in wei, or in a currency only the node's price feed can turn into wei. */
export type PerPixel =
  | { unit: "wei"; perPixel: Rational }
  | {
      unit: "currency";
      /** Upper-cased, as the node compares it with the feed's currencies. */
      currency: string;
      perPixel: Rational;
    };

export class PriceInputError extends Error {
  readonly field: string;
  readonly fix: string;
  constructor(field: string, message: string, fix: string) {
    super(`${message}: ${fix}`);
    this.name = "PriceInputError";
    this.field = field;
    this.fix = fix;
  }
}

/** Price per unit and pixels per unit -> price per pixel; bad input throws naming the field. */
export function perPixel(
  price: { value: string; field: string },
  pixels: { value: string | number | bigint; field: string },
): PerPixel {
  const m = PRICE_PATTERN.exec(price.value);
  const amount = m ? parseDecimal(m[1]!) : undefined;
  if (!m || !amount) {
    throw new PriceInputError(
      price.field,
      `${price.field} ${JSON.stringify(price.value)} is not a price`,
      'write wei as a number ("1000") or an amount with a currency ("0.5USD")',
    );
  }
  const pixelsText = String(pixels.value);
  if (!/^\d+$/.test(pixelsText) || BigInt(pixelsText) <= 0n) {
    throw new PriceInputError(
      pixels.field,
      `${pixels.field} ${JSON.stringify(pixelsText)} is not an integer > 0`,
      "give a whole number of pixels > 0, e.g. 1",
    );
  }
  const perPixel = div(amount, rational(BigInt(pixelsText)));
  const currency = (m[3] ?? "").toUpperCase();
  if (currency === "" || currency === "WEI") return { unit: "wei", perPixel };
  if (currency === "ETH") return { unit: "wei", perPixel: mul(perPixel, WEI_PER_ETH) };
  return { unit: "currency", currency, perPixel };
}

/** "wei" or the currency, for messages. */
export function unitName(p: PerPixel): string {
  return p.unit === "wei" ? "wei" : p.currency;
}
