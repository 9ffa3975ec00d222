// An on-chain orchestrator receiving a Livepeer-Payment, as go-livepeer 0.9 does it
// (core/orchestrator.go ProcessPayment, pm/recipient.go ReceiveTicket, pm/validator.go,
// pm/sendermonitor.go ValidateSender, core/balance.go): for every ticket of the batch, in order,
// - the sender may not be about to withdraw (TicketBroker.getSenderInfo's withdrawRound against
//   RoundsManager.lastInitializedRound + 1): fatal;
// - the ticket must name this orchestrator, a sender, and a recipientRandHash this orchestrator
//   issued (the HMAC of the quoted parameters under its secret: ticket-params.ts): fatal;
// - its signature must recover to the sender (pm's ticket hash, personal-signed): not fatal;
// - its nonce may not have been seen for those parameters: not fatal;
// - the parameters may not have expired (expirationBlock <= the chain's head): not fatal;
// each ticket accepted before the first error is credited its EV to (sender, manifest) in the
// orchestrator's balances, a winning one is logged (its redemption is not simulated: said once).
// The orchestrator itself must be active in the current round (BondingManager.isActiveTranscoder).
// Errors and log lines are the node's.
import { getAddress } from "ethers";
import { add, compare, floatString, type Rational, rational, ZERO } from "../../node/pricing/rational.ts";
import { bytesToBigInt, type PaymentMessage, type TicketParamsMessage } from "../../node/wire/messages.ts";
import type { SimulatedEthClient } from "../chain-client.ts";
import type { GlogLevel } from "../glog.ts";
import { keccak, recoverNodeSigner } from "../signer/signatures.ts";
import { type ExpirationParams, MAX_WIN_PROB, ticketEv, ticketHash } from "../signer/tickets.ts";
import { recipientRandHash, type TicketParamsSource } from "../ticket-params.ts";

/** pm/recipient.go maxSenderNonces. */
const MAX_SENDER_NONCES = 600;

type Log = (level: GlogLevel, where: string, message: string) => void;

/** A ProcessPayment error: the node answers 400 with its text. */
export class PaymentError extends Error {
  readonly fatal: boolean;
  constructor(message: string, fatal = false) {
    super(message);
    this.fatal = fatal;
  }
}

export interface TicketReceiverDeps {
  eth: SimulatedEthClient;
  tickets: TicketParamsSource;
  /** The orchestrator's address (20 bytes). */
  recipient: () => Promise<Buffer>;
  /** -ticketEV (wei): what SufficientBalance wants credited. */
  ev: bigint;
}

const key = (sender: string, manifestId: string) => `${sender.toLowerCase()}|${manifestId}`;

export class TicketReceiver {
  readonly #d: TicketReceiverDeps;
  readonly #balances = new Map<string, Rational>();
  readonly #nonces = new Map<string, { seen: Set<number>; expirationBlock: bigint }>();
  #redemptionSaid = false;

  constructor(d: TicketReceiverDeps) {
    this.#d = d;
  }

  /** core.Balances.Balance: undefined when nothing was credited to (sender, manifest). */
  balance(sender: string, manifestId: string): Rational | undefined {
    return this.#balances.get(key(sender, manifestId));
  }

  debit(sender: string, manifestId: string, amount: Rational): void {
    const k = key(sender, manifestId);
    this.#balances.set(k, add(this.#balances.get(k) ?? ZERO, rational(-amount.num, amount.den)));
  }

  /** core/orchestrator.go SufficientBalance: at least the recipient's EV. */
  sufficientBalance(sender: string, manifestId: string): boolean {
    const b = this.balance(sender, manifestId);
    return b !== undefined && compare(b, rational(this.#d.ev)) >= 0;
  }

  /** ProcessPayment: throws PaymentError with the node's words. */
  async processPayment(payment: PaymentMessage, manifestId: string, log: Log): Promise<void> {
    const params = payment.ticketParams;
    if (payment.sender.length === 0 && params) {
      throw new PaymentError("Could not find Sender for payment: missing sender");
    }
    if (!params) return; // price 0 for the session
    const d = this.#d;
    const sender = getAddress(`0x${leftPad(payment.sender, 20).toString("hex")}`);
    const recipient = getAddress(`0x${leftPad(params.recipient, 20).toString("hex")}`);
    const [active, lastInitializedRound] = await Promise.all([
      d.eth.read<boolean>("BondingManager", "isActiveTranscoder", [recipient]),
      d.eth.read<bigint>("RoundsManager", "lastInitializedRound"),
    ]);
    if (!active) {
      throw new PaymentError(
        `orchestrator ${recipient} is inactive in round ${lastInitializedRound}, cannot process payments`,
      );
    }
    const price = payment.expectedPrice;
    if (!price)
      throw new PaymentError('invalid expected price sent with payment err="expected price is nil"');
    if (BigInt(price.pixelsPerUnit) === 0n) {
      throw new PaymentError('invalid expected price sent with payment err="pixels per unit is 0"');
    }
    const pricePerPixel = rational(BigInt(price.pricePerUnit), BigInt(price.pixelsPerUnit));
    const expiration = {
      creationRound: BigInt(payment.expirationParams?.creationRound ?? 0),
      creationRoundBlockHash: payment.expirationParams?.creationRoundBlockHash ?? Buffer.alloc(32),
    };
    const faceValue = bytesToBigInt(params.faceValue);
    const winProb = bytesToBigInt(params.winProb);
    const expirationBlock = bytesToBigInt(params.expirationBlock);
    const rand = d.tickets.recipientRand({
      seed: params.seed,
      sender: payment.sender,
      faceValue,
      winProb,
      expirationBlock,
      price: pricePerPixel,
      ...expiration,
    });
    const [ours, senderInfo, head] = await Promise.all([
      d.recipient(),
      d.eth.read<unknown[]>("TicketBroker", "getSenderInfo", [sender]),
      d.eth.head(),
    ]);
    const withdrawRound = BigInt((senderInfo[0] as unknown[])[1] as bigint);
    const randHex = rand.toString("hex");
    const ev = ticketEv(params);
    let totalEv = ZERO;
    let totalTickets = 0;
    let receiveErr: PaymentError | undefined;
    for (const tsp of payment.ticketSenderParams) {
      let won = false;
      try {
        const problem = ticketProblem({
          params,
          sender: payment.sender,
          senderNonce: tsp.senderNonce,
          sig: tsp.sig,
          expiration,
          rand,
          recipient: ours,
          withdrawRound,
          lastInitializedRound,
        });
        if (problem) throw problem;
        won = isWinning(tsp.sig, rand, winProb);
        this.#useNonce(randHex, tsp.senderNonce, expirationBlock, sender);
        if (expirationBlock <= head.blockNumber) throw new PaymentError("TicketParams expired");
      } catch (err) {
        if (!(err instanceof PaymentError)) throw err;
        log(
          "E",
          "orchestrator.go:254",
          `Error receiving ticket sessionID=${manifestId} recipientRandHash=${leftPad(params.recipientRandHash, 32).toString("hex")} senderNonce=${tsp.senderNonce}: ${err.message}`,
        );
        if (err.fatal) throw err;
        receiveErr = err;
      }
      if (!receiveErr) {
        const k = key(sender, manifestId);
        this.#balances.set(k, add(this.#balances.get(k) ?? ZERO, ev));
        totalEv = add(totalEv, ev);
        totalTickets++;
      }
      if (won) {
        log(
          "I",
          "orchestrator.go:272",
          `Received winning ticket sessionID=${manifestId} recipientRandHash=${leftPad(params.recipientRandHash, 32).toString("hex")} senderNonce=${tsp.senderNonce}`,
        );
        if (!this.#redemptionSaid) {
          this.#redemptionSaid = true;
          log("I", "simulator.go:45", "Simulated: winning tickets are counted, not redeemed on chain");
        }
      }
    }
    log(
      "I",
      "orchestrator.go:283",
      `Payment tickets processed sessionID=${manifestId} faceValue=${formatEth(faceValue)} winProb=${floatString(rational(winProb, MAX_WIN_PROB), 10)} totalTickets=${totalTickets} totalEV=${floatString(totalEv, 2)}`,
    );
    if (receiveErr) throw receiveErr;
  }

  /** pm/recipient.go updateSenderNonce. */
  #useNonce(randHex: string, nonce: number, expirationBlock: bigint, sender: string): void {
    let entry = this.#nonces.get(randHex);
    if (entry?.seen.has(nonce)) {
      throw new PaymentError(`invalid ticket senderNonce: already seen sender=${sender} nonce=${nonce}`);
    }
    if (!entry) {
      entry = { seen: new Set(), expirationBlock };
      this.#nonces.set(randHex, entry);
    }
    if (entry.seen.size >= MAX_SENDER_NONCES) {
      throw new PaymentError(`invalid ticket senderNonce: too many values sender=${sender} nonce=${nonce}`);
    }
    entry.seen.add(nonce);
  }
}

export interface TicketToCheck {
  params: TicketParamsMessage;
  /** The payment's sender bytes. */
  sender: Buffer;
  senderNonce: number;
  sig: Buffer;
  expiration: ExpirationParams;
  /** This orchestrator's rand for the ticket's quoted parameters (TicketParamsSource.recipientRand). */
  rand: Buffer;
  /** This orchestrator's address. */
  recipient: Buffer;
  /** TicketBroker.getSenderInfo(sender).sender.withdrawRound, RoundsManager.lastInitializedRound. */
  withdrawRound: bigint;
  lastInitializedRound: bigint;
}

/**
 * pm/sendermonitor.go ValidateSender, then pm/validator.go ValidateTicket, in the node's order: the
 * error (fatal but for a bad signature), or undefined for a valid ticket.
 */
export function ticketProblem(t: TicketToCheck): PaymentError | undefined {
  const sender = getAddress(`0x${leftPad(t.sender, 20).toString("hex")}`);
  if (t.withdrawRound !== 0n && t.withdrawRound <= t.lastInitializedRound + 1n) {
    return new PaymentError(`deposit and reserve for sender ${sender} is set to unlock soon`, true);
  }
  if (!leftPad(t.params.recipient, 20).equals(leftPad(t.recipient, 20))) {
    return new PaymentError("invalid ticket recipient", true);
  }
  if (t.sender.every((b) => b === 0)) return new PaymentError("invalid ticket sender", true);
  if (!recipientRandHash(t.rand).equals(leftPad(t.params.recipientRandHash, 32))) {
    return new PaymentError("invalid recipientRand for ticket recipientRandHash", true);
  }
  const hash = ticketHash(t.params, leftPad(t.sender, 20), t.senderNonce, t.expiration);
  if (recoverNodeSigner(hash, t.sig) !== sender) return new PaymentError("invalid ticket signature");
  return undefined;
}

/** pm/validator.go IsWinningTicket: keccak256(sig, rand) < winProb. */
function isWinning(sig: Buffer, rand: Buffer, winProb: bigint): boolean {
  return bytesToBigInt(keccak(Buffer.concat([sig, leftPad(rand, 32)]))) < winProb;
}

function leftPad(bytes: Buffer, size: number): Buffer {
  const tail = bytes.subarray(Math.max(0, bytes.length - size));
  return Buffer.concat([Buffer.alloc(size - tail.length), tail]);
}

/** eth.FormatUnits(v, "ETH"). */
function formatEth(wei: bigint): string {
  return `${floatString(rational(wei, 10n ** 18n), 18).replace(/\.?0+$/, "")} ETH`;
}
