// The ticket parameters an on-chain orchestrator puts in OrchestratorInfo (core/orchestrator.go
// TicketParams, pm/recipient.go TicketParams), worked out as the node does from what the chain
// says now: the face value is the redemption cost (eth_gasPrice x redeemGas) x txCostMultiplier
// (100), at least -ticketEV x 100, lowered to the gateway's reserve share (its TicketBroker
// reserve / the active pool's size: pm/sendermonitor.go maxFloat without pending tickets) and to
// -maxFaceValue; the win probability makes each ticket worth -ticketEV; the parameters expire 40
// blocks after the head (paramsExpirationBlock) and carry the current round and its block hash
// (RoundsManager.currentRound, blockHashForRound). recipientRandHash commits to an HMAC of the
// parameters under a secret made at start, as the node's. Where the node refuses (a reserve share
// below the ticket EV: errInsufficientSenderReserve, an empty sender being the zero address with
// no reserve) GetOrchestrator fails with the node's words, "insufficient sender reserve".
import { createHmac, randomBytes } from "node:crypto";
import { getBytes, keccak256 } from "ethers";
import type { Rational } from "../node/pricing/rational.ts";
import { TX_COST_MULTIPLIER } from "../node/pricing/ticket-overhead.ts";
import { bigIntToBytes, type MessageInput } from "../node/wire/messages.ts";
import type { SimulatedEthClient } from "./chain-client.ts";

/** pm/recipient.go errInsufficientSenderReserve: what GetOrchestrator answers an unfunded sender. */
export const INSUFFICIENT_SENDER_RESERVE = "insufficient sender reserve";

/** pm/recipient.go paramsExpirationBlock. */
const PARAMS_EXPIRATION_BLOCKS = 40n;
/** pm/recipient.go evMultiplier. */
const EV_MULTIPLIER = 100n;
/** 2^256 - 1: pm's maxWinProb. */
const MAX_WIN_PROB = (1n << 256n) - 1n;
/** How long chain reads are reused (the node's watchers update on new blocks). */
const CHAIN_CACHE_MS = 5_000;

export interface TicketSettings {
  /** The orchestrator's address (20 bytes). */
  recipient: () => Promise<Buffer>;
  /** -ticketEV, wei. */
  ev: bigint;
  /** -maxFaceValue, wei (0: none). */
  maxFaceValue: bigint;
  /** starter.go redeemGasL1 / redeemGasL2. */
  redeemGas: bigint;
}

/** What a ticket's recipientRand is made of (pm/recipient.go rand's arguments). */
export interface QuotedParams {
  /** big.Int.Bytes() of the seed: no leading zeros. */
  seed: Buffer;
  /** 20 bytes (the zero address' bytes when the asker was anonymous). */
  sender: Buffer;
  faceValue: bigint;
  winProb: bigint;
  expirationBlock: bigint;
  /** Wei per pixel, reduced (big.Rat). */
  price: Rational;
  creationRound: bigint;
  creationRoundBlockHash: Buffer;
}

/** keccak256 of the rand left-padded to 32 bytes: what TicketParams.recipientRandHash carries. */
export function recipientRandHash(rand: Buffer): Buffer {
  return Buffer.from(getBytes(keccak256(leftPad32(rand))));
}

function leftPad32(bytes: Buffer): Buffer {
  return leftPad(bytes, 32);
}

/** ethcommon.LeftPadBytes over the last `size` bytes (an address' Bytes() is always 20). */
function leftPad(bytes: Buffer, size: number): Buffer {
  const tail = bytes.subarray(Math.max(0, bytes.length - size));
  return Buffer.concat([Buffer.alloc(size - tail.length), tail]);
}

interface ChainView {
  blockNumber: bigint;
  gasPrice: bigint;
  round: bigint;
  roundBlockHash: string;
  poolSize: bigint;
}

export class TicketParamsSource {
  readonly #secret = randomBytes(32);
  readonly #eth: SimulatedEthClient;
  readonly #settings: TicketSettings;
  #view: { at: number; value: Promise<ChainView> } | undefined;
  readonly #reserves = new Map<string, { at: number; value: Promise<bigint> }>();

  constructor(eth: SimulatedEthClient, settings: TicketSettings) {
    this.#eth = eth;
    this.#settings = settings;
  }

  /** For `sender` (20 bytes, or empty) at `price` wei per pixel. */
  async paramsFor(
    sender: Buffer,
    price: Rational,
  ): Promise<MessageInput<"OrchestratorInfo">["ticketParams"]> {
    const view = await this.#chain();
    const { ev, maxFaceValue, redeemGas, recipient } = this.#settings;
    let faceValue = 0n;
    if (price.num > 0n) {
      faceValue = view.gasPrice * redeemGas * TX_COST_MULTIPLIER;
      if (faceValue < ev) faceValue = ev * EV_MULTIPLIER;
      const maxFloat = sender.length === 20 ? await this.#maxFloat(sender, view.poolSize) : 0n;
      if (maxFloat !== undefined && faceValue > maxFloat) faceValue = maxFloat;
      if (maxFaceValue > 0n && faceValue > maxFaceValue) faceValue = maxFaceValue;
      if (faceValue < ev) throw new Error(INSUFFICIENT_SENDER_RESERVE);
    }
    const winProb = winProbFor(faceValue, ev);
    const expirationBlock = view.blockNumber + PARAMS_EXPIRATION_BLOCKS;
    const seed = bigIntToBytes(BigInt(`0x${randomBytes(32).toString("hex")}`));
    const roundHash = Buffer.from(getBytes(view.roundBlockHash));
    const recipientRand = this.recipientRand({
      seed,
      sender,
      faceValue,
      winProb,
      expirationBlock,
      price,
      creationRound: view.round,
      creationRoundBlockHash: roundHash,
    });
    return {
      recipient: await recipient(),
      faceValue: bigIntToBytes(faceValue),
      winProb: bigIntToBytes(winProb),
      recipientRandHash: recipientRandHash(recipientRand),
      seed,
      expirationBlock: bigIntToBytes(expirationBlock),
      expirationParams: { creationRound: view.round, creationRoundBlockHash: roundHash },
    };
  }

  /**
   * pm/recipient.go rand: the HMAC, under the secret made at start, of what the parameters were
   * quoted on (the seed, sender, face value, win probability, expiration block, price and the aux
   * data: creation round and its block hash, none when both are zero). A ticket whose
   * recipientRandHash is not keccak256 of this was not issued by this orchestrator.
   */
  recipientRand(q: QuotedParams): Buffer {
    const round = bigIntToBytes(q.creationRound);
    const aux =
      q.creationRound === 0n && q.creationRoundBlockHash.every((b) => b === 0)
        ? Buffer.alloc(0)
        : Buffer.concat([Buffer.alloc(32 - round.length), round, leftPad32(q.creationRoundBlockHash)]);
    return createHmac("sha256", this.#secret)
      .update(
        Buffer.concat([
          q.seed,
          leftPad(q.sender, 20),
          bigIntToBytes(q.faceValue),
          bigIntToBytes(q.winProb),
          bigIntToBytes(q.expirationBlock),
          bigIntToBytes(q.price.num),
          bigIntToBytes(q.price.den),
          aux,
        ]),
      )
      .digest();
  }

  #chain(): Promise<ChainView> {
    if (this.#view && Date.now() - this.#view.at < CHAIN_CACHE_MS) return this.#view.value;
    const value = (async () => {
      const eth = this.#eth;
      const [head, round, poolSize] = await Promise.all([
        eth.head(),
        eth.read<bigint>("RoundsManager", "currentRound"),
        eth.read<bigint>("BondingManager", "getTranscoderPoolSize"),
      ]);
      const roundBlockHash = await eth.read<string>("RoundsManager", "blockHashForRound", [round]);
      return { ...head, round, roundBlockHash, poolSize };
    })();
    this.#view = { at: Date.now(), value };
    value.catch(() => {
      if (this.#view?.value === value) this.#view = undefined;
    });
    return value;
  }

  /** The sender's reserve share, or undefined when it cannot be read. */
  async #maxFloat(sender: Buffer, poolSize: bigint): Promise<bigint | undefined> {
    const key = sender.toString("hex");
    const cached = this.#reserves.get(key);
    let value = cached && Date.now() - cached.at < CHAIN_CACHE_MS ? cached.value : undefined;
    if (!value) {
      value = this.#eth
        .read<unknown[]>("TicketBroker", "getSenderInfo", [`0x${key}`])
        .then((info) => BigInt((info[1] as unknown[])[0] as bigint));
      this.#reserves.set(key, { at: Date.now(), value });
    }
    try {
      const reserve = await value;
      return poolSize > 0n ? reserve / poolSize : reserve;
    } catch {
      this.#reserves.delete(key);
      return undefined;
    }
  }
}

/** pm/recipient.go winProb: EV / faceValue of 2^256 - 1, rounded up. */
export function winProbFor(faceValue: bigint, ev: bigint): bigint {
  if (faceValue === 0n) return 0n;
  if (faceValue === ev) return MAX_WIN_PROB;
  const x = MAX_WIN_PROB / faceValue;
  return MAX_WIN_PROB % faceValue !== 0n ? ev * (x + 1n) : ev * x;
}
