// What a signer node sends its auth webhook (go-livepeer server/remote_signer.go, authLivePayment):
// POST {headers: <the gateway's request headers, Go's map[string][]string>, state:
// RemotePaymentState} after the payment state is updated (balance, nonce, LastUpdate) and before
// it is signed. Go's default JSON names (the field names) are kept; unknown fields are tolerated
// (a newer node may add some), wrong types are refused.
import { z } from "zod";

/** The payment types whose cap unit parseRemotePaymentMaxPrice knows. */
export const PAYMENT_TYPES = ["live", "lv2v", "fixed"] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];

/** parseRemotePaymentMaxPrice: the only unit it accepts for each payment type. */
export const PRICE_UNIT: Record<PaymentType, string> = {
  live: "seconds",
  lv2v: "720p-pixel-seconds",
  fixed: "fixed",
};

const int = z.number().int();

export const RemotePaymentStateSchema = z.looseObject({
  StateID: z.string().max(512).default(""),
  PMSessionID: z.string().max(512).optional(),
  /** Go time.Time: RFC 3339 with up to nanoseconds; the zero time is 0001-01-01T00:00:00Z. */
  LastUpdate: z.string().max(64).optional(),
  OrchestratorAddress: z.string().max(64).optional(),
  App: z.string().max(512).default(""),
  AuthExpiry: int.default(0),
  SenderNonce: int.optional(),
  /** big.Rat RatString: "500/1". */
  Balance: z.string().max(512).default(""),
  InitialPricePerUnit: int.default(0),
  InitialPixelsPerUnit: int.default(0),
  /** live | lv2v | fixed, or "" (a payment for a pixel count, no type). */
  Type: z.string().max(32).default(""),
  SequenceNumber: int.min(0).default(0),
  AuthID: z.string().max(512).default(""),
});

export const SignerAuthBodySchema = z.looseObject({
  headers: z.record(z.string(), z.array(z.string())).default({}),
  state: RemotePaymentStateSchema.nullable().optional(),
});

export type RemotePaymentState = z.infer<typeof RemotePaymentStateSchema>;
export type SignerAuthBody = z.infer<typeof SignerAuthBodySchema>;

// The signer calls the hook for every payment, so its well-formed body (Go sends every field)
// is checked here by hand: what this accepts, the schemas above accept too, with the same
// result; anything else (a missing or odd field, an error to report) goes through the schemas.
// What it accepts is handed on as it is (the schemas would copy it field by field into equal
// objects; nothing downstream changes it).
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const STRINGS = [
  "StateID",
  "PMSessionID",
  "LastUpdate",
  "OrchestratorAddress",
  "App",
  "Balance",
  "Type",
  "AuthID",
];
const STRING_MAX = [512, 512, 64, 64, 512, 512, 32, 512];
const INTS = ["AuthExpiry", "SenderNonce", "InitialPricePerUnit", "InitialPixelsPerUnit", "SequenceNumber"];

function isFastState(s: Json): boolean {
  for (let i = 0; i < STRINGS.length; i++) {
    const v = s[STRINGS[i]!];
    if (typeof v !== "string" || v.length > STRING_MAX[i]!) return false;
  }
  for (const k of INTS) if (!Number.isSafeInteger(s[k])) return false;
  return (s.SequenceNumber as number) >= 0;
}

function isFastHeaders(h: Json): boolean {
  for (const k in h) {
    if (!Object.hasOwn(h, k)) continue;
    const v = h[k];
    if (!Array.isArray(v)) return false;
    for (const x of v) if (typeof x !== "string") return false;
  }
  return true;
}

/** The body as SignerAuthBodySchema parses it, for a complete well-formed body; else undefined. */
export function parseSignerAuthBodyFast(body: unknown): SignerAuthBody | undefined {
  if (!isObject(body) || !isObject(body.headers)) return undefined;
  if (Object.getPrototypeOf(body.headers) !== Object.prototype || !isFastHeaders(body.headers))
    return undefined;
  const state = body.state;
  if (state === null) return body as SignerAuthBody;
  if (!isObject(state) || Object.getPrototypeOf(state) !== Object.prototype || !isFastState(state)) {
    return undefined;
  }
  return body as SignerAuthBody;
}

/** A header of Go's canonical map, whatever its case (the first value). */
export function headerValue(headers: Record<string, string[]>, name: string): string | undefined {
  // Go sends canonical names ("Authorization"): that key first, any case after.
  if (Object.hasOwn(headers, name)) return headers[name]![0];
  const lower = name.toLowerCase();
  for (const k in headers) if (Object.hasOwn(headers, k) && k.toLowerCase() === lower) return headers[k]![0];
  return undefined;
}

export function isPaymentType(t: string): t is PaymentType {
  return (PAYMENT_TYPES as readonly string[]).includes(t);
}

const FRACTION_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/;

/** ms since the epoch of a Go time (nanoseconds cut to ms); undefined for the zero time or junk. */
export function goTimeMs(text: string | undefined): number | undefined {
  if (!text || text.startsWith("0001-01-01")) return undefined;
  const fast = utcTimeMsFast(text);
  return fast === undefined ? goTimeMsParsed(text) : fast;
}

/** goTimeMs the general way: a regex and Date.parse (what utcTimeMsFast's answers are tested against). */
export function goTimeMsParsed(text: string): number | undefined {
  // What Go's JSON holds for a UTC time (RFC 3339, up to nanoseconds): cut to milliseconds.
  if (FRACTION_UTC.test(text))
    return Date.parse(`${text.slice(0, Math.min(23, text.length - 1)).padEnd(23, "0")}Z`);
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(text);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}.${(m[2] ?? "").padEnd(3, "0").slice(0, 3)}${m[3]}`);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The digits text[from, from + n) as a number; -1 when one is not 0-9. */
function digitsAt(text: string, from: number, n: number): number {
  let v = 0;
  for (let i = from; i < from + n; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * What every payment's LastUpdate is, "YYYY-MM-DDTHH:MM:SS[.fraction]Z" with plain values (years
 * 100-9999, days up to 28, no leap second), read by hand: the same milliseconds as goTimeMsParsed
 * (Date.UTC of the same fields, the fraction cut to ms). Anything else: undefined (the general way).
 */
export function utcTimeMsFast(text: string): number | undefined {
  const n = text.length;
  if (n < 20 || text.charCodeAt(n - 1) !== 90 /* Z */) return undefined;
  if (text[4] !== "-" || text[7] !== "-" || text[10] !== "T" || text[13] !== ":" || text[16] !== ":") {
    return undefined;
  }
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (year < 100 || month < 1 || month > 12 || day < 1 || day > 28 || hour < 0 || hour > 23) return undefined;
  if (minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
  let ms = 0;
  if (n > 20) {
    // ".d+" then Z: the first three digits count, the rest must be digits.
    if (text[19] !== "." || n === 21) return undefined;
    for (let i = 20; i < n - 1; i++) {
      const d = text.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return undefined;
      if (i < 23) ms += d * (i === 20 ? 100 : i === 21 ? 10 : 1);
    }
  }
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}
