// Exact fractions over BigInt, as go-livepeer keeps prices (math/big.Rat): wei per pixel is rarely
// a whole number (1200 wei per 7 pixels), and floats would decide compatibility on rounding noise.

export interface Rational {
  readonly num: bigint;
  /** Always > 0; num/den is in lowest terms. */
  readonly den: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

export function rational(num: bigint, den = 1n): Rational {
  if (den === 0n) throw new RangeError("division by zero");
  const sign = den < 0n ? -1n : 1n;
  const g = gcd(num, den) || 1n;
  return { num: (sign * num) / g, den: (sign * den) / g };
}

export const ZERO = rational(0n);
export const ONE = rational(1n);

/** A plain decimal as Go's big.Rat SetString reads it here: digits with an optional fraction. */
export function parseDecimal(text: string): Rational | undefined {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return undefined;
  const fraction = m[2] ?? "";
  return rational(BigInt(`${m[1]}${fraction}`), 10n ** BigInt(fraction.length));
}

export const add = (a: Rational, b: Rational) => rational(a.num * b.den + b.num * a.den, a.den * b.den);
export const mul = (a: Rational, b: Rational) => rational(a.num * b.num, a.den * b.den);
export const div = (a: Rational, b: Rational) => rational(a.num * b.den, a.den * b.num);

/** -1, 0 or 1 as a < b, a = b, a > b. */
export function compare(a: Rational, b: Rational): -1 | 0 | 1 {
  const d = a.num * b.den - b.num * a.den;
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

export const isZero = (a: Rational) => a.num === 0n;

/** The smallest integer >= a. */
export function ceil(a: Rational): bigint {
  const q = a.num / a.den;
  return a.num % a.den === 0n || a.num < 0n ? q : q + 1n;
}

/** The largest integer <= a (for a >= 0). */
export function floor(a: Rational): bigint {
  const q = a.num / a.den;
  return a.num < 0n && a.num % a.den !== 0n ? q - 1n : q;
}

/** As Go's Rat.FloatString(digits): rounded to nearest, halves away from zero. */
export function floatString(a: Rational, digits: number): string {
  const negative = a.num < 0n;
  const abs = negative ? -a.num : a.num;
  const scale = 10n ** BigInt(digits);
  const scaled = abs * scale;
  let q = scaled / a.den;
  if ((scaled % a.den) * 2n >= a.den) q += 1n;
  const whole = (q / scale).toString();
  const fraction = digits > 0 ? `.${(q % scale).toString().padStart(digits, "0")}` : "";
  return `${negative && q !== 0n ? "-" : ""}${whole}${fraction}`;
}

/** As Go's Rat text (json of a *big.Rat): "1200" for whole numbers, else "num/den". */
export function ratText(a: Rational): string {
  return a.den === 1n ? a.num.toString() : `${a.num}/${a.den}`;
}

/** Shortest decimal >= a with at most maxDigits fraction digits (for a price someone must type). */
export function decimalCeil(a: Rational, maxDigits = 18): string {
  for (let digits = 0; digits <= maxDigits; digits++) {
    const scale = 10n ** BigInt(digits);
    const scaled = mul(a, rational(scale));
    if (scaled.den === 1n || digits === maxDigits) {
      const q = ceil(scaled);
      const whole = (q / scale).toString();
      return digits === 0 ? whole : `${whole}.${(q % scale).toString().padStart(digits, "0")}`;
    }
  }
  return ceil(a).toString();
}

/** Go's big.Rat SetString: "3/2", "-1.5", "2e3", "1.5E-2" (what the node's CLI handlers accept). */
export function parseGoRat(text: string): Rational | undefined {
  const fraction = /^([+-]?\d+)\/(\d+)$/.exec(text);
  if (fraction)
    return BigInt(fraction[2]!) === 0n ? undefined : rational(BigInt(fraction[1]!), BigInt(fraction[2]!));
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return undefined;
  const digits = `${m[2]}${m[3] ?? ""}` || "0";
  const exponent = Number(m[4] ?? 0) - (m[3] ?? "").length;
  if (Math.abs(exponent) > 1000) return undefined;
  const value =
    exponent >= 0
      ? rational(BigInt(digits) * 10n ** BigInt(exponent))
      : rational(BigInt(digits), 10n ** BigInt(-exponent));
  return m[1] === "-" ? rational(-value.num, value.den) : value;
}
