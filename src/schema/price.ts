// Prices as the node's flags take them: wei, or an amount with a currency suffix.
import { z } from "zod";

/** The node's own pattern (`-pricePerUnit`), with `[A-z]` narrowed to letters. */
export const PRICE_PATTERN = /^[0-9]+(\.[0-9]+)?([A-Za-z][A-Za-z0-9]*)?$/;

export function priceSchema(field: string) {
  return z
    .string({
      error: (iss) =>
        typeof iss.input === "number"
          ? `${field} must be a string: quote it, for example "${iss.input}"`
          : `${field} must be a string such as "1000" (wei) or "0.5USD"`,
    })
    .max(64)
    .regex(PRICE_PATTERN, {
      error: (iss) =>
        `${field} ${JSON.stringify(iss.input)} is not a price: write wei as a whole number ("1000") or an amount with a currency suffix ("0.5USD")`,
    });
}
