// What an Orchestrator renders is a contract with the clusters already running it: the pod
// template's config hash decides whether a node pod rolls, so a refactoring that changes one byte
// of a built child restarts every node on upgrade (and drops its streams). The plans of every
// example and of the set-ups the examples do not show are kept as a snapshot: a difference is a
// behaviour change, to be made on purpose and said in the commit.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { V1Service } from "@kubernetes/client-node";
import { loadAll } from "js-yaml";
import { describe, expect, it } from "vitest";
import type { StoredOrchestrator as Orchestrator } from "../../schema/orchestrator.ts";
import { OrchestratorSchema } from "../../schema/orchestrator.ts";
import { runnerName } from "../ai/names.ts";
import { SESSION_LIMIT } from "../live/node-settings.ts";
import type { NodeFacts } from "../node-status/facts.ts";
import { DEFAULT_NODE_IMAGE } from "./controller.ts";
import { ORCH_SECRET_KEY } from "./names.ts";
import { describeProblems, type PlanInput, planOrchestrator } from "./plan.ts";
import { SERVICE_ADDR_ANNOTATION } from "./service-address.ts";

const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../examples");

/** An Orchestrator as the cache holds it: defaulted by the CRD schema, in a namespace. */
function orchestrator(doc: unknown): Orchestrator {
  const parsed = OrchestratorSchema.parse(doc);
  return { ...parsed, metadata: { ...parsed.metadata, namespace: "video" } } as Orchestrator;
}

const exampleOrchestrators = readdirSync(examples)
  .filter((f) => f.endsWith(".yaml"))
  .sort()
  .flatMap((f) =>
    loadAll(readFileSync(path.join(examples, f), "utf8"))
      .filter((d): d is { kind: string } => (d as { kind?: string } | null)?.kind === "Orchestrator")
      .map((d) => [f, orchestrator(d)] as const),
  );

const gpuNode = (name: string, ip: string, labels: Record<string, string>): NodeFacts => ({
  metadata: { name, labels: { "kubernetes.io/hostname": name, "nvidia.com/gpu.present": "true", ...labels } },
  status: { addresses: [{ type: "InternalIP", address: ip }] },
});
const rtx3090 = {
  "nvidia.com/gpu.product": "NVIDIA-GeForce-RTX-3090",
  "nvidia.com/gpu.count": "2",
  "nvidia.com/gpu.replicas": "2",
  "nvidia.com/gpu.family": "ampere",
};
const nodes: NodeFacts[] = [
  gpuNode("gpu-rtx3090-a", "10.0.0.1", rtx3090),
  { ...gpuNode("gpu-rtx3090-b", "10.0.0.2", rtx3090), status: { addresses: [] } },
  gpuNode("gpu-t4", "10.0.0.3", {
    "nvidia.com/gpu.product": "Tesla-T4",
    "nvidia.com/gpu.count": "1",
    "nvidia.com/gpu.replicas": "1",
  }),
  gpuNode("gpu-a100", "10.0.0.4", {
    "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB",
    "nvidia.com/gpu.count": "4",
    "nvidia.com/gpu.replicas": "4",
    "nvidia.com/gpu.engines.encoder": "0",
  }),
  {
    metadata: { name: "cpu-only", labels: {} },
    status: { addresses: [{ type: "ExternalIP", address: "203.0.113.9" }] },
  },
];

const base = (spec: Record<string, unknown>, name = "o") =>
  orchestrator({ apiVersion: "livepeer.org/v1alpha1", kind: "Orchestrator", metadata: { name }, spec });

const storedBeforeTheRule = (o: Orchestrator, spec: Record<string, unknown>): Orchestrator => ({
  ...o,
  spec: { ...o.spec, ...spec },
});

const publicService = (nodePort?: number, ingress?: { hostname?: string; ip?: string }): V1Service => ({
  spec: { ports: [{ name: "service", port: 8935, ...(nodePort ? { nodePort } : {}) }] },
  ...(ingress ? { status: { loadBalancer: { ingress: [ingress] } } } : {}),
});

/** An Orchestrator behind a NodePort Service with node port 31234. */
const nodePort = (o: Partial<PlanInput>): PlanInput => ({
  orch: base({ service: { type: "NodePort" } }),
  nodes,
  defaultImage: "img",
  service: publicService(31234),
  ...o,
});
const placed = (nodeName: string) => ({ metadata: { name: "o-0" }, spec: { nodeName } });

const everything = {
  pricePerUnit: "1000",
  pixelsPerUnit: 3,
  gpu: { count: 2, sessionsPerGpu: 9 },
  maxSessions: 40,
  transcodingOptions: "P240p30fps16x9,P360p30fps16x9,P720p30fps16x9",
  image: "example.com/livepeer:custom",
  extraArgs: ["-v", "6"],
  storage: { size: "10Gi", storageClassName: "fast" },
  podTemplate: {
    labels: { team: "video", "app.kubernetes.io/instance": "not-ours" },
    annotations: {
      "example.com/owner": "video",
      "livepeer.org/pod-hash": "not-ours",
      // The in-place restart's bookkeeping on the pod is the controller's alone.
      "livepeer.org/config-hash-wanted": "not-ours",
    },
    nodeSelector: { "topology.kubernetes.io/zone": "eu-west-1a" },
    tolerations: [{ key: "dedicated", operator: "Equal", value: "video", effect: "NoSchedule" }],
    resources: { requests: { cpu: "2", memory: "4Gi" }, limits: { memory: "8Gi" } },
    runtimeClassName: "nvidia",
    priorityClassName: "video-critical",
    serviceAccountName: "livepeer-node",
    env: [{ name: "LP_VERBOSITY", value: "6" }],
  },
};

const onChain = {
  network: "arbitrum-one-mainnet",
  ethUrl: "https://arb1.arbitrum.io/rpc",
  ethAcctAddr: "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e",
  keystoreSecret: "wallet",
  pricePerUnit: "0.5USD",
  reward: false,
};

const cases: [string, PlanInput][] = [
  ...exampleOrchestrators.map(([file, orch]): [string, PlanInput] => [
    `example ${file}`,
    { orch, nodes, defaultImage: "livepeer/go-livepeer:0.8.8" },
  ]),
  [
    "devnet deployment resolved",
    {
      orch: exampleOrchestrators.find(([f]) => f === "orchestrator-devnet.yaml")![1],
      nodes,
      defaultImage: "img",
      devnet: {
        state: "resolved",
        configMap: "livepeer-devnet",
        ethUrl: "http://chain.devnet.svc:8545",
        controller: "0x0000000000000000000000000000000000000001",
      },
    },
  ],
  [
    "devnet deployment unreadable (held)",
    {
      orch: exampleOrchestrators.find(([f]) => f === "orchestrator-devnet.yaml")![1],
      nodes,
      defaultImage: "img",
      devnet: {
        state: "unresolved",
        configMap: "livepeer-devnet",
        reason: "DevnetConfigMapNotFound",
        message: "gone",
      },
    },
  ],
  [
    "every pod override, storage, image and extra args",
    { orch: base(everything), nodes, defaultImage: "img" },
  ],
  [
    "split setup on chain with AI, overrides and storage",
    {
      orch: base({
        ...onChain,
        ...everything,
        maxSessions: undefined,
        transcoders: { replicas: 3, gpu: { count: 1, product: "Tesla-T4" } },
        ai: { models: [{ pipeline: "text-to-image", model_id: "stabilityai/sd-turbo", warm: true }] },
      }),
      nodes,
      defaultImage: "img",
    },
  ],
  [
    "on chain, one GPU, any product",
    { orch: base({ ...onChain, gpu: { count: 1 } }), nodes, defaultImage: "img" },
  ],
  [
    "GPU without an encoder: no candidate node",
    { orch: base({ gpu: { count: 1, product: "NVIDIA-A100-SXM4-40GB" } }), nodes, defaultImage: "img" },
  ],
  ["CPU with a session override", { orch: base({ maxSessions: 3 }), nodes: [], defaultImage: "img" }],
  [
    "spec.serviceAddr",
    {
      orch: base({ serviceAddr: "orch.example.com:8935", service: { type: "NodePort" } }),
      nodes,
      defaultImage: "img",
    },
  ],
  [
    "NodePort before a node port is assigned",
    nodePort({ orch: base({ service: { type: "NodePort", port: 9000 } }), service: publicService() }),
  ],
  ["NodePort with the pod placed", nodePort({ pods: [placed("cpu-only")] })],
  ["NodePort on a node without addresses", nodePort({ pods: [placed("gpu-rtx3090-b")] })],
  [
    "NodePort keeps the advertised address",
    nodePort({ recorded: { [SERVICE_ADDR_ANNOTATION]: "10.0.0.3:31234", [SESSION_LIMIT.annotation]: "5" } }),
  ],
  [
    "LoadBalancer without an address (held)",
    {
      orch: base({ service: { type: "LoadBalancer", port: 443 } }),
      nodes,
      defaultImage: "img",
      service: publicService(),
    },
  ],
  [
    "LoadBalancer with an address",
    {
      orch: base({ service: { type: "LoadBalancer", port: 443 } }),
      nodes,
      defaultImage: "img",
      service: publicService(undefined, { hostname: "orch.example.com" }),
    },
  ],
  [
    "a new session limit for running pods",
    {
      orch: base({ maxSessions: 7 }),
      nodes,
      defaultImage: "img",
      recorded: { [SESSION_LIMIT.annotation]: "3" },
    },
  ],
  [
    "flags the node would refuse",
    {
      // Stored before the CRD refused it (no Controller address for devnet): parsed on a built-in
      // network, then moved to devnet as an older object in the cluster would be.
      orch: storedBeforeTheRule(
        base({
          network: "arbitrum-one-mainnet",
          keystoreSecret: "k",
          ethUrl: "http://chain:8545",
          pricePerUnit: "1",
        }),
        { network: "devnet" },
      ),
      nodes,
      defaultImage: "img",
    },
  ],
];

describe("planOrchestrator renders the same children as before", () => {
  it("covers every example Orchestrator", () => {
    expect(exampleOrchestrators.map(([f]) => f)).toEqual(
      expect.arrayContaining([
        "orchestrator-rtx3090.yaml",
        "orchestrator-split.yaml",
        "orchestrator-devnet.yaml",
      ]),
    );
  });

  it.each(cases)("%s", (_, input) => {
    const { liveChanges, orchestratorFlags: _sameAsTheConfigFile, ai, ...plan } = planOrchestrator(input);
    expect({
      ...plan,
      ...(ai.models.length ? { ai } : {}),
      liveChanges: liveChanges.map((c) => `${c.setting.what} ${c.from} -> ${c.to}`),
    }).toMatchSnapshot();
  });
});

describe("every example Orchestrator", () => {
  // A user applies them as they are: with the operator's default node image, none may render a
  // flag that image's go-livepeer lacks (the node would refuse to start).
  it.each(exampleOrchestrators)("%s renders no flag problem with the default image", (_, orch) => {
    const devnet = orch.spec.devnet
      ? ({
          state: "resolved",
          configMap: orch.spec.devnet,
          ethUrl: "http://chain.devnet.svc:8545",
          controller: "0x0000000000000000000000000000000000000001",
        } as const)
      : undefined;
    const plan = planOrchestrator({ orch, nodes, defaultImage: DEFAULT_NODE_IMAGE, devnet });
    expect(describeProblems(plan.problems)).toBe("");
  });
});

describe("what rolls the node pods", () => {
  const hashes = (spec: Record<string, unknown>) => {
    const plan = planOrchestrator({ orch: base(spec), nodes, defaultImage: "img" });
    return {
      config: plan.configMaps.map((c) => c.data?.["livepeer.conf"]),
      // What restarts a node: a new pod (its template's hash) or in place (its ConfigMap's hash).
      hashes: plan.statefulSets.map(
        (s, i) =>
          `${s.spec?.template.metadata?.annotations?.["livepeer.org/pod-hash"]}/${plan.configMaps[i]?.data?.["config-hash"]}`,
      ),
    };
  };

  it("a new session limit rewrites the orchestrator's config file but keeps its pod (set live)", () => {
    const before = hashes({ maxSessions: 7 });
    const after = hashes({ maxSessions: 8 });
    expect(after.config).not.toEqual(before.config);
    expect(after.hashes).toEqual(before.hashes);
  });

  const onChain = { network: "arbitrum-one-mainnet", keystoreSecret: "k", ethUrl: "https://rpc.example.com" };

  it("on chain, a new price rewrites the config file but keeps the pod (set live with /setOrchestratorConfig)", () => {
    const before = hashes({ ...onChain, pricePerUnit: "1" });
    const after = hashes({ ...onChain, pricePerUnit: "2", pixelsPerUnit: 3 });
    expect(after.config).not.toEqual(before.config);
    expect(after.hashes).toEqual(before.hashes);
  });

  it("off chain, a new price rolls the orchestrator (the node takes a price live only with a chain client)", () => {
    expect(hashes({ pricePerUnit: "2" }).hashes).not.toEqual(hashes({ pricePerUnit: "1" }).hashes);
  });

  it("on chain, a new price for running pods is a live change, recorded on the ConfigMap", () => {
    const plan = planOrchestrator({
      orch: base({ ...onChain, pricePerUnit: "2", pixelsPerUnit: 3 }),
      nodes,
      defaultImage: "img",
      recorded: { "livepeer.org/price": "1/1" },
    });
    expect(plan.liveChanges.map((c) => [c.setting.what, c.from, c.to])).toEqual([["price", "1/1", "2/3"]]);
    expect(plan.configMaps[0]?.metadata?.annotations?.["livepeer.org/price"]).toBe("2/3");
  });

  it("a transcoder's new capacity rolls the transcoders only (they announce it when they connect)", () => {
    const split = (sessionsPerGpu: number) =>
      hashes({ transcoders: { replicas: 2, gpu: { count: 1, product: "Tesla-T4", sessionsPerGpu } } });
    const [orchBefore, transcodersBefore] = split(3).hashes;
    const [orchAfter, transcodersAfter] = split(4).hashes;
    expect(orchAfter).toBe(orchBefore);
    expect(transcodersAfter).not.toBe(transcodersBefore);
  });
});

describe("the split setup's orchestrator secret", () => {
  it("is mounted where both roles' -orchSecret flag reads its key", () => {
    const plan = planOrchestrator({
      orch: base({ transcoders: { replicas: 1, gpu: { count: 1 } } }),
      nodes,
      defaultImage: "img",
    });
    expect(plan.orchSecretName).toBe("o-orch-secret");
    expect(plan.statefulSets).toHaveLength(2);
    for (const [set, config] of plan.statefulSets.map((s, i) => [s, plan.configMaps[i]] as const)) {
      const volume = set.spec?.template.spec?.volumes?.find(
        (v) => v.secret?.secretName === plan.orchSecretName,
      );
      const mount = set.spec?.template.spec?.containers[0]?.volumeMounts?.find(
        (m) => m.name === volume?.name,
      );
      expect(config?.data?.["livepeer.conf"]).toContain(
        `\norchSecret ${mount?.mountPath}/${ORCH_SECRET_KEY}\n`,
      );
    }
  });
});

describe("AI on the orchestrator node", () => {
  const sd = { pipeline: "text-to-image", model_id: "stabilityai/sd-turbo", capacity: 1 };
  const plan = (spec: Record<string, unknown>, aiTokens: Record<string, string> = {}) =>
    planOrchestrator({ orch: base(spec), nodes, defaultImage: "img", aiTokens, newToken: () => "drawn" });
  const config = (p: ReturnType<typeof plan>) => p.configMaps[0]?.data?.["livepeer.conf"] ?? "";
  // aiModels.json is a Secret's file: a change is a new pod (its template's hash).
  const hash = (p: ReturnType<typeof plan>) =>
    p.statefulSets[0]?.spec?.template.metadata?.annotations?.["livepeer.org/pod-hash"];

  it.each([
    ["dual: transcodes and runs the AI worker", { gpu: { count: 1 }, ai: { models: [sd] } }, true],
    ["AI-only: the AI worker, no local transcoder", { ai: { only: true, models: [sd] } }, false],
  ])("%s", (_, spec, transcodes) => {
    const c = config(plan(spec));
    expect(c).toMatch(/^aiWorker$/m);
    expect(c).toMatch(/^aiModels \/var\/run\/secrets\/livepeer\/ai-models\/aiModels.json$/m);
    expect(/^transcoder$/m.test(c)).toBe(transcodes);
  });

  it("mounts aiModels.json from the AI Secret (only that key), never from the ConfigMap", () => {
    const p = plan({ ai: { models: [sd] } });
    expect(Object.keys(p.configMaps[0]?.data ?? {})).toEqual(["livepeer.conf", "config-hash"]);
    expect(p.statefulSets[0]?.spec?.template.spec?.volumes).toContainEqual({
      name: "ai-models",
      secret: {
        secretName: "o-ai-models",
        defaultMode: 0o400,
        items: [{ key: "aiModels.json", path: "aiModels.json" }],
      },
    });
  });

  it("the video session limit counts the node's own GPUs, not the runners'", () => {
    const video = plan({ gpu: { count: 1, product: "NVIDIA-GeForce-RTX-3090" } }).sessionLimit.maxSessions;
    const dual = plan({
      gpu: { count: 1, product: "NVIDIA-GeForce-RTX-3090" },
      ai: { models: [{ ...sd, runner: { gpus: 4 } }] },
    }).sessionLimit.maxSessions;
    expect(dual).toBe(video);
  });

  it("a model change rolls the node (it reads aiModels.json at start); the drawn tokens do not", () => {
    const runner = runnerName("o", sd.pipeline, sd.model_id);
    const before = plan({ ai: { models: [sd] } }, { [runner]: "a" });
    const otherToken = plan({ ai: { models: [sd] } }, { [runner]: "b" });
    expect(otherToken.ai.secret?.stringData?.[`${runner}.token`]).toBe("b");
    expect(hash(otherToken)).toBe(hash(before));
    expect(hash(plan({ ai: { models: [{ ...sd, capacity: 2 }] } }))).not.toBe(hash(before));
    expect(hash(plan({}))).not.toBe(hash(before));
  });
});
