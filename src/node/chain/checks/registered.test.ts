import { describe, expect, it } from "vitest";
import type { NodeChainFacts, OrchestratorFacts } from "../facts.ts";
import { registration, serviceUriMismatch } from "./registered.ts";

const ADDRESS = "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e";

function facts(o?: Partial<OrchestratorFacts>, over: Partial<NodeChainFacts> = {}): NodeChainFacts {
  return {
    readAt: 0,
    rpc: { ok: true, chainId: 1337, blockNumber: 1, blockTimestamp: 0, blockSeenSince: 0 },
    orchestrator:
      o === undefined
        ? undefined
        : {
            serviceURI: "https://orch.example.com:8935",
            registered: true,
            active: true,
            lastRewardRound: 0n,
            activationRound: 1n,
            deactivationRound: 2n ** 256n - 1n,
            totalStake: 10n ** 21n,
            ...o,
          },
    ...over,
  };
}

describe("serviceUriMismatch", () => {
  it.each([
    ["https://orch.example.com:8935", "orch.example.com:8935", undefined],
    ["https://ORCH.example.com:8935", "orch.example.com:8935", undefined],
    ["https://orch.example.com", "orch.example.com:443", undefined],
    ["https://orch.example.com:8935/", "orch.example.com:8935", undefined],
    ["https://orch.example.com:8935", "orch.example.com:8936", "names another port than"],
    ["https://orch.example.com:8935", "orch-a.livepeer.svc:8935", "names another host than"],
    ["https://orch.example.com", "orch.example.com:8935", "names another port than"],
    [
      "http://orch.example.com:8935",
      "orch.example.com:8935",
      "is not https (gateways dial orchestrators over https), unlike",
    ],
    [
      "orch.example.com:8935",
      "orch.example.com:8935",
      "is not https (gateways dial orchestrators over https), unlike",
    ],
    ["not a uri", "orch.example.com:8935", "is not a URL, unlike"],
  ])("%s against %s", (uri, addr, expected) => {
    expect(serviceUriMismatch(uri, addr)).toBe(expected);
  });
});

describe("Registered", () => {
  it.each([
    ["a matching URI", facts({}), "orch.example.com:8935", "True", "ServiceURIMatches", []],
    ["a URI and nothing to compare it with", facts({}), undefined, "True", "ServiceURIRegistered", []],
    [
      "a URI naming another address",
      facts({ serviceURI: "https://10.0.0.9:8935" }),
      "orch.example.com:8935",
      "False",
      "ServiceURIMismatch",
      ["ServiceURIMismatch"],
    ],
    [
      "no URI on chain",
      facts({ serviceURI: "" }),
      "orch.example.com:8935",
      "False",
      "NotRegistered",
      ["NotRegistered"],
    ],
    [
      "a URI but no transcoder registration (resigned)",
      facts({ registered: false, active: false }),
      "orch.example.com:8935",
      "False",
      "NotRegistered",
      ["NotRegistered"],
    ],
    [
      "resigned but still active this round: still registered for gateways",
      facts({ registered: false, active: true }),
      "orch.example.com:8935",
      "True",
      "ServiceURIMatches",
      [],
    ],
    [
      "unread: the chain failed",
      facts(undefined, { rpc: { ok: false, kind: "refused", message: "refused" } }),
      "orch.example.com:8935",
      "Unknown",
      "ChainNotRead",
      [],
    ],
  ])("%s", (_name, f, serviceAddr, status, reason, ids) => {
    const r = registration({ address: ADDRESS, serviceAddr, facts: f });
    expect(r.condition).toMatchObject({ type: "Registered", status, reason });
    expect(r.findings.map((x) => x.id)).toEqual(ids);
  });

  it("a mismatch names both addresses and the fix, as a warning", () => {
    const r = registration({
      address: ADDRESS,
      serviceAddr: "orch.example.com:8935",
      facts: facts({ serviceURI: "https://10.0.0.9:8935" }),
    });
    expect(r.condition?.severity).toBe("warning");
    expect(r.condition?.message).toContain("https://10.0.0.9:8935");
    expect(r.condition?.message).toContain("orch.example.com:8935");
    expect(r.condition?.message).toContain("service-uri set https://orch.example.com:8935");
  });

  it("not registered stops service: an error", () => {
    const r = registration({ address: ADDRESS, facts: facts({ serviceURI: "" }) });
    expect(r.condition?.severity).toBe("error");
    expect(r.findings[0]?.severity).toBe("error");
  });

  it("a failed read says which", () => {
    const r = registration({
      address: ADDRESS,
      facts: facts(undefined, { readFailure: "eth_call: execution reverted" }),
    });
    expect(r.condition?.message).toBe("a chain read failed: eth_call: execution reverted");
  });
});
