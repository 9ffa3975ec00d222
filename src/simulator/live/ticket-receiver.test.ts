// The orchestrator's ticket checks (ValidateSender + ValidateTicket) on tickets a real key signed
// the way the simulated signer makes them: table-driven, one changed field a row.
import { randomBytes } from "node:crypto";
import { Wallet } from "ethers";
import { describe, expect, it } from "vitest";
import { bigIntToBytes } from "../../node/wire/messages.ts";
import { ticketBatchPayment } from "../signer/tickets.ts";
import { recipientRandHash } from "../ticket-params.ts";
import { type TicketToCheck, ticketProblem } from "./ticket-receiver.ts";

const sender = new Wallet(`0x${randomBytes(32).toString("hex")}`);
const other = new Wallet(`0x${randomBytes(32).toString("hex")}`);
const ours = randomBytes(20);
const rand = randomBytes(32);
const params = {
  recipient: ours,
  faceValue: bigIntToBytes(10n ** 16n),
  winProb: bigIntToBytes(1n << 200n),
  recipientRandHash: recipientRandHash(rand),
  seed: randomBytes(32),
  expirationBlock: bigIntToBytes(140n),
};
const expiration = { creationRound: 7n, creationRoundBlockHash: randomBytes(32) };

function ticket(wallet: Wallet, nonce = 0): TicketToCheck {
  const payment = ticketBatchPayment(wallet, params, expiration, nonce, 1, undefined);
  const tsp = payment.ticketSenderParams![0]!;
  return {
    params,
    sender: Buffer.from(wallet.address.slice(2), "hex"),
    senderNonce: tsp.senderNonce!,
    sig: Buffer.from(tsp.sig as Uint8Array),
    expiration,
    rand,
    recipient: ours,
    withdrawRound: 0n,
    lastInitializedRound: 10n,
  };
}

describe("ticketProblem (pm ValidateSender + ValidateTicket)", () => {
  const good = ticket(sender, 4);
  it.each<{ name: string; change: Partial<TicketToCheck>; error?: string; fatal?: boolean }>([
    { name: "a ticket the sender signed for this orchestrator", change: {} },
    { name: "a withdrawal far off", change: { withdrawRound: 12n } },
    {
      name: "a withdrawal next round",
      change: { withdrawRound: 11n },
      error: `deposit and reserve for sender ${sender.address} is set to unlock soon`,
      fatal: true,
    },
    {
      name: "another recipient",
      change: { recipient: randomBytes(20) },
      error: "invalid ticket recipient",
      fatal: true,
    },
    { name: "no sender", change: { sender: Buffer.alloc(20) }, error: "invalid ticket sender", fatal: true },
    {
      name: "parameters this orchestrator did not issue",
      change: { rand: randomBytes(32) },
      error: "invalid recipientRand for ticket recipientRandHash",
      fatal: true,
    },
    {
      name: "signed by another key",
      change: { sig: ticket(other, 4).sig },
      error: "invalid ticket signature",
      fatal: false,
    },
    {
      name: "the signature of another nonce",
      change: { senderNonce: 9 },
      error: "invalid ticket signature",
      fatal: false,
    },
  ])("$name", ({ change, error, fatal }) => {
    const problem = ticketProblem({ ...good, ...change });
    expect(problem?.message).toBe(error);
    if (error) expect(problem?.fatal).toBe(fatal);
  });
});
