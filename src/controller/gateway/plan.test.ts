import { describe, expect, it } from "vitest";
import { GatewaySpecSchema, type StoredGateway } from "../../schema/gateway.ts";
import { type GatewayPlanInput, planGateway } from "./plan.ts";
import type { OrchestratorView } from "./pool.ts";
import { computeGatewayStatus } from "./status.ts";

const gateway = (spec: Record<string, unknown>): StoredGateway => ({
  metadata: { name: "gw", namespace: "video", generation: 1 },
  spec: GatewaySpecSchema.parse(spec),
});
const ready = (name: string, price: string, labels = { pool: "main" }): OrchestratorView => ({
  metadata: { name, labels },
  spec: { pricePerUnit: price, pixelsPerUnit: 1 },
  status: {
    conditions: [{ type: "Ready", status: "True" }],
    serviceAddr: `${name}-0.${name}-pods.video.svc.cluster.local:8935`,
  },
});
const input = (spec: Record<string, unknown>, o: Partial<GatewayPlanInput> = {}): GatewayPlanInput => ({
  gateway: gateway(spec),
  defaultImage: "livepeer/go-livepeer:0.8.8",
  orchestrators: [ready("a", "100"), ready("b", "200"), ready("c", "1", { pool: "other" })],
  addressing: "service",
  hooksConfigured: true,
  hookTokenDigest: "d".repeat(64),
  ...o,
});
const selector = { orchestrators: { selector: { matchLabels: { pool: "main" } } } };
const ON_CHAIN = { network: "arbitrum-one-mainnet", keystoreSecret: "k", ethUrl: "https://rpc.example.com" };
const quote = (name: string, pricePerUnit: string, pixelsPerUnit = 1) => ({
  orchUri: `https://${name}-0.${name}-pods.video.svc.cluster.local:8935`,
  addresses: [],
  pricePerUnit,
  pixelsPerUnit,
});
const conditionsOf = (i: GatewayPlanInput) => {
  const plan = planGateway(i);
  const status = computeGatewayStatus({ gateway: i.gateway, plan, pods: [], nodes: [] }, new Date(0));
  return Object.fromEntries(status.conditions!.map((c) => [c.type, `${c.status} ${c.reason}`]));
};

describe("a Gateway's plan", () => {
  it("renders the gateway's flags; the discovery URL reaches the pod from the hooks Secret only", () => {
    const plan = planGateway(input({ ...selector, maxPricePerUnit: "300", maxSessions: 12 }));
    expect(plan.node.flags).toMatchObject({
      gateway: true,
      httpIngest: true,
      maxPricePerUnit: "300",
      maxSessions: "12",
    });
    expect(plan.node.configMap.data?.["livepeer.conf"]).not.toMatch(/orchWebhookUrl/);
    const container = plan.node.statefulSet.spec?.template.spec?.containers[0];
    // The node's LP_ variables (the other is the in-place restart's, node-pod/in-place.ts).
    expect(container?.env?.filter((e) => e.name.startsWith("LP_"))).toEqual([
      {
        name: "LP_ORCHWEBHOOKURL",
        valueFrom: { secretKeyRef: { name: "gw-node-hooks", key: "orchWebhookUrl" } },
      },
    ]);
    expect(
      plan.node.statefulSet.spec?.template.metadata?.annotations?.["livepeer.org/hook-token-digest"],
    ).toBe("d".repeat(64));
  });

  it.each([
    ["discovery only", selector, ["LP_ORCHWEBHOOKURL"], {}],
    [
      "stream events with addresses",
      { orchestrators: { addresses: ["o:8935"] }, streamEvents: { enabled: true, userId: "alice" } },
      ["LP_AUTHWEBHOOKURL"],
      {},
    ],
    [
      "stream events with discovery",
      { ...selector, streamEvents: { enabled: true, userId: "alice" } },
      ["LP_ORCHWEBHOOKURL", "LP_AUTHWEBHOOKURL"],
      {},
    ],
    [
      "stream events turned off",
      { orchestrators: { addresses: ["o:8935"] }, streamEvents: { enabled: false } },
      [],
      {},
    ],
    [
      "stream events without the API's hooks URL (nothing to call)",
      { orchestrators: { addresses: ["o:8935"] }, streamEvents: { enabled: true, userId: "alice" } },
      [],
      { hooksConfigured: false },
    ],
  ])("%s: the node's hook URLs come from the hooks Secret as %o", (_, spec, names, o) => {
    const plan = planGateway(input(spec, o));
    const env = (plan.node.statefulSet.spec?.template.spec?.containers[0]?.env ?? []).filter((e) =>
      e.name.startsWith("LP_"),
    );
    expect(env.map((e) => e.name)).toEqual(names);
    for (const e of env) expect(e.valueFrom?.secretKeyRef?.name).toBe("gw-node-hooks");
    expect(plan.node.configMap.data?.["livepeer.conf"]).not.toMatch(/WebhookUrl/i);
    expect(plan.streamEvents).toBe((names as string[]).includes("LP_AUTHWEBHOOKURL"));
  });

  it("stream events asked for without the API's hooks URL: a warning finding naming the fix, Ready untouched", () => {
    const i = input(
      { orchestrators: { addresses: ["o:8935"] }, streamEvents: { enabled: true, userId: "alice" } },
      { hooksConfigured: false },
    );
    const status = computeGatewayStatus(
      { gateway: i.gateway, plan: planGateway(i), pods: [], nodes: [] },
      new Date(0),
    );
    expect(status.findings).toEqual([
      expect.objectContaining({
        id: "StreamEventsUnavailable",
        severity: "warning",
        message: expect.stringMatching(/--node-hooks-url/),
      }),
    ]);
    const withHooks = input({
      orchestrators: { addresses: ["o:8935"] },
      streamEvents: { enabled: true, userId: "alice" },
    });
    expect(
      computeGatewayStatus(
        { gateway: withHooks.gateway, plan: planGateway(withHooks), pods: [], nodes: [] },
        new Date(0),
      ).findings,
    ).toEqual([]);
  });

  it("stream events wait for the hooks Secret before the node is rolled out", () => {
    const plan = planGateway(
      input(
        { orchestrators: { addresses: ["o:8935"] }, streamEvents: { enabled: true, userId: "alice" } },
        { hookTokenDigest: undefined },
      ),
    );
    expect(plan.holds.map((h) => [h.reason, h.blocksRollout])).toEqual([["HooksSecretPending", true]]);
  });

  it("a price cap or session limit change is a live change, not a new pod", () => {
    const before = planGateway(input({ ...selector, maxPricePerUnit: "300", maxSessions: 10 }));
    const recorded = before.node.configMap.metadata?.annotations ?? {};
    const after = planGateway(input({ ...selector, maxPricePerUnit: "500", maxSessions: 20 }, { recorded }));
    const hash = (p: typeof before) =>
      `${p.node.statefulSet.spec?.template.metadata?.annotations?.["livepeer.org/pod-hash"]}/${p.node.configHash}`;
    expect(hash(after)).toBe(hash(before));
    expect(after.liveChanges.map((c) => `${c.setting.what} ${c.from} -> ${c.to}`)).toEqual([
      "price cap 300/1 -> 500/1",
      "session limit 10 -> 20",
    ]);
  });

  it("new AI price caps are a live change; a cap removed cannot be dropped live (the pod restarts)", async () => {
    const caps = (price: string, more: object[] = []) => ({
      ...selector,
      maxPricePerCapability: [{ pipeline: "text-to-image", maxPricePerUnit: price }, ...more],
    });
    const before = planGateway(input(caps("100", [{ pipeline: "image-to-video", maxPricePerUnit: "7" }])));
    const recorded = before.node.configMap.metadata?.annotations ?? {};
    const after = planGateway(
      input(caps("200", [{ pipeline: "image-to-video", maxPricePerUnit: "7" }]), { recorded }),
    );
    const hash = (p: typeof before) =>
      `${p.node.statefulSet.spec?.template.metadata?.annotations?.["livepeer.org/pod-hash"]}/${p.node.configHash}`;
    expect(hash(after)).toBe(hash(before));
    expect(after.liveChanges.map((c) => c.setting.what)).toEqual(["capability price caps"]);
    const dropped = planGateway(input(caps("200"), { recorded }));
    const change = dropped.liveChanges.find((c) => c.setting.what === "capability price caps")!;
    await expect(change.setting.set("http://127.0.0.1:9", change, { timeoutMs: 100 })).rejects.toThrow(
      /cannot drop a capability's cap \(image-to-video\/default\)/,
    );
  });

  it("RTMP off: the listener stays inside the pod and no Service publishes it", () => {
    const plan = planGateway(input({ ...selector, ingest: { rtmp: { enabled: false } } }));
    expect(plan.node.flags.rtmpAddr).toBe("127.0.0.1:1935");
    expect(plan.node.services.flatMap((s) => s.spec?.ports?.map((p) => p.port))).not.toContain(1935);
  });

  it("-maxPricePerCapability as the file the node reads", () => {
    const plan = planGateway(
      input({
        ...selector,
        maxPricePerCapability: [{ pipeline: "text-to-image", maxPricePerUnit: "0.5USD" }],
      }),
    );
    expect(JSON.parse(plan.node.configMap.data?.["maxPricePerCapability.json"] ?? "{}")).toEqual({
      capabilities_prices: [
        {
          pipeline: "text-to-image",
          model_id: "default",
          price_per_unit: 0.5,
          pixels_per_unit: 1,
          currency: "USD",
        },
      ],
    });
  });

  it("fixed addresses render -orchAddr and no hook", () => {
    const plan = planGateway(
      input({ orchestrators: { addresses: ["o1:8935", "o2:8935"] } }, { hookTokenDigest: undefined }),
    );
    expect(plan.node.flags.orchAddr).toBe("o1:8935,o2:8935");
    expect(
      plan.node.statefulSet.spec?.template.spec?.containers[0]?.env?.filter((e) => e.name.startsWith("LP_")),
    ).toEqual([]);
    expect(plan.holds).toEqual([]);
  });
});

describe("a Gateway's conditions from its plan", () => {
  it.each<[string, GatewayPlanInput, Record<string, string>]>([
    [
      "on chain, a cap below every orchestrator",
      input({ ...selector, ...ON_CHAIN, maxPricePerUnit: "50" }),
      { PriceCompatible: "False PriceCapBelowOrchestrators", Ready: "False PriceCapBelowOrchestrators" },
    ],
    [
      "on chain, a cap that reaches one of two: a warning, Ready decided by the pods",
      input({ ...selector, ...ON_CHAIN, maxPricePerUnit: "150" }),
      { PriceCompatible: "True PriceCapBelowSome", Ready: "False PodPending" },
    ],
    [
      "off chain, a cap below every configured price: orchestrators quote none and the cap decides nothing",
      input({ ...selector, maxPricePerUnit: "50" }),
      { PriceCompatible: "True OffchainNoPrices", Ready: "False PodPending" },
    ],
    [
      "a selector that matches nothing",
      input({ orchestrators: { selector: { matchLabels: { pool: "none" } } } }),
      { Ready: "False NoOrchestratorsSelected", PriceCompatible: "Unknown NoOrchestrators" },
    ],
    [
      "no hooks URL: discovery cannot work, and nothing rolls out",
      input(selector, { hooksConfigured: false }),
      { Ready: "False DiscoveryUnavailable" },
    ],
    [
      "fixed addresses: prices unknown to the operator",
      input({ orchestrators: { addresses: ["o1:8935"] } }),
      { PriceCompatible: "Unknown PricesNotKnown", Ready: "False PodPending" },
    ],
  ])("%s", (_n, i, want) => expect(conditionsOf(i)).toMatchObject(want));
});

describe("a Gateway's prices from what its node says the orchestrators quoted it", () => {
  const given = (i: GatewayPlanInput) => planGateway(i).pool!.given.map(({ address: _, ...g }) => g);
  it.each<[string, GatewayPlanInput, string, object[]]>([
    [
      "on chain, nothing read yet: the configured prices (the overhead added), compared",
      input({ ...selector, ...ON_CHAIN, maxPricePerUnit: "150" }),
      "True PriceCapBelowSome",
      [
        {
          name: "a",
          pricePerUnit: "100",
          pixelsPerUnit: 1,
          priceSource: "configured",
          priceCompatible: true,
        },
        {
          name: "b",
          pricePerUnit: "200",
          pixelsPerUnit: 1,
          priceSource: "configured",
          priceCompatible: false,
        },
      ],
    ],
    [
      "on chain, a's quote above the cap: the quote decides, not its spec",
      input(
        { ...selector, ...ON_CHAIN, maxPricePerUnit: "150" },
        { quotes: [quote("a", "303")], now: "2026-01-01T00:00:00Z" },
      ),
      "False PriceCapBelowOrchestrators",
      [
        {
          name: "a",
          pricePerUnit: "303",
          pixelsPerUnit: 1,
          priceSource: "quoted",
          quotedAt: "2026-01-01T00:00:00Z",
          priceCompatible: false,
        },
        {
          name: "b",
          pricePerUnit: "200",
          pixelsPerUnit: 1,
          priceSource: "configured",
          priceCompatible: false,
        },
      ],
    ],
    [
      "on chain, quotes within the cap where the specs are not",
      input(
        { ...selector, ...ON_CHAIN, maxPricePerUnit: "150" },
        { quotes: [quote("a", "150"), quote("b", "300", 2)], now: "2026-01-01T00:00:00Z" },
      ),
      "True PriceCompatible",
      [
        expect.objectContaining({ name: "a", priceSource: "quoted", priceCompatible: true }),
        expect.objectContaining({ name: "b", pricePerUnit: "300", pixelsPerUnit: 2, priceCompatible: true }),
      ],
    ],
    [
      "off chain, quotes are not read and nothing is compared: configured prices, said so",
      input({ ...selector, maxPricePerUnit: "150" }, { quotes: [quote("a", "303")] }),
      "True OffchainNoPrices",
      [
        { name: "a", pricePerUnit: "100", pixelsPerUnit: 1, priceSource: "configured" },
        { name: "b", pricePerUnit: "200", pixelsPerUnit: 1, priceSource: "configured" },
      ],
    ],
  ])("%s", (_n, i, price, want) => {
    expect(conditionsOf(i).PriceCompatible).toBe(price);
    expect(given(i)).toEqual(want);
  });

  it("a quote keeps the time it was first read while its price stays; a new price is a new time", () => {
    const first = input(
      { ...selector, ...ON_CHAIN, maxPricePerUnit: "150" },
      { quotes: [quote("a", "120")], now: "2026-01-01T00:00:00Z" },
    );
    const before = planGateway(first).pool!.given;
    const later = (price: string) =>
      planGateway({
        ...first,
        gateway: { ...first.gateway, status: { orchestrators: before } },
        quotes: [quote("a", price)],
        now: "2026-01-01T00:05:00Z",
      }).pool!.given.find((g) => g.name === "a")?.quotedAt;
    expect(later("120")).toBe("2026-01-01T00:00:00Z");
    expect(later("303")).toBe("2026-01-01T00:05:00Z");
  });
});

describe("AI price caps against the models' prices", () => {
  const aiOrchestrator: OrchestratorView = {
    ...ready("ai", "100"),
    spec: {
      pricePerUnit: "100",
      ai: {
        models: [{ pipeline: "text-to-image", model_id: "m", price_per_unit: 5000, pixels_per_unit: 1 }],
      },
    },
    status: {
      ...ready("ai", "100").status,
      ai: { models: [{ pipeline: "text-to-image", modelId: "m", ready: true }] },
    },
  };
  const caps = {
    maxPricePerCapability: [{ pipeline: "text-to-image", modelId: "m", maxPricePerUnit: "100" }],
  };
  it.each([
    [
      "on chain, every orchestrator serving the model above the cap: AIPriceCapTooLow",
      ON_CHAIN,
      ["AIPriceCapTooLow"],
    ],
    ["off chain, where no capability price is quoted and the caps decide nothing: no finding", {}, []],
  ])("%s", (_n, network, want) => {
    const plan = planGateway(
      input({ ...selector, ...network, ...caps }, { orchestrators: [aiOrchestrator] }),
    );
    expect(plan.aiFindings.map((f) => f.id)).toEqual(want);
  });
});

describe("a Gateway whose image's go-livepeer release is named in its tag", () => {
  it("a rendered flag the release lacks is refused before rollout, naming the flag, the release and the fix", () => {
    const i = input({ ...selector, image: "livepeer/go-livepeer:0.7.5" });
    const plan = planGateway(i);
    const errors = plan.problems.filter((p) => p.severity === "error");
    expect(errors.map((p) => p.flag)).toEqual(["gateway"]);
    const status = computeGatewayStatus({ gateway: i.gateway, plan, pods: [], nodes: [] }, new Date(0));
    const ready = status.conditions!.find((c) => c.type === "Ready")!;
    expect(ready).toMatchObject({ status: "False", reason: "InvalidNodeConfiguration" });
    expect(ready.message).toContain("-gateway does not exist in go-livepeer 0.7.5");
    expect(ready.message).toContain("set spec.image to go-livepeer 0.7.6 or later");
    expect(conditionsOf(i)).toMatchObject({ NodeVersionSupported: "False NodeVersionTooOld" });
  });

  it("-maxPricePerCapability on 0.7.9 (AI price caps came with 0.8.0); none on 0.8.0", () => {
    const caps = {
      maxPricePerCapability: [{ pipeline: "text-to-image", maxPricePerUnit: "10", pixelsPerUnit: 1 }],
    };
    const old = planGateway(input({ ...selector, ...caps, image: "livepeer/go-livepeer:0.7.9" }));
    expect(old.problems.filter((p) => p.severity === "error").map((p) => p.flag)).toEqual([
      "maxPricePerCapability",
    ]);
    const ok = planGateway(input({ ...selector, ...caps, image: "livepeer/go-livepeer:0.8.0" }));
    expect(ok.problems.filter((p) => p.severity === "error")).toEqual([]);
  });

  it("NodeVersionSupported: True in the range, False past it, Unknown for a tag without a release", () => {
    expect(conditionsOf(input(selector))).toMatchObject({ NodeVersionSupported: "True Supported" });
    expect(conditionsOf(input({ ...selector, image: "livepeer/go-livepeer:0.12.0" }))).toMatchObject({
      NodeVersionSupported: "False NodeVersionNewer",
    });
    expect(conditionsOf(input({ ...selector, image: "livepeer/go-livepeer:latest" }))).toMatchObject({
      NodeVersionSupported: "Unknown VersionNotInTag",
    });
  });
});

describe("a Gateway's AI side (spec.ai)", () => {
  const onChain = { network: "arbitrum-one-mainnet", keystoreSecret: "k", ethUrl: "https://rpc.example.com" };

  it("on chain, serviceRegistry discovers AI orchestrators through the AI subnet (-aiServiceRegistry)", () => {
    const plan = planGateway(input({ ...onChain, ...selector, ai: { serviceRegistry: true } }));
    expect(plan.node.flags.aiServiceRegistry).toBe(true);
    expect(planGateway(input({ ...onChain, ...selector })).node.flags.aiServiceRegistry).toBeUndefined();
  });

  it("off chain, serviceRegistry is refused at apply with the fix", () => {
    const r = GatewaySpecSchema.safeParse({ ...selector, ai: { serviceRegistry: true } });
    expect(r.error?.issues.map((i) => i.message)).toEqual([
      expect.stringContaining("ai.serviceRegistry reads the AI subnet's registry on chain: set network"),
    ]);
  });

  it("warns in the status when none of the given orchestrators serves a capped model, from their status.ai", () => {
    const readyOrch = (name: string): OrchestratorView => ({
      metadata: { name, labels: { pool: "main" } },
      status: { conditions: [{ type: "Ready", status: "True" }], serviceAddr: `${name}:8935` },
    });
    const ai = (name: string, ready: boolean): OrchestratorView => {
      const o = readyOrch(name);
      return {
        ...o,
        status: { ...o.status, ai: { models: [{ pipeline: "text-to-image", modelId: "a/b", ready }] } },
      };
    };
    const spec = {
      ...selector,
      maxPricePerCapability: [{ pipeline: "text-to-image", modelId: "a/b", maxPricePerUnit: "10" }],
    };
    const findings = (orchestrators: OrchestratorView[]) => {
      const i = input(spec, { orchestrators });
      const plan = planGateway(i);
      return computeGatewayStatus(
        { gateway: i.gateway, plan, pods: [], nodes: [] },
        new Date(0),
      ).findings?.map((f) => `${f.id} ${f.severity}`);
    };
    expect(findings([readyOrch("video")])).toContain("NoAICapableOrchestrator warning");
    expect(findings([readyOrch("video"), ai("cold", false)])).toContain("NoAICapableOrchestrator warning");
    expect(findings([readyOrch("video"), ai("warm", true)])).not.toContain("NoAICapableOrchestrator warning");
  });
});

describe("a keyless Gateway (spec.remoteSigner)", () => {
  const keyless = {
    ...selector,
    image: "livepeer/go-livepeer:0.9.1",
    remoteSigner: { name: "signer", headersSecretRef: { name: "gw-signer", key: "headers" } },
  };
  const signer = {
    found: true,
    ready: true,
    funded: true,
    address: "0x2b0814f58c250e09033DA8D3246b93D0245ECA71",
    url: "http://signer.video.svc.cluster.local:8935",
  };

  it("renders -remoteSignerUrl, no -network or eth flags, no keystore; the headers come from the Secret", () => {
    const plan = planGateway(input(keyless, { signer }));
    expect(plan.node.flags.remoteSignerUrl).toBe("http://signer.video.svc.cluster.local:8935");
    for (const flag of [
      "network",
      "ethUrl",
      "ethKeystorePath",
      "ethPassword",
      "ethAcctAddr",
      "ethController",
    ])
      expect(plan.node.flags[flag]).toBeUndefined();
    expect(plan.problems).toEqual([]);
    expect(plan.holds).toEqual([]);
    const pod = plan.node.statefulSet.spec?.template.spec;
    expect(pod?.volumes?.some((v) => v.secret?.secretName !== undefined && v.name === "keystore")).toBe(
      false,
    );
    expect(pod?.containers[0]?.env).toContainEqual({
      name: "LP_REMOTESIGNERHEADERS",
      valueFrom: { secretKeyRef: { name: "gw-signer", key: "headers" } },
    });
    expect(plan.node.configMap.data?.["livepeer.conf"]).not.toMatch(/remoteSignerHeaders|Bearer/);
  });

  it.each([
    [
      "missing",
      { found: false, ready: false, funded: false },
      "RemoteSignerNotFound",
      "False RemoteSignerNotFound",
    ],
    [
      "not Ready",
      { ...signer, ready: false, reason: "PodsNotReady" },
      "RemoteSignerNotReady",
      "False RemoteSignerNotReady",
    ],
    ["Ready but unfunded", { ...signer, funded: false }, undefined, "True RemoteSignerReady"],
    ["Ready and funded", signer, undefined, "True RemoteSignerReady"],
  ])("a signer %s: hold %s, RemoteSignerReady %s, Funded read through", (_, seen, hold, signerReady) => {
    const i = input(keyless, { signer: seen });
    const plan = planGateway(i);
    expect(plan.holds.find((h) => h.blocksRollout)?.reason).toBe(hold);
    const status = computeGatewayStatus(
      { gateway: i.gateway, plan, pods: [], nodes: [], signer: seen },
      new Date(0),
    );
    const c = Object.fromEntries(status.conditions!.map((x) => [x.type, x]));
    expect(`${c.RemoteSignerReady?.status} ${c.RemoteSignerReady?.reason}`).toBe(signerReady);
    expect(c.RemoteSignerReady?.message).toMatch(/RemoteSigner signer/);
    expect(c.Funded?.status).toBe(seen.funded ? "True" : "False");
    if (hold) expect(`${c.Ready?.status} ${c.Ready?.reason}`).toBe(`False ${hold}`);
    expect(status.remoteSigner).toEqual({
      name: "signer",
      ready: seen.ready,
      funded: seen.funded,
      ...("address" in seen ? { address: seen.address } : {}),
    });
  });

  it("says nothing of a signer on a Gateway that pays itself", () => {
    const i = input(selector);
    const status = computeGatewayStatus(
      { gateway: i.gateway, plan: planGateway(i), pods: [], nodes: [] },
      new Date(0),
    );
    expect(status.conditions?.some((c) => c.type === "RemoteSignerReady")).toBe(false);
    expect(status.remoteSigner).toBeUndefined();
  });
});
