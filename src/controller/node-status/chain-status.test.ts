import { describe, expect, it } from "vitest";
import {
  DEFAULT_CHAIN_POLICY,
  evaluateNodeChain,
  type NodeChainFacts,
  type NodeChainTarget,
  parseRpcUrl,
} from "../../node/chain/index.ts";
import type { FlagValues } from "../../node/config/index.ts";
import type { DevnetResolution } from "../devnet/deployment-config-map.ts";
import { type ChainSubject, chainStatus, chainSubject } from "./chain-status.ts";

const ADDRESS = "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e";
const CONTROLLER = "0xD8E8328501E9645d16Cf49539efC04f734606ee4";
const onchain: FlagValues = {
  network: "devnet",
  ethUrl: "http://127.0.0.1:8545",
  ethAcctAddr: ADDRESS,
  ethController: CONTROLLER,
  serviceAddr: "o-0.o-pods.ns.svc.cluster.local:8935",
};
const resolved: DevnetResolution = { state: "resolved", configMap: "chain", chainId: 1337 };
const unused: DevnetResolution = { state: "unused" };

describe("chainSubject: the target the node's chain is read as, from its flags", () => {
  it.each<[string, "orchestrator" | "gateway", FlagValues, DevnetResolution, ChainSubject]>([
    ["no -network: offchain", "gateway", {}, unused, { state: "offchain" }],
    ["-network offchain", "orchestrator", { network: "offchain" }, unused, { state: "offchain" }],
    [
      "an orchestrator on a devnet: its account, service address and the deployment's chain id",
      "orchestrator",
      { ...onchain, reward: false },
      resolved,
      {
        state: "target",
        target: {
          role: "orchestrator",
          network: "devnet",
          ethUrl: "http://127.0.0.1:8545",
          address: ADDRESS,
          controller: CONTROLLER,
          chainId: 1337,
          serviceAddr: "o-0.o-pods.ns.svc.cluster.local:8935",
          reward: false,
        },
      },
    ],
    [
      "a gateway: no service address, no reward, the network's chain id",
      "gateway",
      { ...onchain, network: "arbitrum-one-mainnet", ethController: undefined },
      unused,
      {
        state: "target",
        target: {
          role: "gateway",
          network: "arbitrum-one-mainnet",
          ethUrl: "http://127.0.0.1:8545",
          address: ADDRESS,
        },
      },
    ],
    [
      "a devnet ConfigMap that cannot be read: its reason",
      "gateway",
      { network: "devnet" },
      { state: "unresolved", configMap: "chain", reason: "DevnetConfigMapNotFound", message: "not found" },
      {
        state: "unknown",
        verdict: { status: "Unknown", reason: "DevnetConfigMapNotFound", message: "not found" },
      },
    ],
  ])("%s", (_, role, flags, devnet, want) => {
    expect(chainSubject({ role, flags, devnet })).toEqual(want);
  });

  it.each([
    ["no chain URL", { ...onchain, ethUrl: undefined }, "NoChainURL", "spec.ethUrl"],
    ["no account", { ...onchain, ethAcctAddr: undefined }, "NoAccountAddress", "spec.ethAcctAddr"],
  ])("%s: Unknown, naming the field to set", (_, flags, reason, field) => {
    const s = chainSubject({ role: "gateway", flags, devnet: unused });
    expect(s.state === "unknown" && [s.verdict.status, s.verdict.reason]).toEqual(["Unknown", reason]);
    expect(s.state === "unknown" && s.verdict.message).toContain(field);
  });
});

const ETH = 10n ** 18n;
const NOW = 1_800_000_000_000;
const rpc = parseRpcUrl("http://127.0.0.1:8545", { devnet: true });

function read(over: Partial<NodeChainFacts> = {}): NodeChainFacts {
  return {
    readAt: NOW,
    rpc: { ok: true, chainId: 1337, blockNumber: 90, blockTimestamp: NOW / 1000, blockSeenSince: NOW },
    protocol: { ok: true, controller: CONTROLLER, addresses: {} },
    round: { current: 10n, initialized: true, startBlock: 80n, length: 50n, blockNum: 90n },
    balanceWei: ETH,
    orchestrator: {
      serviceURI: "https://o-0.o-pods.ns.svc.cluster.local:8935",
      registered: true,
      active: true,
      lastRewardRound: 10n,
      activationRound: 1n,
      deactivationRound: 2n ** 255n,
      totalStake: 1000n * ETH,
    },
    gateway: { deposit: ETH / 4n, reserve: ETH / 10n, withdrawRound: 0n },
    ...over,
  };
}

function reportFor(role: "orchestrator" | "gateway", facts: NodeChainFacts) {
  const s = chainSubject({ role, flags: onchain, devnet: resolved });
  if (s.state !== "target") throw new Error("expected a target");
  return { subject: s, report: evaluateNodeChain(s.target, rpc, facts, DEFAULT_CHAIN_POLICY, NOW) };
}

const target = (role: NodeChainTarget["role"]): ChainSubject =>
  chainSubject({ role, flags: onchain, devnet: resolved });

describe("chainStatus: the chain's conditions, findings and facts in a status", () => {
  it.each<[string, "orchestrator" | "gateway", Partial<NodeChainFacts>, string[][], string[], object]>([
    [
      "a funded gateway: Funded=True, its deposit, reserve and balance",
      "gateway",
      {},
      [
        ["ChainHealthy", "True", "RPCHealthy"],
        ["Funded", "True", "DepositAndReserve"],
      ],
      [],
      { deposit: "0.25", reserve: "0.1", balance: "1" },
    ],
    [
      "a drained gateway: Funded=False with an error finding (which flips Ready)",
      "gateway",
      { gateway: { deposit: 0n, reserve: 0n, withdrawRound: 0n } },
      [
        ["ChainHealthy", "True", "RPCHealthy"],
        ["Funded", "False", "NoDeposit"],
      ],
      ["GatewayUnfunded:error"],
      { deposit: "0", reserve: "0", balance: "1" },
    ],
    [
      "a registered orchestrator: Registered=True, its service URI, active set and reward round",
      "orchestrator",
      {},
      [
        ["ChainHealthy", "True", "RPCHealthy"],
        ["Registered", "True", "ServiceURIMatches"],
      ],
      [],
      {
        serviceURI: "https://o-0.o-pods.ns.svc.cluster.local:8935",
        activeSet: true,
        lastRewardRound: 10,
        balance: "1",
      },
    ],
    [
      "an orchestrator whose on-chain URI moved: ServiceURIMismatch, a warning",
      "orchestrator",
      { orchestrator: { ...read().orchestrator!, serviceURI: "https://elsewhere.example.com:8935" } },
      [
        ["ChainHealthy", "True", "RPCHealthy"],
        ["Registered", "False", "ServiceURIMismatch"],
      ],
      ["ServiceURIMismatch:warning"],
      {
        serviceURI: "https://elsewhere.example.com:8935",
        activeSet: true,
        lastRewardRound: 10,
        balance: "1",
      },
    ],
    [
      "an RPC that does not answer: ChainHealthy=False, the other Unknown, no facts",
      "gateway",
      {
        rpc: { ok: false, kind: "transport", message: "connect ECONNREFUSED" },
        protocol: undefined,
        round: undefined,
        balanceWei: undefined,
        gateway: undefined,
      },
      [
        ["ChainHealthy", "False", "RPCUnreachable"],
        ["Funded", "Unknown", "ChainNotRead"],
      ],
      ["EthereumUnreachable:error"],
      {},
    ],
  ])("%s", (_, role, over, conditions, findings, facts) => {
    const { subject, report } = reportFor(role, read(over));
    const s = chainStatus(role, subject, report);
    expect(s.conditions.map(([type, v]) => [type, v.status, v.reason])).toEqual(conditions);
    expect(s.findings.map((f) => `${f.id}:${f.severity}`)).toEqual(findings);
    expect(s.facts).toEqual(facts);
  });

  it.each([
    ["orchestrator", ["ChainHealthy", "Registered"]],
    ["gateway", ["ChainHealthy", "Funded"]],
  ] as const)(
    "offchain %s: its conditions True with reason Offchain, saying no chain is used",
    (role, types) => {
      const s = chainStatus(role, { state: "offchain" }, undefined);
      expect(s.conditions.map(([type, v]) => [type, v.status, v.reason])).toEqual(
        types.map((t) => [t, "True", "Offchain"]),
      );
      expect(s.conditions[0]![1].message).toContain("uses no chain");
      expect([s.findings, s.facts]).toEqual([[], {}]);
    },
  );

  it("not read yet: Unknown Checking; not checkable: the subject's reason on both", () => {
    const checking = chainStatus("gateway", target("gateway"), undefined);
    expect(checking.conditions.map(([type, v]) => [type, v.status, v.reason])).toEqual([
      ["ChainHealthy", "Unknown", "Checking"],
      ["Funded", "Unknown", "Checking"],
    ]);
    // Only "not read yet" is unread: a status that knew the chain keeps it until the first check.
    expect(checking.conditions.every(([, v]) => v.unread === true)).toBe(true);
    const noAccount = chainSubject({
      role: "orchestrator",
      flags: { ...onchain, ethAcctAddr: undefined },
      devnet: unused,
    });
    expect(
      chainStatus("orchestrator", noAccount, undefined).conditions.map(([type, v]) => [type, v.reason]),
    ).toEqual([
      ["ChainHealthy", "NoAccountAddress"],
      ["Registered", "NoAccountAddress"],
    ]);
    expect(chainStatus("orchestrator", noAccount, undefined).conditions.some(([, v]) => v.unread)).toBe(
      false,
    );
  });
});
