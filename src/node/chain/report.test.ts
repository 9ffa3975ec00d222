import { describe, expect, it } from "vitest";
import { CATALOG_BY_ID } from "../diagnosis/catalog.ts";
import type { NodeChainFacts, NodeChainTarget } from "./facts.ts";
import { DEFAULT_CHAIN_POLICY, evaluateNodeChain, offchainReport } from "./report.ts";
import { parseRpcUrl } from "./rpc-url.ts";

const NOW = 1_800_000_000_000;
const ETH = 10n ** 18n;
const rpc = parseRpcUrl("https://arb1.example.com/rpc");

const orchestrator: NodeChainTarget = {
  role: "orchestrator",
  network: "arbitrum-one-mainnet",
  ethUrl: rpc.url,
  address: "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e",
  serviceAddr: "orch.example.com:8935",
};
const gateway: NodeChainTarget = { ...orchestrator, role: "gateway", serviceAddr: undefined };

function facts(over: Partial<NodeChainFacts> = {}): NodeChainFacts {
  return {
    readAt: NOW,
    rpc: { ok: true, chainId: 42161, blockNumber: 9, blockTimestamp: NOW / 1000, blockSeenSince: NOW },
    protocol: { ok: true, controller: "0xD8E8328501E9645d16Cf49539efC04f734606ee4", addresses: {} },
    round: {
      current: 3500n,
      initialized: true,
      startBlock: 20_160_000n,
      length: 5760n,
      blockNum: 20_161_000n,
    },
    balanceWei: ETH,
    orchestrator: {
      serviceURI: "https://orch.example.com:8935",
      registered: true,
      active: true,
      lastRewardRound: 3500n,
      activationRound: 1n,
      deactivationRound: 2n ** 255n,
      totalStake: 1000n * ETH,
    },
    gateway: { deposit: ETH / 4n, reserve: ETH / 10n, withdrawRound: 0n },
    ...over,
  };
}

describe("evaluateNodeChain", () => {
  it("a healthy orchestrator: ChainHealthy and Registered true, no findings, the status facts", () => {
    const r = evaluateNodeChain(orchestrator, rpc, facts());
    expect(r.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["ChainHealthy", "True", "RPCHealthy"],
      ["Registered", "True", "ServiceURIMatches"],
    ]);
    expect(r.findings).toEqual([]);
    expect(r.facts).toEqual({
      chainId: 42161,
      blockNumber: 9,
      balance: "1",
      currentRound: 3500,
      roundBlocksLeft: 4760,
      roundSecondsLeft: 4760 * 12,
      serviceURI: "https://orch.example.com:8935",
      activeSet: true,
      lastRewardRound: 3500,
    });
  });

  it("a healthy gateway: ChainHealthy and Funded, deposit and reserve in ETH", () => {
    const r = evaluateNodeChain(gateway, rpc, facts());
    expect(r.conditions.map((c) => [c.type, c.reason])).toEqual([
      ["ChainHealthy", "RPCHealthy"],
      ["Funded", "DepositAndReserve"],
    ]);
    expect(r.facts).toMatchObject({ deposit: "0.25", reserve: "0.1", balance: "1" });
    expect(r.facts.serviceURI).toBeUndefined();
  });

  it("findings come one per id, errors first", () => {
    const r = evaluateNodeChain(
      orchestrator,
      rpc,
      facts({
        balanceWei: ETH / 1000n,
        orchestrator: {
          ...facts().orchestrator!,
          serviceURI: "",
          active: false,
          registered: false,
          lastRewardRound: 1n,
        },
      }),
    );
    expect(r.findings.map((f) => [f.id, f.severity])).toEqual([
      ["NotRegistered", "error"],
      ["NotInActiveSet", "warning"],
      ["LowWalletBalance", "warning"],
    ]);
  });

  it("a gateway with a low wallet has Funded=False LowBalance and the finding once", () => {
    const r = evaluateNodeChain(gateway, rpc, facts({ balanceWei: 1n }));
    expect(r.conditions[1]).toMatchObject({ reason: "LowBalance", severity: "warning" });
    expect(r.findings.map((f) => f.id)).toEqual(["LowWalletBalance"]);
  });

  it("the policy sets the thresholds", () => {
    const policy = { ...DEFAULT_CHAIN_POLICY, minBalanceWei: 2n * ETH, rewardGraceFraction: 0 };
    const r = evaluateNodeChain(
      orchestrator,
      rpc,
      facts({ orchestrator: { ...facts().orchestrator!, lastRewardRound: 3499n } }),
      policy,
    );
    expect(r.findings.map((f) => f.id).sort()).toEqual(["LowWalletBalance", "RewardNotCalled"]);
  });

  it("an unreachable RPC leaves the other conditions Unknown and shows no facts but none", () => {
    const r = evaluateNodeChain(gateway, rpc, {
      readAt: NOW,
      rpc: { ok: false, kind: "refused", message: "refused" },
    });
    expect(r.conditions.map((c) => c.status)).toEqual(["False", "Unknown"]);
    expect(r.facts).toEqual({});
  });

  it("offchain: every condition True with reason Offchain, nothing read", () => {
    for (const role of ["orchestrator", "gateway"] as const) {
      const r = offchainReport(role);
      expect(r.conditions.every((c) => c.status === "True" && c.reason === "Offchain")).toBe(true);
      expect(r.conditions.map((c) => c.type)).toEqual(
        role === "orchestrator" ? ["ChainHealthy", "Registered"] : ["ChainHealthy", "Funded"],
      );
      expect(r.conditions[0]?.message).toMatch(/network offchain/);
    }
  });
});

describe("the chain findings in the catalog", () => {
  it.each([
    ["EthereumUnreachable", "error"],
    ["ChainIdMismatch", "error"],
    ["ProtocolNotFound", "error"],
    ["RPCStale", "warning"],
    ["InsecureRemoteRPC", "warning"],
    ["NotRegistered", "error"],
    ["ServiceURIMismatch", "warning"],
    ["GatewayUnfunded", "error"],
    ["NotInActiveSet", "warning"],
    ["RewardNotCalled", "warning"],
    ["LowWalletBalance", "warning"],
  ])("%s is a %s recognised from the chain or the configuration", (id, severity) => {
    const entry = CATALOG_BY_ID.get(id);
    expect(entry?.severity).toBe(severity);
    expect(entry?.recognizedBy.some((r) => r.kind === "chain" || r.kind === "config")).toBe(true);
  });
});
