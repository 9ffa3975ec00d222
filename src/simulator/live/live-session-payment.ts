// The payment side of an on-chain orchestrator's live sessions (server/ai_http.go
// StartLiveVideoToVideo, server/segment_rpc.go Payment/verifySegCreds): the segment credentials'
// signature must recover to the payment's sender (core/orchestrator.go VerifySig over
// SegTranscodingMetadata.Flatten), the tickets are received (ticket-receiver.ts), a session
// starts only with a balance of at least the ticket EV, and while it runs it is charged per
// published segment (live-payment-processor.ts) until the balance runs out and it is stopped.
import { getAddress } from "ethers";
import { floatString, type Rational, rational } from "../../node/pricing/rational.ts";
import type { PaymentMessage, SegDataMessage } from "../../node/wire/messages.ts";
import type { SimulatedEthClient } from "../chain-client.ts";
import { goQuote } from "../clog.ts";
import type { GlogLevel } from "../glog.ts";
import { keccak, verifyNodeSignature } from "../signer/signatures.ts";
import type { TicketParamsSource } from "../ticket-params.ts";
import { accountPayment, LivePaymentProcessor, LV2V_PIXELS_PER_SECOND } from "./live-payment-processor.ts";
import { PaymentError, TicketReceiver } from "./ticket-receiver.ts";

type Log = (level: GlogLevel, where: string, message: string) => void;

/** core.SegTranscodingMetadata.Flatten: manifest ID, seq (32 bytes), hash, profiles (none here). */
export function flattenSegData(seg: SegDataMessage): Buffer {
  const seq = BigInt(seg.seq || 0);
  const seqBytes = Buffer.from(seq.toString(16).padStart(64, "0"), "hex");
  const hash = Buffer.concat([Buffer.alloc(32), seg.hash]).subarray(-32);
  return Buffer.concat([seg.manifestId, seqBytes, hash]);
}

/** The payment's sender, checksummed (the zero address for none). */
export function paymentSender(payment: PaymentMessage): string {
  const bytes = Buffer.concat([Buffer.alloc(20), payment.sender]).subarray(-20);
  return getAddress(`0x${bytes.toString("hex")}`);
}

export interface LiveSessionPaymentsOptions {
  eth: SimulatedEthClient;
  tickets: TicketParamsSource;
  recipient: () => Promise<Buffer>;
  /** -ticketEV (wei). */
  ev: bigint;
  /** -livePaymentInterval. */
  intervalMs: number;
}

export class LiveSessionPayments {
  readonly receiver: TicketReceiver;
  readonly #intervalMs: number;

  constructor(o: LiveSessionPaymentsOptions) {
    this.receiver = new TicketReceiver(o);
    this.#intervalMs = o.intervalMs;
  }

  /** verifySegCreds' Sig check: "ErrSegSig" when the credentials were not signed by the sender. */
  segSigProblem(seg: SegDataMessage, payment: PaymentMessage): string | undefined {
    const sender = paymentSender(payment);
    const ok = verifyNodeSignature(sender, keccak(flattenSegData(seg)), seg.sig);
    return ok ? undefined : "ErrSegSig";
  }

  /**
   * ProcessPayment for `manifestId`, then (when the payment names a price) SufficientBalance: the
   * node's 400 text, or undefined when the payment was taken.
   */
  async take(
    payment: PaymentMessage,
    manifestId: string,
    log: Log,
    checkBalance: boolean,
  ): Promise<string | undefined> {
    try {
      await this.receiver.processPayment(payment, manifestId, log);
    } catch (err) {
      // A chain read that failed is the node's error too (isActive, GetSenderInfo): a 400.
      return err instanceof PaymentError
        ? err.message
        : `could not process payment: ${(err as Error).message}`;
    }
    const priced = BigInt(payment.expectedPrice?.pricePerUnit ?? 0) > 0n;
    if (checkBalance && priced && !this.receiver.sufficientBalance(paymentSender(payment), manifestId)) {
      return "Insufficient balance";
    }
    return undefined;
  }

  /** Current balance of (sender, manifest) as the node logs it. */
  balanceText(payment: PaymentMessage, manifestId: string): string {
    const b = this.receiver.balance(paymentSender(payment), manifestId);
    return b === undefined ? "no balance available" : floatString(b, 0);
  }

  /**
   * The session's charger, or undefined when the first payment named no price (the node then
   * does not charge). `stop` ends the session.
   */
  charger(
    payment: PaymentMessage,
    manifestId: string,
    log: Log,
    stop: () => void,
  ): LivePaymentProcessor | undefined {
    const price = payment.expectedPrice;
    if (!price || BigInt(price.pricePerUnit) === 0n) return undefined;
    const perPixel = rational(BigInt(price.pricePerUnit), BigInt(price.pixelsPerUnit || 1));
    const sender = paymentSender(payment);
    const receiver = this.receiver;
    const balance = {
      balance: () => receiver.balance(sender, manifestId),
      debit: (amount: Rational) => receiver.debit(sender, manifestId, amount),
    };
    return new LivePaymentProcessor(this.#intervalMs, (units, secs) => {
      log(
        "I",
        "live_payment_processor.go:77",
        `Processing live payment secsSinceLastProcessed=${secs} unitsSinceLastProcessed=${LV2V_PIXELS_PER_SECOND * secs}`,
      );
      const r = accountPayment(manifestId, units, perPixel, balance);
      if ("error" in r) {
        log(
          "E",
          "ai_http.go:1101",
          `Error accounting payment, stopping stream processing%!(EXTRA *errors.errorString=${r.error})`,
        );
        stop();
        log("E", "live_payment_processor.go:82", `Error processing payment err=${goQuote(r.error)}`);
        return false;
      }
      log(
        "I",
        "live_payment.go:169",
        `Accounted payment for sessionID=${manifestId}, fee=${floatString(r.fee, 0)} balance=${floatString(r.balance, 0)}`,
      );
      return true;
    });
  }
}
