import { describe, expect, it } from "vitest";
import { RemoteSignerSpecSchema, type StoredRemoteSigner } from "../../schema/remote-signer.ts";
import type { OrchestratorView } from "../gateway/pool.ts";
import { planSigner, type SignerPlanInput } from "./plan.ts";

const signer = (spec: Record<string, unknown>): StoredRemoteSigner => ({
  metadata: { name: "signer", namespace: "video", generation: 1 },
  spec: RemoteSignerSpecSchema.parse({
    network: "arbitrum-one-mainnet",
    ethUrl: "https://arb1.arbitrum.io/rpc",
    ethAcctAddr: "0x2b0814f58c250e09033DA8D3246b93D0245ECA71",
    keystoreSecret: "signer-keystore",
    ...spec,
  }),
});
const orch = (name: string, labels: Record<string, string>, models: string[] = []): OrchestratorView => ({
  metadata: { name, labels },
  spec: { pricePerUnit: "100", pixelsPerUnit: 1 },
  status: {
    conditions: [{ type: "Ready", status: "True" }],
    serviceAddr: `${name}-0.${name}-pods.video.svc.cluster.local:8935`,
    ai: {
      models: models.map((m) => ({
        pipeline: m.split("/")[0]!,
        modelId: m.split("/")[1] ?? "",
        ready: true,
      })),
    },
  },
});
const input = (spec: Record<string, unknown> = {}, o: Partial<SignerPlanInput> = {}): SignerPlanInput => ({
  signer: signer(spec),
  defaultImage: "livepeer/go-livepeer:0.9.0",
  orchestrators: [
    orch("a", { pool: "main" }, ["live-video-to-video/streamdiffusion"]),
    orch("b", { pool: "main" }),
    orch("c", { pool: "other" }),
  ],
  addressing: "service",
  gateways: ["gw-a", "gw-b"],
  hooksConfigured: true,
  hookTokenDigest: "d".repeat(64),
  operatorNamespace: "livepeer-system",
  ...o,
});

const container = (plan: ReturnType<typeof planSigner>) =>
  plan.node.statefulSet.spec?.template.spec?.containers[0];

describe("a RemoteSigner's plan", () => {
  it("renders go-livepeer's remote signer flags; the hook URLs reach the pod from its Secret only", () => {
    const plan = planSigner(input());
    expect(plan.node.flags).toEqual({
      remoteSigner: true,
      network: "arbitrum-one-mainnet",
      httpAddr: "0.0.0.0:8935",
      cliAddr: "0.0.0.0:3935",
      dataDir: "/data",
      monitor: true,
      ethUrl: "https://arb1.arbitrum.io/rpc",
      ethAcctAddr: "0x2b0814f58c250e09033DA8D3246b93D0245ECA71",
      ethKeystorePath: "/var/run/secrets/livepeer/keystore/key.json",
      ethPassword: "/var/run/secrets/livepeer/keystore/password",
    });
    expect(plan.problems).toEqual([]);
    expect(plan.node.configMap.data?.["livepeer.conf"]).not.toMatch(/WebhookUrl|token/);
    expect(container(plan)?.env?.filter((e) => e.name.startsWith("LP_"))).toEqual([
      {
        name: "LP_REMOTESIGNERWEBHOOKURL",
        valueFrom: { secretKeyRef: { name: "signer-signer-hooks", key: "remoteSignerWebhookUrl" } },
      },
    ]);
    expect(
      plan.node.statefulSet.spec?.template.metadata?.annotations?.["livepeer.org/hook-token-digest"],
    ).toBe("d".repeat(64));
  });

  it.each([
    ["no discovery", {}, false, undefined],
    [
      "discovery of a pool",
      { discovery: { orchestratorSelector: { matchLabels: { pool: "main" } } } },
      true,
      ["a", "b"],
    ],
    [
      "discovery narrowed to a capability",
      {
        discovery: {
          orchestratorSelector: { matchLabels: { pool: "main" } },
          capabilities: ["live-video-to-video/streamdiffusion"],
        },
      },
      true,
      ["a"],
    ],
  ])("%s: -remoteDiscovery and the discovery feed", (_, spec, discovery, offered) => {
    const plan = planSigner(input(spec));
    expect(plan.node.flags.remoteDiscovery).toBe(discovery ? true : undefined);
    expect(
      container(plan)
        ?.env?.filter((e) => e.name.startsWith("LP_"))
        .map((e) => e.name),
    ).toEqual(discovery ? ["LP_REMOTESIGNERWEBHOOKURL", "LP_ORCHWEBHOOKURL"] : ["LP_REMOTESIGNERWEBHOOKURL"]);
    expect(plan.pool?.given.map((g) => g.name)).toEqual(offered);
  });

  it("mounts the keystore, runs as the signer's own account, and publishes the HTTP port only", () => {
    const plan = planSigner(input({ port: 7936 }));
    const pod = plan.node.statefulSet.spec?.template.spec;
    expect(pod?.serviceAccountName).toBe("signer-signer");
    expect(pod?.automountServiceAccountToken).toBe(false);
    expect(pod?.volumes?.find((v) => v.name === "keystore")?.secret?.secretName).toBe("signer-keystore");
    expect(plan.node.flags.httpAddr).toBe("0.0.0.0:7936");
    const ports = Object.fromEntries(
      plan.node.services.map((s) => [s.metadata?.name, s.spec?.ports?.map((p) => p.port)]),
    );
    expect(ports).toEqual({ signer: [7936], "signer-pods": [7936] });
    expect(plan.node.services.find((s) => s.metadata?.name === "signer")?.spec?.type).toBe("ClusterIP");
  });

  it.each([
    [1, undefined],
    [3, { maxUnavailable: 1 }],
  ])("%i replica(s): StatefulSet of that size, disruption budget %o", (replicas, budget) => {
    const plan = planSigner(input({ replicas }));
    expect(plan.node.statefulSet.spec?.replicas).toBe(replicas);
    expect(plan.children.disruptionBudget?.spec).toEqual(
      budget
        ? {
            ...budget,
            selector: { matchLabels: expect.objectContaining({ "app.kubernetes.io/instance": "signer" }) },
          }
        : undefined,
    );
  });

  it("admits to the HTTP port its Gateways, the operator and spec.access's namespaces; the CLI port only to the controller", () => {
    const np = planSigner(input({ access: { namespaces: ["apps"] } })).children.networkPolicy as unknown as {
      spec: {
        policyTypes: string[];
        ingress: { from: Record<string, unknown>[]; ports: { port: number }[] }[];
      };
    };
    expect(np.spec.policyTypes).toEqual(["Ingress"]);
    const [http, cli] = np.spec.ingress;
    expect(http?.ports).toEqual([{ protocol: "TCP", port: 8935 }]);
    expect(http?.from).toEqual([
      {
        podSelector: {
          matchLabels: expect.objectContaining({
            "app.kubernetes.io/instance": "gw-a",
            "app.kubernetes.io/component": "gateway",
          }),
        },
      },
      { podSelector: { matchLabels: expect.objectContaining({ "app.kubernetes.io/instance": "gw-b" }) } },
      {
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "livepeer-system" } },
        podSelector: {
          matchLabels: { "app.kubernetes.io/name": "livepeer-operator" },
          matchExpressions: [
            { key: "app.kubernetes.io/component", operator: "In", values: ["controller", "api"] },
          ],
        },
      },
      { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "apps" } } },
    ]);
    expect(cli?.ports).toEqual([{ protocol: "TCP", port: 3935 }]);
    expect(cli?.from).toHaveLength(1);
  });

  it("grants get on the keystore Secret, by name, to the signer's account alone", () => {
    const { role, roleBinding } = planSigner(input()).children;
    expect(role.rules).toEqual([
      { apiGroups: [""], resources: ["secrets"], resourceNames: ["signer-keystore"], verbs: ["get"] },
    ]);
    expect(roleBinding.subjects).toEqual([
      { kind: "ServiceAccount", name: "signer-signer", namespace: "video" },
    ]);
  });

  it.each([
    ["no node hooks URL", { hooksConfigured: false }, "AuthHookUnavailable"],
    ["the hooks Secret not made yet", { hookTokenDigest: undefined }, "HooksSecretPending"],
    ["ready to roll out", {}, undefined],
  ])("%s: holds %s", (_, o, reason) => {
    const { hookTokenDigest, ...rest } = input({}, o as Partial<SignerPlanInput>);
    const plan = planSigner(
      "hookTokenDigest" in o ? rest : { ...rest, ...(hookTokenDigest ? { hookTokenDigest } : {}) },
    );
    expect(plan.holds.map((h) => h.reason)[0]).toBe(reason);
    if (reason) expect(plan.holds[0]?.blocksRollout).toBe(true);
  });
});
