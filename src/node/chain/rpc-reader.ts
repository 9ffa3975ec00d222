// Reads of one chain endpoint, shared by every node that uses it. The head (chain id, block
// number, head timestamp) is read at most once per `headTtlMs`, failures included, so a dead RPC
// costs one timeout per period, not one per node. Contract reads are cached per (head block,
// call): nodes looked at while the head stands share them, and identical reads in flight are made
// once. They ask for "latest" rather than the head's number, since a load-balanced provider's
// other backends may not have a block that one just announced. Contract addresses are cached per
// Controller for `addressTtlMs`; the active set's entry stake per (BondingManager, round) for
// `poolTtlMs`.
import type { PoolFacts, ProtocolFacts, RpcFacts } from "./facts.ts";
import { JsonRpcClient, type JsonRpcOptions, RpcCallError, RpcTransportError } from "./json-rpc.ts";
import {
  AbiDecodeError,
  BONDING_MANAGER,
  CONTROLLER,
  CONTROLLER_IDS,
  decodeCall,
  encodeCall,
  PROTOCOL_CONTRACTS,
  type ProtocolFunction,
  ZERO_ADDRESS,
} from "./protocol-abi.ts";
import type { RpcUrl } from "./rpc-url.ts";

export interface RpcReaderOptions extends JsonRpcOptions {
  /** The clock of the caches and of "when was this block first seen" (default Date.now). */
  now?: () => number;
  /** How long a head reading (or its failure) is reused (default 5000 ms). */
  headTtlMs?: number;
  /** How long contract addresses from a Controller are reused (default 10 min). */
  addressTtlMs?: number;
  /** How long the active set's entry stake is reused within a round (default 10 min). */
  poolTtlMs?: number;
}

const HEX_QUANTITY = /^0x[0-9a-fA-F]+$/;

interface Timed<T> {
  at: number;
  value: Promise<T>;
}

export class RpcReader {
  readonly client: JsonRpcClient;
  private readonly now: () => number;
  private readonly headTtlMs: number;
  private readonly addressTtlMs: number;
  private readonly poolTtlMs: number;
  private head: Timed<RpcFacts> | undefined;
  private seen: { blockNumber: number; since: number } | undefined;
  private block = -1;
  private calls = new Map<string, Promise<unknown>>();
  private readonly protocols = new Map<string, Timed<ProtocolFacts>>();
  private readonly pools = new Map<string, Timed<PoolFacts>>();
  /** Reads answered from the cache or shared while in flight. */
  cacheHits = 0;
  lastUsed: number;

  constructor(rpc: RpcUrl, opts: RpcReaderOptions = {}) {
    this.client = new JsonRpcClient(rpc, opts);
    this.now = opts.now ?? Date.now;
    this.headTtlMs = opts.headTtlMs ?? 5_000;
    this.addressTtlMs = opts.addressTtlMs ?? 600_000;
    this.poolTtlMs = opts.poolTtlMs ?? 600_000;
    this.lastUsed = this.now();
  }

  /** The chain's head, fresh within headTtlMs. Never rejects: a failure is a fact too. */
  readHead(): Promise<RpcFacts> {
    const now = this.now();
    this.lastUsed = now;
    if (this.head && now - this.head.at < this.headTtlMs) {
      this.cacheHits++;
      return this.head.value;
    }
    const value = this.fetchHead();
    this.head = { at: now, value };
    return value;
  }

  private async fetchHead(): Promise<RpcFacts> {
    const shown = this.client.rpc.shown;
    try {
      const [chainIdHex, blockHex, latest] = await Promise.all([
        this.client.call<unknown>("eth_chainId"),
        this.client.call<unknown>("eth_blockNumber"),
        this.client.call<{ timestamp?: unknown } | null>("eth_getBlockByNumber", ["latest", false]),
      ]);
      if (typeof blockHex !== "string" || !HEX_QUANTITY.test(blockHex)) {
        return badAnswer(
          `${shown} answered eth_blockNumber with ${JSON.stringify(blockHex)}, not a hex block number`,
        );
      }
      if (typeof chainIdHex !== "string" || !HEX_QUANTITY.test(chainIdHex)) {
        return badAnswer(
          `${shown} answered eth_chainId with ${JSON.stringify(chainIdHex)}, not a hex chain id`,
        );
      }
      const stamp = latest?.timestamp;
      if (typeof stamp !== "string" || !HEX_QUANTITY.test(stamp)) {
        return badAnswer(`${shown} answered eth_getBlockByNumber("latest") without a block timestamp`);
      }
      const blockNumber = Number(BigInt(blockHex));
      const readAt = this.now();
      if (!this.seen || this.seen.blockNumber !== blockNumber) this.seen = { blockNumber, since: readAt };
      if (blockNumber !== this.block) {
        // A new block: what was read under the old one is dropped.
        this.block = blockNumber;
        this.calls = new Map();
      }
      return {
        ok: true,
        chainId: Number(BigInt(chainIdHex)),
        blockNumber,
        blockTimestamp: Number(BigInt(stamp)),
        blockSeenSince: this.seen.since,
      };
    } catch (err) {
      if (err instanceof RpcTransportError) return { ok: false, kind: err.kind, message: err.message };
      if (err instanceof RpcCallError)
        return { ok: false, kind: "rpc-error", message: `${shown}: ${err.message}` };
      throw err;
    }
  }

  /** eth_call while the head is `block`, decoded; shared with identical calls at that block. */
  callAt<T>(block: number, to: string, f: ProtocolFunction, args: readonly string[] = []): Promise<T> {
    const data = encodeCall(f, args);
    const raw = this.shared(block, `call:${to.toLowerCase()}:${data}`, () =>
      this.client.call<string>("eth_call", [{ to, data }, "latest"]),
    );
    return raw.then((result) => decodeCall<T>(f, result as string));
  }

  balanceAt(block: number, address: string): Promise<bigint> {
    return this.shared(block, `balance:${address.toLowerCase()}`, () =>
      this.client.call<string>("eth_getBalance", [address, "latest"]),
    ).then((h) => BigInt(h as string));
  }

  /** eth_gasPrice while the head is `block` (what a transaction sent now pays per gas). */
  gasPriceAt(block: number): Promise<bigint> {
    return this.shared(block, "gasPrice", () => this.client.call<string>("eth_gasPrice")).then((h) =>
      BigInt(h as string),
    );
  }

  private shared(block: number, key: string, read: () => Promise<unknown>): Promise<unknown> {
    this.lastUsed = this.now();
    const cacheKey = `${block}:${key}`;
    const cached = this.calls.get(cacheKey);
    if (cached) {
      this.cacheHits++;
      return cached;
    }
    const value = read();
    // Only reads at the current head are kept; a transport failure is not an answer to keep.
    if (block === this.block) this.calls.set(cacheKey, value);
    value.catch((err: unknown) => {
      if (err instanceof RpcTransportError && this.calls.get(cacheKey) === value) this.calls.delete(cacheKey);
    });
    return value;
  }

  /** The protocol's contract addresses from its Controller; rejects only when the RPC fails. */
  readProtocol(block: number, controller: string): Promise<ProtocolFacts> {
    const key = controller.toLowerCase();
    const now = this.now();
    const cached = this.protocols.get(key);
    if (cached && now - cached.at < this.addressTtlMs) {
      this.cacheHits++;
      return cached.value;
    }
    const value = this.fetchProtocol(block, controller);
    this.protocols.set(key, { at: now, value });
    // A missing protocol is asked again after a head period, not an address period.
    value.then(
      (p) => {
        if (!p.ok && this.protocols.get(key)?.value === value)
          this.protocols.set(key, { at: now - this.addressTtlMs + this.headTtlMs, value });
      },
      () => {
        if (this.protocols.get(key)?.value === value) this.protocols.delete(key);
      },
    );
    return value;
  }

  private async fetchProtocol(block: number, controller: string): Promise<ProtocolFacts> {
    // Sent together; the code decides how to read the rest (no code: the calls answer nothing).
    const code = this.client.call<string>("eth_getCode", [controller, "latest"]);
    const lookups = Promise.all(
      PROTOCOL_CONTRACTS.map((name) =>
        this.callAt<string>(block, controller, CONTROLLER.getContract, [CONTROLLER_IDS[name]]),
      ),
    );
    lookups.catch(() => {});
    if ((await code).replace(/^0x0*$/, "") === "") {
      return { ok: false, message: `no contract code at the Controller address ${controller}` };
    }
    let addresses: string[];
    try {
      addresses = await lookups;
    } catch (err) {
      if (err instanceof RpcCallError || err instanceof AbiDecodeError) {
        return {
          ok: false,
          message: `the contract at ${controller} does not answer as a Controller (${(err as Error).message})`,
        };
      }
      throw err;
    }
    const missing = PROTOCOL_CONTRACTS.filter((_, i) => addresses[i] === ZERO_ADDRESS);
    if (missing.length > 0) {
      return {
        ok: false,
        message: `the contract at ${controller} has no ${missing.join(", ")} registered: it is not a Livepeer Controller`,
      };
    }
    return {
      ok: true,
      controller,
      addresses: Object.fromEntries(PROTOCOL_CONTRACTS.map((name, i) => [name, addresses[i]!])),
    };
  }

  /**
   * The transcoder pool's size and, when it is full, its smallest stake: what an orchestrator
   * outside the active set must beat. Walking the pool is one read per member, so it is cached
   * per round (and for poolTtlMs within one).
   */
  readPool(block: number, bondingManager: string, round: bigint): Promise<PoolFacts> {
    const key = `${bondingManager.toLowerCase()}:${round}`;
    const now = this.now();
    const cached = this.pools.get(key);
    if (cached && now - cached.at < this.poolTtlMs) {
      this.cacheHits++;
      return cached.value;
    }
    for (const k of this.pools.keys())
      if (k.startsWith(`${bondingManager.toLowerCase()}:`)) this.pools.delete(k);
    const value = this.fetchPool(block, bondingManager);
    this.pools.set(key, { at: now, value });
    value.catch(() => {
      if (this.pools.get(key)?.value === value) this.pools.delete(key);
    });
    return value;
  }

  private async fetchPool(block: number, bm: string): Promise<PoolFacts> {
    const [size, maxSize] = await Promise.all([
      this.callAt<bigint>(block, bm, BONDING_MANAGER.getTranscoderPoolSize),
      this.callAt<bigint>(block, bm, BONDING_MANAGER.getTranscoderPoolMaxSize),
    ]);
    const pool: PoolFacts = { size: Number(size), maxSize: Number(maxSize) };
    if (size === 0n || size < maxSize) return pool;
    let member = await this.callAt<string>(block, bm, BONDING_MANAGER.getFirstTranscoderInPool);
    // Sorted by stake, largest first: the last member holds the smallest stake.
    for (let i = 1n; i < size; i++) {
      const next = await this.callAt<string>(block, bm, BONDING_MANAGER.getNextTranscoderInPool, [member]);
      if (next === ZERO_ADDRESS) break;
      member = next;
    }
    pool.lowestStake = await this.callAt<bigint>(block, bm, BONDING_MANAGER.transcoderTotalStake, [member]);
    return pool;
  }
}

function badAnswer(message: string): RpcFacts {
  return { ok: false, kind: "bad-answer", message };
}
