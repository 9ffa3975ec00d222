// The on-chain orchestrator's live charging as pure policy: AccountPayment's debit or its error,
// and the processor's interval, units and carried-over fractions on a steered clock.
import { describe, expect, it } from "vitest";
import { add, floatString, type Rational, rational, ZERO } from "../../node/pricing/rational.ts";
import { accountPayment, LivePaymentProcessor, LV2V_PIXELS_PER_SECOND } from "./live-payment-processor.ts";

function balanceOf(start: Rational | undefined) {
  let value = start;
  return {
    balance: () => value,
    debit: (amount: Rational) => {
      value = add(value ?? ZERO, rational(-amount.num, amount.den));
    },
  };
}

describe("accountPayment (server/live_payment.go AccountPayment)", () => {
  const price = rational(100n);
  it.each([
    { name: "covered: debited", start: rational(10_000n), units: 50, left: "5000", error: undefined },
    { name: "exactly covered", start: rational(5_000n), units: 50, left: "0", error: undefined },
    {
      name: "short: the node's error",
      start: rational(4_999n),
      units: 50,
      left: "4999",
      error: "insufficient balance, mid=m1, fee=5000, balance=4999",
    },
    {
      name: "never credited: nil",
      start: undefined,
      units: 1,
      left: undefined,
      error: "insufficient balance, mid=m1, fee=100, balance=nil",
    },
  ])("$name", ({ start, units, left, error }) => {
    const b = balanceOf(start);
    const r = accountPayment("m1", units, price, b);
    if (error) expect(r).toEqual({ error });
    else expect("balance" in r && floatString(r.balance, 0)).toBe(left);
    const after = b.balance();
    expect(after === undefined ? undefined : floatString(after, 0)).toBe(left);
  });
});

describe("LivePaymentProcessor (NewLV2VPaymentProcessor)", () => {
  it("bills 1280x720x30 pixels a second, at most once per interval, the fraction carried over", () => {
    let now = 1_000_000;
    const charged: number[] = [];
    const p = new LivePaymentProcessor(
      5_000,
      (units) => {
        charged.push(units);
        return true;
      },
      () => now,
    );
    now += 4_999;
    p.process();
    expect(charged).toEqual([]);
    now += 1; // 5 s
    p.process();
    now += 2_000; // 2 s later: inside the interval
    p.process();
    now += 5_000; // 7 s after the last charge
    p.process();
    expect(charged).toEqual([5 * LV2V_PIXELS_PER_SECOND, 7 * LV2V_PIXELS_PER_SECOND]);
    // A fraction of a pixel-second is not lost: 5.0000001 s bills whole pixels only.
    now += 5_000.0001;
    p.process();
    expect(charged[2]).toBe(Math.trunc(LV2V_PIXELS_PER_SECOND * 5.0000001));
  });

  it("stops charging once a charge stopped the session", () => {
    let now = 0;
    let calls = 0;
    const p = new LivePaymentProcessor(
      1_000,
      () => {
        calls++;
        return false;
      },
      () => now,
    );
    now = 1_000;
    p.process();
    now = 5_000;
    p.process();
    expect(calls).toBe(1);
  });
});
