import { describe, expect, it } from "vitest";
import type { NodeChainFacts } from "../facts.ts";
import { parseRpcUrl } from "../rpc-url.ts";
import { chainHealth } from "./chain-healthy.ts";

const NOW = 1_800_000_000_000;
const local = parseRpcUrl("http://127.0.0.1:8545");
const remoteHttps = parseRpcUrl("https://arb-mainnet.example.com/v2/SECRETKEY");
const remoteHttp = parseRpcUrl("http://arb-mainnet.example.com/v2/SECRETKEY");

function facts(
  over: Partial<NodeChainFacts> = {},
  rpc: Partial<Extract<NodeChainFacts["rpc"], { ok: true }>> = {},
) {
  return {
    readAt: NOW,
    rpc: {
      ok: true,
      chainId: 42161,
      blockNumber: 100,
      blockTimestamp: NOW / 1000 - 2,
      blockSeenSince: NOW - 1000,
      ...rpc,
    },
    protocol: { ok: true, controller: "0xD8E8328501E9645d16Cf49539efC04f734606ee4", addresses: {} },
    ...over,
  } as NodeChainFacts;
}

const base = { expectedChainId: 42161, staleAfterMs: 120_000, now: NOW };

describe("ChainHealthy", () => {
  it.each([
    ["a fresh head on the network's chain", local, facts(), "True", "RPCHealthy", []],
    [
      "no answer",
      local,
      facts({ rpc: { ok: false, kind: "refused", message: "http://127.0.0.1:8545: connection refused" } }),
      "False",
      "RPCUnreachable",
      ["EthereumUnreachable"],
    ],
    ["another chain", local, facts({}, { chainId: 1337 }), "False", "ChainIdMismatch", ["ChainIdMismatch"]],
    [
      "no protocol at the Controller",
      local,
      facts({ protocol: { ok: false, message: "no contract code at the Controller address 0xabc" } }),
      "False",
      "ProtocolNotFound",
      ["ProtocolNotFound"],
    ],
    [
      "a head 5 min old",
      local,
      facts({}, { blockTimestamp: NOW / 1000 - 300 }),
      "False",
      "RPCStale",
      ["RPCStale"],
    ],
    [
      "a head whose number has not changed for 3 min",
      local,
      facts({}, { blockSeenSince: NOW - 180_000 }),
      "False",
      "RPCStale",
      ["RPCStale"],
    ],
    ["a remote http RPC", remoteHttp, facts(), "False", "InsecureRemoteRPC", ["InsecureRemoteRPC"]],
    ["a remote https RPC", remoteHttps, facts(), "True", "RPCHealthy", []],
    [
      "a remote http RPC that is also stale: the condition names both, the reason is the first",
      remoteHttp,
      facts({}, { blockTimestamp: NOW / 1000 - 600 }),
      "False",
      "RPCStale",
      ["RPCStale", "InsecureRemoteRPC"],
    ],
    [
      "an unreachable remote http RPC: unreachable wins (an error beats a warning)",
      remoteHttp,
      facts({ rpc: { ok: false, kind: "timeout", message: "timed out" } }),
      "False",
      "RPCUnreachable",
      ["EthereumUnreachable", "InsecureRemoteRPC"],
    ],
  ])("%s", (_name, rpc, f, status, reason, ids) => {
    const r = chainHealth({ ...base, rpc, facts: f });
    expect(r.condition).toMatchObject({ type: "ChainHealthy", status, reason });
    expect(r.findings.map((x) => x.id)).toEqual(ids);
  });

  it("errors stop service, warnings do not", () => {
    const unreachable = chainHealth({
      ...base,
      rpc: local,
      facts: facts({ rpc: { ok: false, kind: "refused", message: "refused" } }),
    });
    expect(unreachable.condition?.severity).toBe("error");
    const stale = chainHealth({
      ...base,
      rpc: local,
      facts: facts({}, { blockTimestamp: NOW / 1000 - 600 }),
    });
    expect(stale.condition?.severity).toBe("warning");
    const minedAt = new Date(NOW - 600_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    expect(stale.condition?.message).toContain(`block 100 was mined at ${minedAt} (stale after 2 min)`);
    // The same head a minute later: the same message (no status write for nothing).
    const later = chainHealth({
      ...base,
      now: NOW + 60_000,
      rpc: local,
      facts: facts({}, { blockTimestamp: NOW / 1000 - 600 }),
    });
    expect(later.condition?.message).toBe(stale.condition?.message);
  });

  it("a configurable stale time: 10 s makes a 30 s old head stale", () => {
    const f = facts({}, { blockTimestamp: NOW / 1000 - 30 });
    expect(chainHealth({ ...base, rpc: local, facts: f }).condition?.status).toBe("True");
    expect(chainHealth({ ...base, staleAfterMs: 10_000, rpc: local, facts: f }).condition?.reason).toBe(
      "RPCStale",
    );
  });

  it("does not check the chain id when the network names none", () => {
    const r = chainHealth({
      ...base,
      expectedChainId: undefined,
      rpc: local,
      facts: facts({}, { chainId: 7 }),
    });
    expect(r.condition?.status).toBe("True");
  });

  it("names the chain ids and never shows the RPC's API key", () => {
    const r = chainHealth({ ...base, rpc: remoteHttp, facts: facts({}, { chainId: 1 }) });
    expect(r.condition?.message).toMatch(/is chain 1, but the network is chain 42161/);
    expect(JSON.stringify(r)).not.toContain("SECRETKEY");
  });

  it("a ws:// RPC is not read: Unknown, and still insecure when remote", () => {
    const ws = parseRpcUrl("ws://rpc.example.com/key");
    const r = chainHealth({
      ...base,
      rpc: ws,
      facts: facts({ rpc: { ok: false, kind: "not-read", message: "ws:// is not read" } }),
    });
    expect(r.condition).toMatchObject({ status: "Unknown", reason: "NotChecked" });
    expect(r.findings.map((f) => f.id)).toEqual(["InsecureRemoteRPC"]);
  });
});
