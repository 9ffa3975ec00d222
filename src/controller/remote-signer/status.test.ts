import { describe, expect, it } from "vitest";
import { RemoteSignerSpecSchema, type StoredRemoteSigner } from "../../schema/remote-signer.ts";
import type { ChainStatus } from "../node-status/chain-status.ts";
import type { PodFacts } from "../node-status/facts.ts";
import { planSigner } from "./plan.ts";
import { computeSignerStatus, ownedSignerStatus } from "./status.ts";

const signer: StoredRemoteSigner = {
  metadata: { name: "signer", namespace: "video", generation: 2 },
  spec: RemoteSignerSpecSchema.parse({
    replicas: 2,
    network: "arbitrum-one-mainnet",
    ethUrl: "https://arb1.arbitrum.io/rpc",
    ethAcctAddr: "0x2b0814f58c250e09033DA8D3246b93D0245ECA71",
    keystoreSecret: "signer-keystore",
  }),
};
const plan = planSigner({
  signer,
  defaultImage: "livepeer/go-livepeer:0.9.1",
  orchestrators: [],
  addressing: "service",
  gateways: [],
  hooksConfigured: true,
  hookTokenDigest: "d".repeat(64),
});
const pod = (name: string, ready: boolean): PodFacts => ({
  metadata: { name, namespace: "video", uid: name },
  spec: { nodeName: "n1" },
  status: {
    phase: "Running",
    podIP: "127.0.0.9",
    conditions: [
      { type: "PodScheduled", status: "True" },
      { type: "Ready", status: ready ? "True" : "False" },
    ],
    containerStatuses: [
      { name: "livepeer", ready, restartCount: 0, state: { running: { startedAt: "2026-01-01T00:00:00Z" } } },
    ],
  },
});
const chain = (funded: boolean): ChainStatus => ({
  conditions: [
    ["ChainHealthy", { status: "True", reason: "ChainReachable", message: "ok" }],
    [
      "Funded",
      funded
        ? { status: "True", reason: "Funded", message: "ok" }
        : { status: "False", reason: "NotFunded", message: "deposit 0" },
    ],
  ],
  findings: [],
  facts: { deposit: funded ? "10" : "0", reserve: funded ? "10" : "0", balance: "1" },
});

describe("a RemoteSigner's status", () => {
  it.each([
    ["both pods Ready, funded", [pod("signer-0", true), pod("signer-1", true)], true, 2, "True"],
    ["one pod Ready, unfunded", [pod("signer-0", true), pod("signer-1", false)], false, 1, "False"],
  ])("%s", (_, pods, funded, readyReplicas, fundedStatus) => {
    const s = computeSignerStatus(
      {
        signer,
        plan,
        pods,
        nodes: [],
        chain: chain(funded),
        hookTokenDigest: "d".repeat(64),
        address: "0x2b0814f58c250e09033DA8D3246b93D0245ECA71",
      },
      new Date(0),
    );
    const c = Object.fromEntries(s.conditions!.map((x) => [x.type, x]));
    expect(c.Funded?.status).toBe(fundedStatus);
    expect(c.ChainHealthy?.status).toBe("True");
    expect(Object.keys(c).sort()).toEqual(
      [
        "ChainHealthy",
        "Funded",
        "NodeReachable",
        "NodeVersionSupported",
        "Ready",
        "Scheduled",
        "Simulated",
      ].sort(),
    );
    expect(s).toMatchObject({
      observedGeneration: 2,
      replicas: 2,
      readyReplicas,
      address: "0x2b0814f58c250e09033DA8D3246b93D0245ECA71",
      serviceUrl: "http://signer.video.svc.cluster.local:8935",
      hookTokenDigest: "d".repeat(64),
      deposit: funded ? "10" : "0",
    });
    // Not Ready until the node doctor has read the pods' endpoints.
    expect(c.Ready?.status).not.toBe("True");
    expect(ownedSignerStatus({ ...signer, status: s })).toEqual(s);
  });

  it("is not Ready while the auth hook is unavailable, saying how to fix it", () => {
    const held = planSigner({
      signer,
      defaultImage: "livepeer/go-livepeer:0.9.1",
      orchestrators: [],
      addressing: "service",
      gateways: [],
      hooksConfigured: false,
    });
    const s = computeSignerStatus({ signer, plan: held, pods: [], nodes: [] }, new Date(0));
    const ready = s.conditions?.find((c) => c.type === "Ready");
    expect(ready).toMatchObject({ status: "False", reason: "AuthHookUnavailable" });
    expect(ready?.message).toMatch(/--node-hooks-url/);
  });
});
