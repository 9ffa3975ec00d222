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
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const STRINGS: readonly (readonly [string, number])[] = [
  ["StateID", 512],
  ["PMSessionID", 512],
  ["LastUpdate", 64],
  ["OrchestratorAddress", 64],
  ["App", 512],
  ["Balance", 512],
  ["Type", 32],
  ["AuthID", 512],
];
const INTS = ["AuthExpiry", "SenderNonce", "InitialPricePerUnit", "InitialPixelsPerUnit", "SequenceNumber"];

function fastState(s: Json): RemotePaymentState | undefined {
  for (const [k, max] of STRINGS) {
    const v = s[k];
    if (typeof v !== "string" || v.length > max) return undefined;
  }
  for (const k of INTS) if (!Number.isSafeInteger(s[k])) return undefined;
  if ((s.SequenceNumber as number) < 0) return undefined;
  return { ...s } as RemotePaymentState;
}

function fastHeaders(h: Json): Record<string, string[]> | undefined {
  const out: Record<string, string[]> = {};
  for (const k in h) {
    if (!Object.hasOwn(h, k)) continue;
    const v = h[k];
    if (!Array.isArray(v)) return undefined;
    for (const x of v) if (typeof x !== "string") return undefined;
    out[k] = v as string[];
  }
  return out;
}

/** The body as SignerAuthBodySchema parses it, for a complete well-formed body; else undefined. */
export function parseSignerAuthBodyFast(body: unknown): SignerAuthBody | undefined {
  if (!isObject(body) || !isObject(body.headers)) return undefined;
  if (Object.getPrototypeOf(body.headers) !== Object.prototype) return undefined;
  const headers = fastHeaders(body.headers);
  if (!headers) return undefined;
  const raw = body.state;
  if (raw === null) return { ...body, headers, state: null } as SignerAuthBody;
  if (!isObject(raw)) return undefined;
  const state = fastState(raw);
  return state ? ({ ...body, headers, state } as SignerAuthBody) : undefined;
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
  // What Go's JSON holds for a UTC time (RFC 3339, up to nanoseconds): cut to milliseconds.
  if (FRACTION_UTC.test(text))
    return Date.parse(`${text.slice(0, Math.min(23, text.length - 1)).padEnd(23, "0")}Z`);
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(text);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}.${(m[2] ?? "").padEnd(3, "0").slice(0, 3)}${m[3]}`);
  return Number.isFinite(ms) ? ms : undefined;
}
