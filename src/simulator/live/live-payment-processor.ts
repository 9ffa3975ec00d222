// How an on-chain orchestrator charges a live video-to-video session (server/live_payment_processor.go
// NewLV2VPaymentProcessor, server/live_payment.go AccountPayment): on each segment the client
// publishes, at most once per -livePaymentInterval (default 5 s), the time since the last charge
// is billed as 1280 x 720 x 30 pixels a second at the price the session's first payment named;
// the fee is debited from the (sender, manifest) balance its tickets credited, or, when the balance
// does not cover it, the session is stopped with the node's error. Only whole pixels are billed:
// the clock advances by the billed time, so a fraction is charged with the next one.
import { compare, floatString, mul, type Rational, rational } from "../../node/pricing/rational.ts";

/** defaultSegInfo: 1280 x 720 at 30 fps. */
export const LV2V_PIXELS_PER_SECOND = 1280 * 720 * 30;

export interface LiveBalance {
  balance(): Rational | undefined;
  debit(amount: Rational): void;
}

/** AccountPayment: debit `units` at `price`, or the error that stops the stream. */
export function accountPayment(
  session: string,
  units: number,
  price: Rational,
  balance: LiveBalance,
): { fee: Rational; balance: Rational } | { error: string } {
  const fee = mul(rational(BigInt(units)), price);
  const before = balance.balance();
  if (before === undefined || compare(before, fee) < 0) {
    const shown = before === undefined ? "nil" : floatString(before, 0);
    return { error: `insufficient balance, mid=${session}, fee=${floatString(fee, 0)}, balance=${shown}` };
  }
  balance.debit(fee);
  return { fee, balance: balance.balance()! };
}

export class LivePaymentProcessor {
  readonly #intervalMs: number;
  readonly #charge: (units: number, secs: number) => boolean;
  readonly #now: () => number;
  #last: number;
  #stopped = false;

  /** `charge` bills `units` pixels (`secs` seconds) and answers false when the session was stopped. */
  constructor(
    intervalMs: number,
    charge: (units: number, secs: number) => boolean,
    now: () => number = Date.now,
  ) {
    this.#intervalMs = intervalMs;
    this.#charge = charge;
    this.#now = now;
    this.#last = now();
  }

  /** A segment arrived: bill the time since the last charge when an interval has passed. */
  process(): void {
    const now = this.#now();
    if (this.#stopped || this.#last + this.#intervalMs > now) return;
    const secs = (now - this.#last) / 1000;
    const units = Math.trunc(LV2V_PIXELS_PER_SECOND * secs);
    if (!this.#charge(units, secs)) this.#stopped = true;
    this.#last += (units / LV2V_PIXELS_PER_SECOND) * 1000;
  }

  stop(): void {
    this.#stopped = true;
  }
}
