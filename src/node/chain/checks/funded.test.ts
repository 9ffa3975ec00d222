import { describe, expect, it } from "vitest";
import type { GatewayFacts, NodeChainFacts } from "../facts.ts";
import { funding } from "./funded.ts";

const ADDRESS = "0x2b0814f58c250e09033DA8D3246b93D0245ECA71";
const ETH = 10n ** 18n;
const MIN = 2n * 10n ** 16n;

function facts(g?: Partial<GatewayFacts>, over: Partial<NodeChainFacts> = {}): NodeChainFacts {
  return {
    readAt: 0,
    rpc: { ok: true, chainId: 42161, blockNumber: 1, blockTimestamp: 0, blockSeenSince: 0 },
    round: {
      current: 100n,
      initialized: true,
      startBlock: 5760n * 100n,
      length: 5760n,
      blockNum: 5760n * 100n + 10n,
    },
    balanceWei: ETH,
    gateway: g === undefined ? undefined : { deposit: ETH, reserve: ETH / 2n, withdrawRound: 0n, ...g },
    ...over,
  };
}

describe("Funded", () => {
  it.each([
    ["deposit and reserve", facts({}), "True", "DepositAndReserve", []],
    ["no deposit", facts({ deposit: 0n }), "False", "NoDeposit", ["GatewayUnfunded"]],
    ["no reserve", facts({ reserve: 0n }), "False", "NoReserve", ["GatewayUnfunded"]],
    [
      "neither (drained)",
      facts({ deposit: 0n, reserve: 0n, withdrawRound: 90n }),
      "False",
      "NoDeposit",
      ["GatewayUnfunded"],
    ],
    [
      "funded but unlocked, withdrawable next round: tickets refused",
      facts({ withdrawRound: 101n }),
      "False",
      "DepositUnlocking",
      ["GatewayUnfunded"],
    ],
    ["funded, an unlock ending in 5 rounds", facts({ withdrawRound: 105n }), "True", "DepositAndReserve", []],
    [
      "funded, a wallet below the gas threshold",
      facts({}, { balanceWei: MIN - 1n }),
      "False",
      "LowBalance",
      ["LowWalletBalance"],
    ],
    [
      "unread",
      facts(undefined, { rpc: { ok: false, kind: "timeout", message: "timed out" } }),
      "Unknown",
      "ChainNotRead",
      [],
    ],
  ])("%s", (_name, f, status, reason, ids) => {
    const r = funding({ address: ADDRESS, facts: f, minBalanceWei: MIN });
    expect(r.condition).toMatchObject({ type: "Funded", status, reason });
    expect(r.findings.map((x) => x.id)).toEqual(ids);
  });

  it("an empty deposit stops service (error) and says how to fund it; a low wallet is a warning", () => {
    const empty = funding({ address: ADDRESS, facts: facts({ deposit: 0n }), minBalanceWei: MIN });
    expect(empty.condition?.severity).toBe("error");
    expect(empty.condition?.message).toMatch(/deposit 0 ETH, reserve 0\.5 ETH: with deposit at 0/);
    expect(empty.condition?.message).toContain("livepeer-operator deposit");
    const low = funding({
      address: ADDRESS,
      facts: facts({}, { balanceWei: 10n ** 15n }),
      minBalanceWei: MIN,
    });
    expect(low.condition?.severity).toBe("warning");
    expect(low.condition?.message).toMatch(/holds 0\.001 ETH, below 0\.02 ETH/);
  });

  it("a pending unlock is said in the message, with the round payments stop", () => {
    const r = funding({ address: ADDRESS, facts: facts({ withdrawRound: 105n }), minBalanceWei: MIN });
    expect(r.condition?.message).toContain("payments stop in round 104");
  });
});
