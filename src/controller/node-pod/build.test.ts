// The node-pod builder serves any role given as data: a gateway-shaped role (built here from test
// data, before any Gateway reconciler exists) gets its ports, Services, GPUs, Secrets, probes and
// config file from the same code as the orchestrator and its transcoders.
import type { V1Container, V1Service, V1StatefulSet } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { GATEWAY_PRICE_CAP } from "../live/node-settings.ts";
import { buildNodePod, type NodePodInput } from "./build.ts";
import type { NodePodRole } from "./role.ts";

interface GatewayFacts {
  maxPricePerUnit?: string;
  network?: string;
}

/** The gateway as issue 17 describes it: HTTP and RTMP public, the CLI port in no Service. */
const gatewayRole = (gpu: NodePodRole<GatewayFacts>["gpu"] = "any"): NodePodRole<GatewayFacts> => ({
  component: "gateway",
  ports: [
    { name: "http", containerPort: 8935, publish: "public" },
    { name: "rtmp", containerPort: 1935, publish: "public" },
    { name: "cli", containerPort: 5935, publish: "none" },
  ],
  statusPort: "cli",
  gpu,
  secrets: ["keystore"],
  flags: (f, placement) => ({
    gateway: true,
    network: f.network ?? "offchain",
    httpAddr: "0.0.0.0:8935",
    rtmpAddr: "0.0.0.0:1935",
    cliAddr: "0.0.0.0:5935",
    httpIngest: true,
    ...(f.maxPricePerUnit ? { maxPricePerUnit: f.maxPricePerUnit } : {}),
    ...(placement.nvidiaDevices ? { nvidia: placement.nvidiaDevices } : {}),
  }),
  live: [GATEWAY_PRICE_CAP],
  configHeader: (owner) => `Gateway ${owner}.`,
  configInputs: (n) => [n.restartConfig],
});

const input = (o: Partial<NodePodInput<GatewayFacts>> = {}): NodePodInput<GatewayFacts> => ({
  name: "gw",
  namespace: "video",
  instance: "gw",
  replicas: 1,
  image: "livepeer/go-livepeer:0.8.8",
  facts: {},
  service: { type: "LoadBalancer", ports: { rtmp: 31935 } },
  ...o,
});

const containerOf = (s: V1StatefulSet): V1Container => s.spec!.template.spec!.containers[0]!;
const portsOf = (s: V1Service | undefined) =>
  s?.spec?.ports?.map((p) => `${p.name} ${p.port}->${p.targetPort}`);
const podHash = (s: V1StatefulSet) => s.spec!.template.metadata!.annotations!["livepeer.org/pod-hash"];

describe("a gateway-shaped role from test data", () => {
  const node = buildNodePod(gatewayRole(), input({ extraArgs: ["-v", "6"] }));

  it("publishes HTTP and RTMP on the Service of the spec's type, the CLI port on none", () => {
    expect(node.services.map((s) => s.metadata?.name)).toEqual(["gw", "gw-pods"]);
    const [pub, headless] = node.services;
    expect(pub?.spec?.type).toBe("LoadBalancer");
    expect(portsOf(pub)).toEqual(["http 8935->8935", "rtmp 31935->1935"]);
    expect(portsOf(headless)).toEqual(["http 8935->8935", "rtmp 1935->1935"]);
    for (const s of node.services)
      expect(s.spec?.ports?.some((p) => p.port === 5935 || p.targetPort === 5935)).toBe(false);
  });

  it("still listens on the CLI port and probes it", () => {
    const c = containerOf(node.statefulSet);
    expect(c.ports?.map((p) => p.containerPort)).toEqual([8935, 1935, 5935]);
    expect(c.readinessProbe?.httpGet).toEqual({ path: "/status", port: 5935 });
    // The former tcpSocket check, in the exec probe that also restarts the node in place.
    expect(c.livenessProbe?.exec?.command?.slice(0, 2)).toEqual(["/bin/sh", "-c"]);
    expect(c.livenessProbe?.exec?.command?.[2]).toContain("nothing listens on port 5935");
  });

  it("renders its flags into the config file; the command line carries -config and extraArgs only", () => {
    expect(node.flags.gateway).toBe(true);
    expect(node.configMap.metadata?.name).toBe("gw-config");
    expect(node.configMap.data?.["livepeer.conf"]).toMatch(/^# Gateway video\/gw\.\ngateway\n/);
    expect(containerOf(node.statefulSet).args).toEqual(["-config", "/etc/livepeer/livepeer.conf", "-v", "6"]);
  });

  it("takes a flag from its Secret as an LP_ variable, never into the ConfigMap", () => {
    const hook = { name: "LP_ORCHWEBHOOKURL", valueFrom: { secretKeyRef: { name: "gw-hooks", key: "url" } } };
    const withHook = buildNodePod(gatewayRole(), input({ env: [hook] }));
    const lp = (s: V1StatefulSet) => containerOf(s).env?.filter((e) => e.name.startsWith("LP_"));
    expect(lp(withHook.statefulSet)).toEqual([hook]);
    expect(withHook.configMap).toEqual(node.configMap);
    expect(lp(node.statefulSet)).toEqual([]);
  });

  it("labels children and pods with its component and the resource's instance", () => {
    expect(node.statefulSet.spec?.selector.matchLabels).toMatchObject({
      "app.kubernetes.io/instance": "gw",
      "app.kubernetes.io/component": "gateway",
    });
    expect(node.statefulSet.spec?.serviceName).toBe("gw-pods");
  });
});

describe("GPUs", () => {
  const gpuOf = (role: NodePodRole<GatewayFacts>, gpu?: { count?: number; product?: string }) => {
    const node = buildNodePod(role, input(gpu ? { gpu } : {}));
    const pod = node.statefulSet.spec!.template.spec!;
    return {
      limit: containerOf(node.statefulSet).resources?.limits?.["nvidia.com/gpu"],
      nvidia: node.flags.nvidia,
      tolerates: pod.tolerations?.map((t) => t.key) ?? [],
      required:
        pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchExpressions?.map(
          (e) => `${e.key} ${e.operator}`,
        ),
    };
  };

  it.each<[string, NodePodRole<GatewayFacts>, { count?: number; product?: string } | undefined, object]>([
    [
      "none unless the spec asks",
      gatewayRole("any"),
      undefined,
      { limit: undefined, nvidia: undefined, tolerates: [] },
    ],
    ["0 asked is none", gatewayRole("any"), { count: 0 }, { limit: undefined, tolerates: [] }],
    [
      "any GPU when asked (no encoder required)",
      gatewayRole("any"),
      { count: 1 },
      { limit: "1", nvidia: "0", tolerates: ["nvidia.com/gpu"], required: ["nvidia.com/gpu.present In"] },
    ],
    [
      "video work requires a hardware encoder",
      gatewayRole("video-encoder"),
      { count: 2 },
      {
        limit: "2",
        nvidia: "0,1",
        required: [
          "nvidia.com/gpu.present In",
          "nvidia.com/gpu.engines.encoder NotIn",
          "nvidia.com/gpu.product NotIn",
        ],
      },
    ],
    [
      "a role without GPUs ignores a request",
      gatewayRole("none"),
      { count: 1 },
      { limit: undefined, nvidia: undefined },
    ],
  ])("%s", (_, role, gpu, want) => expect(gpuOf(role, gpu)).toMatchObject(want));
});

describe("Secrets", () => {
  const volumes = (node: ReturnType<typeof buildNodePod>) =>
    node.statefulSet
      .spec!.template.spec!.volumes!.filter((v) => v.secret)
      .map((v) => `${v.name}:${v.secret?.secretName}`);

  it.each<[string, NodePodInput<GatewayFacts>["secrets"], string[]]>([
    ["none named, none mounted", undefined, []],
    ["the keystore its role mounts", { keystore: "wallet" }, ["keystore:wallet"]],
    ["never one its role does not list", { keystore: "wallet", orchSecret: "shared" }, ["keystore:wallet"]],
  ])("%s", (_, secrets, want) =>
    expect(volumes(buildNodePod(gatewayRole(), input({ secrets })))).toEqual(want),
  );

  it("mounts only the keystore's two files, owner-readable", () => {
    const v = buildNodePod(
      gatewayRole(),
      input({ secrets: { keystore: "wallet" } }),
    ).statefulSet.spec!.template.spec!.volumes!.find((x) => x.name === "keystore");
    expect(v?.secret).toEqual({
      secretName: "wallet",
      defaultMode: 0o400,
      items: [
        { key: "key.json", path: "key.json" },
        { key: "password", path: "password" },
      ],
    });
  });
});

describe("what a change needs: a new pod (template) or the node restarted in place (config)", () => {
  const built = (o: Partial<NodePodInput<GatewayFacts>>) => {
    const n = buildNodePod(gatewayRole(), input(o));
    return { pod: podHash(n.statefulSet), config: n.configHash, template: n.statefulSet.spec?.template };
  };
  const base = built({ facts: { maxPricePerUnit: "300" } });

  it.each<[string, Partial<NodePodInput<GatewayFacts>>, "nothing" | "restart in place" | "new pod"]>([
    ["the same input", { facts: { maxPricePerUnit: "300" } }, "nothing"],
    ["a live flag changed (set on the running node)", { facts: { maxPricePerUnit: "1200" } }, "nothing"],
    [
      "a restarting flag changed",
      { facts: { maxPricePerUnit: "300", network: "devnet" } },
      "restart in place",
    ],
    ["another image", { facts: { maxPricePerUnit: "300" }, image: "livepeer/go-livepeer:0.8.9" }, "new pod"],
    ["extra command-line flags", { facts: { maxPricePerUnit: "300" }, extraArgs: ["-v", "6"] }, "new pod"],
    [
      "a Secret-mounted file the node reads at start",
      { facts: { maxPricePerUnit: "300" }, podInputs: ["x"] },
      "new pod",
    ],
    ["GPUs", { facts: { maxPricePerUnit: "300" }, gpu: { count: 1 } }, "new pod"],
    [
      "a pod override",
      { facts: { maxPricePerUnit: "300" }, podTemplate: { nodeSelector: { pool: "a" } } },
      "new pod",
    ],
    [
      "another Service type (not read by the pod)",
      { facts: { maxPricePerUnit: "300" }, service: { type: "ClusterIP" } },
      "nothing",
    ],
  ])("%s: %s", (_, o, needs) => {
    const after = built(o);
    const newPod = JSON.stringify(after.template) !== JSON.stringify(base.template);
    const inPlace = !newPod && after.config !== base.config;
    expect(newPod ? "new pod" : inPlace ? "restart in place" : "nothing").toBe(needs);
    // A config-only change leaves the template (and so the StatefulSet revision) as it was.
    if (needs === "restart in place") expect(after.pod).toBe(base.pod);
  });

  it("the ConfigMap carries its config hash as a file the probe reads and as an annotation", () => {
    const n = buildNodePod(gatewayRole(), input({ facts: { maxPricePerUnit: "300" } }));
    expect(n.configMap.data?.["config-hash"]).toBe(n.configHash);
    expect(n.configMap.metadata?.annotations?.["livepeer.org/config-hash"]).toBe(n.configHash);
  });

  it("a live flag still reaches the config file (a later restart reads it)", () => {
    const node = buildNodePod(gatewayRole(), input({ facts: { maxPricePerUnit: "1200" } }));
    expect(node.configMap.data?.["livepeer.conf"]).toContain("maxPricePerUnit 1200\n");
  });
});

describe("flag problems and role mistakes", () => {
  it("returns the problems the node would refuse to start with", () => {
    const node = buildNodePod(gatewayRole(), input({ facts: { network: "arbitrum-one-mainnet" } }));
    expect(node.problems.filter((p) => p.severity === "error").map((p) => p.flag)).toEqual(
      expect.arrayContaining(["ethUrl", "ethKeystorePath", "ethPassword"]),
    );
  });

  it("a status port that is not one of the role's ports is a programming error naming both", () => {
    expect(() => buildNodePod({ ...gatewayRole(), statusPort: "admin" }, input())).toThrow(
      "role gateway: statusPort admin is not one of its ports",
    );
  });
});
