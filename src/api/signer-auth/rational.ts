// Exact wei arithmetic for prices and spend: go-livepeer prices are big.Rat (a per-unit price is
// PricePerUnit/PixelsPerUnit, a session balance is a RatString such as "500/1"), and a cap or a
// budget is a decimal string. Floats would round a wei away; bigint fractions do not.

export interface Rational {
  num: bigint;
  /** Always > 0. */
  den: bigint;
}

const gcd = (a: bigint, b: bigint): bigint => {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y) [x, y] = [y, x % y];
  return x || 1n;
};

export function rational(num: bigint, den = 1n): Rational {
  if (den === 0n) throw new Error("a rational needs a non-zero denominator");
  const sign = den < 0n ? -1n : 1n;
  const g = gcd(num, den);
  return { num: (sign * num) / g, den: (sign * den) / g };
}

/** "1200", "0.5", "-3/2" (a Go big.Rat RatString or a decimal); undefined when it is neither. */
export function parseRational(text: string): Rational | undefined {
  const t = text.trim();
  const frac = /^(-?\d+)\/(\d+)$/.exec(t);
  if (frac)
    return frac[2] === "0" || /^0+$/.test(frac[2]!)
      ? undefined
      : rational(BigInt(frac[1]!), BigInt(frac[2]!));
  const dec = /^(-?)(\d+)(?:\.(\d+))?$/.exec(t);
  if (!dec) return undefined;
  const fraction = dec[3] ?? "";
  const num = BigInt(`${dec[2]}${fraction}`) * (dec[1] ? -1n : 1n);
  return rational(num, 10n ** BigInt(fraction.length));
}

export const compare = (a: Rational, b: Rational): number => {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
};

export const add = (a: Rational, b: Rational): Rational =>
  rational(a.num * b.den + b.num * a.den, a.den * b.den);
export const sub = (a: Rational, b: Rational): Rational =>
  rational(a.num * b.den - b.num * a.den, a.den * b.den);
export const mul = (a: Rational, b: Rational): Rational => rational(a.num * b.num, a.den * b.den);

/** The smallest integer >= r (wei spent is counted up: a budget errs on the tenant's side of the signer). */
export function ceilInt(r: Rational): bigint {
  const q = r.num / r.den;
  return r.num % r.den !== 0n && r.num > 0n ? q + 1n : q;
}

/** A decimal string of the value (exact when the denominator divides a power of ten; else 18 places, cut). */
export function decimalString(r: Rational): string {
  if (r.den === 1n) return r.num.toString();
  let den = r.den;
  let places = 0;
  while (den % 10n === 0n || den % 2n === 0n || den % 5n === 0n) {
    if (den % 10n === 0n) den /= 10n;
    else if (den % 2n === 0n) den /= 2n;
    else den /= 5n;
    places++;
    if (places > 18) break;
  }
  const digits = den === 1n ? places : 18;
  const scaled = (r.num * 10n ** BigInt(digits)) / r.den;
  const neg = scaled < 0n;
  const s = (neg ? -scaled : scaled).toString().padStart(digits + 1, "0");
  const out = `${s.slice(0, -digits)}.${s.slice(-digits)}`.replace(/\.?0+$/, "");
  return `${neg ? "-" : ""}${out}`;
}
