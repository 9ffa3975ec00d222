// Amounts typed by people, in ETH (or LPT) units, parsed with ethers' parseEther after a strict
// check: anything that could mean two things (a sign, an exponent, a comma, a unit, a 19th
// decimal) is refused with the reason rather than guessed at.
import { parseEther } from "ethers";

export class AmountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AmountError";
  }
}

const DECIMAL = /^\d+(\.\d+)?$/;

/** Wei for a decimal amount of ETH like "0.5" or "10"; `what` names the option in errors. */
export function parseEthAmount(input: string, what: string, unit = "ETH"): bigint {
  const text = input.trim();
  const bad = (why: string) => new AmountError(`${what}: '${input}' ${why}`);
  if (text === "") throw bad(`is empty: give an amount of ${unit}, like 0.5`);
  if (text.startsWith("-")) throw bad("is negative: amounts are 0 or more");
  if (/^\d+,\d+$/.test(text)) throw bad(`uses ',' as decimal point: write ${text.replace(",", ".")}`);
  if (/[eE]/.test(text) && /^[\d.]+[eE][-+]?\d+$/.test(text))
    throw bad("has an exponent: write the amount out, like 1000");
  if (/^0x/i.test(text)) throw bad(`is hexadecimal: give a decimal amount of ${unit}, like 0.5`);
  if (/[a-z]/i.test(text)) throw bad(`is not a number: amounts are in ${unit}, without a unit, like 0.5`);
  if (!DECIMAL.test(text)) throw bad(`is not a decimal amount of ${unit}: write it like 0.5 or 10`);
  const decimals = text.split(".")[1] ?? "";
  if (decimals.length > 18) throw bad(`has ${decimals.length} decimals: ${unit} has 18`);
  return parseEther(text);
}

/**
 * `--deposit -1` reads to a command-line parser as two options; find that case first so the
 * user hears "negative", not "ambiguous option".
 */
export function negativeAmountOption(args: string[], options: string[]): AmountError | undefined {
  for (let i = 0; i < args.length - 1; i++) {
    const next = args[i + 1]!;
    if (options.includes(args[i]!) && /^-[\d.]/.test(next)) {
      return new AmountError(`${args[i]}: '${next}' is negative: amounts are 0 or more`);
    }
  }
  return undefined;
}
