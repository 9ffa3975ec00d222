// The shared reads against a real HTTP JSON-RPC server on loopback that answers like a chain with
// the protocol deployed (canned answers, counted): what is batched, what is cached and for how
// long, what a failing endpoint costs. The real chain is test/integration/chain.test.ts.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AbiCoder, ZeroAddress } from "ethers";
import { afterEach, describe, expect, it } from "vitest";
import { ChainReads } from "./chain-reads.ts";
import { checkNodeChain } from "./check-node.ts";
import {
  BONDING_MANAGER,
  CONTROLLER,
  CONTROLLER_IDS,
  type ProtocolFunction,
  ROUNDS_MANAGER,
  SERVICE_REGISTRY,
  TICKET_BROKER,
} from "./protocol-abi.ts";
import { parseRpcUrl } from "./rpc-url.ts";

const CONTRACTS: Record<string, string> = {
  BondingManager: "0x00000000000000000000000000000000000000b1",
  RoundsManager: "0x00000000000000000000000000000000000000b2",
  ServiceRegistry: "0x00000000000000000000000000000000000000b3",
  TicketBroker: "0x00000000000000000000000000000000000000b4",
};

interface FakeChain {
  url: string;
  /** HTTP requests and JSON-RPC calls received, by method. */
  requests: number;
  calls: Record<string, number>;
  block: number;
  /** Answer every request with this HTTP status instead. */
  failWith?: number;
  /** Never answer. */
  hang?: boolean;
  /** Refuse batches the way some providers do. */
  refuseBatches?: boolean;
  blockNumberAnswer?: unknown;
  /** No contract anywhere: eth_getCode and eth_call answer "0x". */
  noCode?: boolean;
  close(): Promise<void>;
}

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

const BY_ID = new Map(Object.entries(CONTROLLER_IDS).map(([name, id]) => [id.slice(2), CONTRACTS[name]!]));
const FUNCTIONS: ProtocolFunction[] = [
  CONTROLLER,
  SERVICE_REGISTRY,
  BONDING_MANAGER,
  ROUNDS_MANAGER,
  TICKET_BROKER,
].flatMap((t) => Object.values(t));
const coder = AbiCoder.defaultAbiCoder();

/** The chain's answer to a call, encoded as the contract would. */
function ethCall(data: string): string {
  const f = FUNCTIONS.find((x) => data.startsWith(x.selector));
  if (!f) throw new Error(`unknown selector ${data.slice(0, 10)}`);
  if (f === CONTROLLER.getContract)
    return coder.encode(["address"], [BY_ID.get(data.slice(10)) ?? ZeroAddress]);
  const answers = new Map<ProtocolFunction, [string[], unknown[]]>([
    [SERVICE_REGISTRY.getServiceURI, [["string"], ["https://orch.example.com:8935"]]],
    [BONDING_MANAGER.isActiveTranscoder, [["bool"], [true]]],
    [BONDING_MANAGER.isRegisteredTranscoder, [["bool"], [true]]],
    [BONDING_MANAGER.transcoderTotalStake, [["uint256"], [10n ** 21n]]],
    [
      BONDING_MANAGER.getTranscoder,
      [Array(10).fill("uint256"), [3499n, 0n, 0n, 0n, 10n, 2n ** 255n, 0n, 0n, 0n, 0n]],
    ],
    [ROUNDS_MANAGER.currentRound, [["uint256"], [3500n]]],
    [ROUNDS_MANAGER.currentRoundInitialized, [["bool"], [true]]],
    [ROUNDS_MANAGER.currentRoundStartBlock, [["uint256"], [20_160_000n]]],
    [ROUNDS_MANAGER.roundLength, [["uint256"], [5760n]]],
    [ROUNDS_MANAGER.blockNum, [["uint256"], [20_161_000n]]],
    [TICKET_BROKER.getSenderInfo, [Array(4).fill("uint256"), [10n ** 18n, 0n, 10n ** 18n, 0n]]],
  ]);
  const [types, values] = answers.get(f)!;
  return coder.encode(types, values);
}

function answer(chain: FakeChain, call: { id: number; method: string; params: unknown[] }): unknown {
  chain.calls[call.method] = (chain.calls[call.method] ?? 0) + 1;
  const result = (() => {
    switch (call.method) {
      case "eth_chainId":
        return "0xa4b1";
      case "eth_blockNumber":
        return chain.blockNumberAnswer ?? `0x${chain.block.toString(16)}`;
      case "eth_getBlockByNumber":
        return {
          number: `0x${chain.block.toString(16)}`,
          timestamp: `0x${Math.floor(Date.now() / 1000).toString(16)}`,
        };
      case "eth_getBalance":
        return "0xde0b6b3a7640000";
      case "eth_gasPrice":
        return "0x3b9aca00";
      case "eth_getCode":
        return chain.noCode ? "0x" : "0x6080";
      case "eth_call":
        return chain.noCode ? "0x" : ethCall((call.params[0] as { data: string }).data);
      default:
        throw new Error(call.method);
    }
  })();
  return { jsonrpc: "2.0", id: call.id, result };
}

async function fakeChain(setup: Partial<FakeChain> = {}): Promise<FakeChain> {
  const chain = { requests: 0, calls: {}, block: 1000, ...setup } as FakeChain;
  const server = createServer(async (req: IncomingMessage, res) => {
    chain.requests++;
    let body = "";
    for await (const c of req) body += c;
    if (chain.hang) return;
    if (chain.failWith) {
      res.writeHead(chain.failWith).end("over capacity");
      return;
    }
    const parsed = JSON.parse(body);
    if (Array.isArray(parsed) && chain.refuseBatches) {
      res.end(
        JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "batch not supported" } }),
      );
      return;
    }
    const out = Array.isArray(parsed) ? parsed.map((c) => answer(chain, c)) : answer(chain, parsed);
    res.setHeader("content-type", "application/json").end(JSON.stringify(out));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  chain.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  chain.close = () => new Promise((r) => server.close(() => r()));
  return chain;
}

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const orchestrator = (chain: FakeChain, i: number) => ({
  role: "orchestrator" as const,
  network: "arbitrum-one-mainnet",
  ethUrl: chain.url,
  address: `0x${(i + 1).toString(16).padStart(40, "0")}`,
  serviceAddr: "orch.example.com:8935",
});

describe("shared chain reads", () => {
  it("1,000 orchestrators on one RPC share the head, the Controller's addresses and the round", async () => {
    const chain = await fakeChain();
    const reads = new ChainReads({ requestsPerSecond: 10_000, batchMaxCount: 100 });
    const checks = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => checkNodeChain(reads, orchestrator(chain, i))),
    );
    expect(checks.every((c) => c.conditions.every((x) => x.status === "True"))).toBe(true);
    expect(chain.calls.eth_blockNumber).toBe(1);
    expect(chain.calls.eth_getCode).toBe(1);
    // 4 Controller lookups + 5 round reads, shared; 5 own reads + a balance per orchestrator.
    expect(chain.calls.eth_call).toBe(4 + 5 + 1000 * 5);
    expect(chain.calls.eth_getBalance).toBe(1000);
    // The gas price is the chain's, not a node's: one read per block for all of them.
    expect(chain.calls.eth_gasPrice).toBe(1);
    const [stats] = reads.stats();
    expect(stats?.calls).toBe(3 + 1 + 4 + 5 + 6000 + 1);
    // Batched 100 calls to a request.
    expect(chain.requests).toBeLessThanOrEqual(Math.ceil(stats!.calls / 100) + 4);
    expect(stats?.httpRequests).toBe(chain.requests);
  });

  it("one node looked at twice at the same block reads nothing new; a new block reads its own facts again", async () => {
    const chain = await fakeChain();
    const c = clock();
    const reads = new ChainReads({ now: c.now, headTtlMs: 5_000 });
    await checkNodeChain(reads, orchestrator(chain, 0));
    const after1 = { ...chain.calls };
    await checkNodeChain(reads, orchestrator(chain, 0));
    expect(chain.calls).toEqual(after1);
    c.advance(5_000);
    chain.block++;
    await checkNodeChain(reads, orchestrator(chain, 0));
    expect(chain.calls.eth_blockNumber).toBe(2);
    // Addresses stay cached (10 min); the round and the node's reads are asked at the new block.
    expect(chain.calls.eth_getCode).toBe(1);
    expect(chain.calls.eth_call).toBe(after1.eth_call! + 5 + 5);
  });

  it("calls made together travel in one request", async () => {
    const chain = await fakeChain();
    const reads = new ChainReads();
    await checkNodeChain(reads, orchestrator(chain, 0));
    // head, Controller, round + own reads.
    expect(chain.requests).toBe(3);
  });

  it("an endpoint that refuses batches gets the calls one by one", async () => {
    const chain = await fakeChain({ refuseBatches: true });
    const reads = new ChainReads();
    const check = await checkNodeChain(reads, orchestrator(chain, 0));
    expect(check.conditions.map((c) => c.status)).toEqual(["True", "True"]);
    expect(chain.requests).toBe(1 + chain.calls.eth_blockNumber! + 2 + 1 + 4 + 5 + 7);
  });
});

describe("a failing RPC", () => {
  it("costs one request per head period, however many nodes ask", async () => {
    const chain = await fakeChain({ failWith: 503 });
    const c = clock();
    const reads = new ChainReads({ now: c.now, headTtlMs: 5_000 });
    const checks = await Promise.all(
      Array.from({ length: 200 }, (_, i) => checkNodeChain(reads, orchestrator(chain, i))),
    );
    expect(chain.requests).toBe(1);
    expect(checks[0]?.conditions[0]).toMatchObject({
      status: "False",
      reason: "RPCUnreachable",
      severity: "error",
    });
    expect(checks[0]?.conditions[0]?.message).toMatch(/answered HTTP 503: over capacity/);
    expect(checks[199]?.conditions[1]).toMatchObject({ status: "Unknown", reason: "ChainNotRead" });
    await checkNodeChain(reads, orchestrator(chain, 0));
    expect(chain.requests).toBe(1);
    c.advance(5_000);
    chain.failWith = undefined;
    const recovered = await checkNodeChain(reads, orchestrator(chain, 0));
    expect(recovered.conditions[0]?.status).toBe("True");
  });

  it("an endpoint that does not answer times out", async () => {
    const chain = await fakeChain({ hang: true });
    const reads = new ChainReads({ timeoutMs: 300 });
    const t0 = Date.now();
    const check = await checkNodeChain(reads, orchestrator(chain, 0));
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(check.conditions[0]?.message).toMatch(/did not answer within 300 ms/);
  });

  it("a closed port is refused", async () => {
    const chain = await fakeChain();
    await chain.close();
    const check = await checkNodeChain(new ChainReads(), orchestrator(chain, 0));
    expect(check.conditions[0]?.message).toMatch(/connection refused/);
  });

  it("an eth_blockNumber that is not a hex number is not a chain RPC", async () => {
    const chain = await fakeChain({ blockNumberAnswer: 1234 });
    const check = await checkNodeChain(new ChainReads(), orchestrator(chain, 0));
    expect(check.conditions[0]).toMatchObject({ status: "False", reason: "RPCUnreachable" });
    expect(check.conditions[0]?.message).toMatch(
      /answered eth_blockNumber with 1234, not a hex block number/,
    );
  });
});

describe("the wrong chain", () => {
  it("an RPC of another chain than the network's: ChainIdMismatch, and nothing else is read", async () => {
    const chain = await fakeChain();
    const check = await checkNodeChain(new ChainReads(), { ...orchestrator(chain, 0), network: "mainnet" });
    expect(check.conditions[0]).toMatchObject({
      status: "False",
      reason: "ChainIdMismatch",
      severity: "error",
    });
    expect(check.conditions[0]?.message).toMatch(/is chain 42161, but the network is chain 1/);
    expect(chain.calls.eth_call).toBeUndefined();
  });

  it("no contract at the Controller address: ProtocolNotFound", async () => {
    const chain = await fakeChain({ noCode: true });
    const check = await checkNodeChain(new ChainReads(), orchestrator(chain, 0));
    expect(check.conditions[0]).toMatchObject({
      status: "False",
      reason: "ProtocolNotFound",
      severity: "error",
    });
    expect(check.conditions[0]?.message).toMatch(/no contract code at the Controller address 0xD8E8/);
    expect(check.conditions[1]).toMatchObject({ status: "Unknown", reason: "ChainNotRead" });
  });

  it("a network without a built-in Controller and none given: ProtocolNotFound naming -ethController", async () => {
    const chain = await fakeChain();
    const check = await checkNodeChain(new ChainReads(), { ...orchestrator(chain, 0), network: "my-l2" });
    expect(check.conditions[0]?.reason).toBe("ProtocolNotFound");
    expect(check.conditions[0]?.message).toMatch(
      /-network my-l2 has no built-in Controller address.*-ethController/,
    );
  });
});

describe("parseRpcUrl in the reads", () => {
  it("never connects to a ws:// endpoint and says so", async () => {
    const reads = new ChainReads();
    const check = await checkNodeChain(reads, {
      ...orchestrator({ url: "ws://127.0.0.1:1" } as FakeChain, 0),
    });
    expect(check.conditions[0]).toMatchObject({ status: "Unknown", reason: "NotChecked" });
    expect(reads.stats()).toEqual([]);
    expect(parseRpcUrl("ws://127.0.0.1:1").readable).toBe(false);
  });
});
