// Probabilistic micropayment tickets as go-livepeer's pm package makes them for a sender
// (pm/ticket.go, pm/sender.go CreateTicketBatch, server/segment_rpc.go genPayment): one batch on
// the orchestrator's ticket parameters, nonces counting up from the session's, each ticket's hash
// (keccak256 of recipient, sender, face value, win prob, nonce, recipientRandHash and the aux data
// creation round + its block hash) signed by the sender's account.
import type { Wallet } from "ethers";
import { type Rational, rational } from "../../node/pricing/rational.ts";
import {
  bigIntToBytes,
  bytesToBigInt,
  type MessageInput,
  type TicketParamsMessage,
} from "../../node/wire/messages.ts";
import { keccak, nodeSign } from "./signatures.ts";

/** pm's maxWinProb: 2^256 - 1. */
export const MAX_WIN_PROB = (1n << 256n) - 1n;

export interface ExpirationParams {
  creationRound: bigint;
  creationRoundBlockHash: Buffer;
}

/** pm/ticket.go ticketEV: faceValue x winProb / maxWinProb. */
export function ticketEv(params: TicketParamsMessage): Rational {
  return rational(bytesToBigInt(params.faceValue) * bytesToBigInt(params.winProb), MAX_WIN_PROB);
}

const word = (value: bigint) => {
  const bytes = bigIntToBytes(value);
  return Buffer.concat([Buffer.alloc(32 - bytes.length), bytes]);
};

/** pm/ticket.go Hash: keccak256 of flatten(). */
export function ticketHash(
  params: TicketParamsMessage,
  sender: Buffer,
  senderNonce: number,
  expiration: ExpirationParams,
): Buffer {
  const aux =
    expiration.creationRound === 0n && expiration.creationRoundBlockHash.every((b) => b === 0)
      ? Buffer.alloc(0)
      : Buffer.concat([word(expiration.creationRound), padHash(expiration.creationRoundBlockHash)]);
  return keccak(
    Buffer.concat([
      padAddress(params.recipient),
      sender,
      word(bytesToBigInt(params.faceValue)),
      word(bytesToBigInt(params.winProb)),
      word(BigInt(senderNonce)),
      padHash(params.recipientRandHash),
      aux,
    ]),
  );
}

/** genPayment's net.Payment with a batch of `count` tickets after `nonce`. */
export function ticketBatchPayment(
  wallet: Wallet,
  params: TicketParamsMessage,
  expiration: ExpirationParams,
  nonce: number,
  count: number,
  expectedPrice: MessageInput<"Payment">["expectedPrice"],
): MessageInput<"Payment"> {
  const sender = Buffer.from(wallet.address.slice(2), "hex");
  const ticketSenderParams = Array.from({ length: count }, (_, i) => {
    const senderNonce = nonce + i + 1;
    return { senderNonce, sig: nodeSign(wallet, ticketHash(params, sender, senderNonce, expiration)) };
  });
  return {
    ticketParams: {
      recipient: params.recipient,
      faceValue: params.faceValue,
      winProb: params.winProb,
      recipientRandHash: params.recipientRandHash,
      seed: params.seed,
      expirationBlock: params.expirationBlock,
    },
    sender,
    expirationParams: {
      creationRound: expiration.creationRound.toString(),
      creationRoundBlockHash: expiration.creationRoundBlockHash,
    },
    ticketSenderParams,
    ...(expectedPrice ? { expectedPrice } : {}),
  };
}

// ethcommon.BytesToAddress / BytesToHash: the last bytes, left-padded.
function padAddress(bytes: Buffer): Buffer {
  return leftPad(bytes, 20);
}
function padHash(bytes: Buffer): Buffer {
  return leftPad(bytes, 32);
}
function leftPad(bytes: Buffer, size: number): Buffer {
  const tail = bytes.subarray(Math.max(0, bytes.length - size));
  return Buffer.concat([Buffer.alloc(size - tail.length), tail]);
}
