// What a payment session has cost so far, from what the signer shows its auth webhook: the
// updated RemotePaymentState of each call the webhook sees (go-livepeer GenerateLivePayment).
//
// The signer charges each call a fee = billable units x the session's initial price
// (InitialPricePerUnit / InitialPixelsPerUnit) and issues tickets whose expected value covers it;
// what is left over stays in the state's Balance (credit at the orchestrator). So the expected
// value paid so far = the fees charged so far + the Balance now. The fees follow from the state:
// - live: the seconds since the previous call, rounded up (10 s for a session's first call);
// - lv2v: 1280x720 pixels x 30 fps per second since the previous call (60 s for the first call);
// - fixed: one unit per call (SequenceNumber counts calls from 0).
// Calls the webhook does not see (within an answer's expiry) are covered all the same: time and
// SequenceNumber move on in the state the next seen call carries. A "" type (a pixel count) has
// no fee the state shows: its spend cannot be counted.
import { goTimeMs, isPaymentType, type PaymentType, type RemotePaymentState } from "./payment-state.ts";
import { ceilInt, mul, parseRational, type Rational, rational } from "./rational.ts";

/** go-livepeer's defaultSegInfo: what an lv2v second costs, in pixels. */
export const LV2V_PIXELS_PER_SECOND = 1280n * 720n * 30n;
/** The billable seconds of a session's first call (no previous LastUpdate). */
export const FIRST_CALL_SECONDS: Record<Exclude<PaymentType, "fixed">, bigint> = { live: 10n, lv2v: 60n };

/** Where the API first saw the session: its seconds are counted from there. */
export interface SessionStart {
  /** LastUpdate of the first state seen (ms). */
  at: number;
  /** Its SequenceNumber (0: the session's first call, whose preload is counted). */
  seq: number;
}

/** The session's wei per billable unit, or undefined when the state carries no valid price. */
export function sessionPrice(state: RemotePaymentState): Rational | undefined {
  if (state.InitialPricePerUnit <= 0 || state.InitialPixelsPerUnit <= 0) return undefined;
  return rational(BigInt(state.InitialPricePerUnit), BigInt(state.InitialPixelsPerUnit));
}

/**
 * sessionPrice as the state gives it, not reduced (no gcd): the same value, for comparisons and
 * whole quotients, which do not depend on the fraction's reduction.
 */
export function sessionPriceParts(state: RemotePaymentState): Rational | undefined {
  if (state.InitialPricePerUnit <= 0 || state.InitialPixelsPerUnit <= 0) return undefined;
  return { num: BigInt(state.InitialPricePerUnit), den: BigInt(state.InitialPixelsPerUnit) };
}

/** Wei a second of this session costs (live, lv2v); undefined for fixed or no price. */
export function weiPerSecond(state: RemotePaymentState, price = sessionPrice(state)): Rational | undefined {
  if (!price) return undefined;
  if (state.Type === "live") return price;
  if (state.Type === "lv2v") return mul(price, rational(LV2V_PIXELS_PER_SECOND));
  return undefined;
}

/**
 * A RatString's two integers as the text has them (not reduced), for what go-livepeer's Balance
 * is: "[-]digits/digits" with a non-zero denominator; undefined for anything else (parseRational
 * reads it, or refuses it). parseRational(text) is the same value, reduced.
 */
export function ratStringParts(text: string): { num: bigint; den: bigint } | undefined {
  const n = text.length;
  const slash = text.indexOf("/");
  const from = text.charCodeAt(0) === 45 /* - */ ? 1 : 0;
  if (slash <= from || slash === n - 1) return undefined;
  let denNonZero = false;
  for (let i = from; i < n; i++) {
    if (i === slash) continue;
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    if (i > slash && d !== 0) denNonZero = true;
  }
  if (!denNonZero) return undefined;
  return { num: BigInt(text.slice(0, slash)), den: BigInt(text.slice(slash + 1)) };
}

/**
 * Wei the session has paid up to this state (rounded up), counted from `start`; undefined when
 * the state does not show it (no type, no price, no time).
 */
export function sessionSpend(state: RemotePaymentState, start: SessionStart): bigint | undefined {
  const type = state.Type;
  if (state.InitialPricePerUnit <= 0 || state.InitialPixelsPerUnit <= 0 || !isPaymentType(type))
    return undefined;
  let balance: { num: bigint; den: bigint } = { num: 0n, den: 1n };
  if (state.Balance) {
    const b = ratStringParts(state.Balance) ?? parseRational(state.Balance);
    if (!b) return undefined;
    balance = b;
  }
  // The billable units so far, unitsNum / unitsDen.
  let unitsNum: bigint;
  let unitsDen = 1n;
  if (type === "fixed") {
    unitsNum = BigInt(Math.max(0, state.SequenceNumber - start.seq) + 1);
  } else {
    const at = goTimeMs(state.LastUpdate);
    if (at === undefined) return undefined;
    const first = start.seq === 0 ? FIRST_CALL_SECONDS[type] * 1000n : 0n;
    const elapsedMs = BigInt(Math.max(0, at - start.at));
    if (type === "live") {
      // Live rounds each call up to whole seconds: the total, up to whole seconds.
      unitsNum = (first + elapsedMs + 999n) / 1000n;
    } else {
      unitsNum = (first + elapsedMs) * LV2V_PIXELS_PER_SECOND;
      unitsDen = 1000n;
    }
  }
  // units x price + balance over one denominator, not reduced: rounding up gives the same integer
  // whatever the fraction's reduction (the denominator is > 0), without a gcd per step.
  const price = BigInt(state.InitialPricePerUnit);
  const pixels = BigInt(state.InitialPixelsPerUnit);
  const spent = ceilInt({
    num: unitsNum * price * balance.den + balance.num * pixels * unitsDen,
    den: unitsDen * pixels * balance.den,
  });
  return spent > 0n ? spent : 0n;
}
