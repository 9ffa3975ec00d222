// AI on the real control plane: an Orchestrator's models run as runner Deployments on GPU nodes
// (kwok pods on loopback IPs, each runner served by a stand-in for the AI runner simulator), the
// node's aiModels.json with each runner's url and token comes from a Secret, AIReady follows the
// runners' /health, a runner's CUDA out-of-memory line becomes a finding, and a Gateway warns
// while none of its orchestrators serves a model it caps.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { gatewayController } from "../../src/controller/gateway/controller.ts";
import { orchestratorController } from "../../src/controller/orchestrator/controller.ts";
import type { Manager } from "../../src/controller/runtime/index.ts";
import { createNodePool, type NodePool } from "../../src/dev/cluster/fleet.ts";
import { defaultFleet } from "../../src/dev/cluster/nodes.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { type SimulatorFleet, startSimulatorFleet } from "../../src/dev/simulators.ts";
import {
  ConfigMaps,
  Deployments,
  KubeClient,
  type KubeObject,
  Pods,
  PooledKubeConfig,
  Secrets,
  Services,
} from "../../src/kube/index.ts";
import type { StoredGateway } from "../../src/schema/gateway.ts";
import type { StoredOrchestrator } from "../../src/schema/orchestrator.ts";
import { Gateways } from "../../src/schema/resources.ts";
import { startTestApi, type TestApi } from "./api-harness.ts";
import { kubeConfig, kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";
import { startTestManager } from "./support/manager.ts";
import { condition, isServing, orchestratorKit } from "./support/orchestrators.ts";
import { runnerStandins } from "./support/runner-standin.ts";

const kc = new PooledKubeConfig();
kc.loadFromFile(inject("kubeconfig"));
const client = new KubeClient(kc);
let ns: Awaited<ReturnType<typeof testNamespace>>;
let manager: Manager;
let api: TestApi;
let pool: NodePool;
let sims: SimulatorFleet;
const runners = runnerStandins();
const simDir = mkdtempSync(path.join(tmpdir(), "orch-ai-sims-"));
const simLog: string[] = [];
const controllerLog: string[] = [];
const node = (name: string) => defaultFleet.find((n) => n.name === name)!;

beforeAll(async () => {
  ns = await testNamespace("orch-ai");
  await installCrds(kubectl);
  pool = await createNodePool(kubeConfig(), `${ns.name}-ai`, [
    node("gpu-a100"),
    node("gpu-rtx3090-a"),
    node("cpu-only"),
  ]);
  sims = startSimulatorFleet(kubeConfig(), simDir, (l) => simLog.push(l), {
    namespace: ns.name,
    timings: { orchWebhookRefreshMs: 500 },
    runnerSimulator: runners.factory,
  });
  api = await startTestApi("default", { nodeHooks: true });
  const doctor = { periodMs: 1_000, retryMs: 500, tickMs: 200, endpointTimeoutMs: 1_000 };
  manager = await startTestManager(
    "orchestrator-ai-test",
    ns.name,
    [
      orchestratorController({ defaultImage: "livepeer/go-livepeer:test", doctor }),
      gatewayController({
        defaultImage: "livepeer/go-livepeer:test",
        doctor,
        nodeHooksUrl: new URL(api.url).origin,
        orchestratorAddresses: "pod-ip",
      }),
    ],
    controllerLog,
  );
});
afterAll(async () => {
  await manager?.stop("tests done");
  await api?.close();
  await sims?.stop();
  await pool?.delete();
  await ns?.remove();
  await kc.close();
  rmSync(simDir, { recursive: true, force: true });
});

const context = () =>
  `${simLog.slice(-8).join("\n")}\n${controllerLog
    .filter((l) => /warn|error/i.test(l))
    .slice(-8)
    .join("\n")}`;
const kit = orchestratorKit(client, () => ns.name, context);

type PodView = KubeObject & { spec?: { nodeName?: string }; status?: { podIP?: string } };
const runnerPods = (orch: string) =>
  client
    .list<PodView>(Pods, {
      namespace: ns.name,
      labelSelector: `app.kubernetes.io/instance=${orch},app.kubernetes.io/component=ai-runner`,
    })
    .then((l) => l.items);

const SD_TURBO = "stabilityai/sd-turbo";
const SDXL = "ByteDance/SDXL-Lightning";
const A100 = "NVIDIA-A100-SXM4-40GB";
const RTX = "NVIDIA-GeForce-RTX-3090";
const aiModel = (o: StoredOrchestrator, modelId: string) =>
  o.status?.ai?.models.find((m) => m.modelId === modelId);

describe("an AI-only Orchestrator on the A100 node", () => {
  it("runs the model's runner as a Deployment on the encoder-less A100, behind a Service", async () => {
    await kit.apply(
      "a100",
      {
        ai: {
          only: true,
          models: [
            {
              pipeline: "text-to-image",
              model_id: SD_TURBO,
              warm: true,
              capacity: 1,
              runner: { gpus: 1, gpuProduct: A100, weights: { hostPath: "/var/lib/livepeer/models" } },
            },
          ],
        },
      },
      pool,
    );
    let pods: PodView[] = [];
    await waitFor(
      "the runner pod placed",
      async () => {
        pods = await runnerPods("a100");
        return pods.length === 1 && !!pods[0]!.spec?.nodeName;
      },
      60_000,
      context,
    );
    expect(pods[0]!.spec?.nodeName).toBe(`${pool.name}-gpu-a100`);
    const deployments = await client.list<KubeObject & { spec: { replicas: number } }>(Deployments, {
      namespace: ns.name,
      labelSelector: "app.kubernetes.io/instance=a100",
    });
    expect(deployments.items.map((d) => [d.metadata?.name, d.spec.replicas])).toEqual([
      [expect.stringMatching(/^a100-text-to-image-[0-9a-f]{6}$/), 1],
    ]);
    const runner = deployments.items[0]!.metadata!.name!;
    const service = await client.get<KubeObject & { spec: { ports: { port: number }[] } }>(
      Services,
      ns.name,
      runner,
    );
    expect(service.spec.ports.map((p) => p.port)).toEqual([8000]);
  });

  it("gives the node aiModels.json with the runner's url and token from a Secret, never the ConfigMap", async () => {
    let secret: (KubeObject & { data?: Record<string, string> }) | undefined;
    await waitFor(
      "the AI Secret",
      async () => {
        secret = await client.get(Secrets, ns.name, "a100-ai-models").catch(() => undefined);
        return !!secret?.data?.["aiModels.json"];
      },
      30_000,
      context,
    );
    const decode = (k: string) => Buffer.from(secret!.data![k]!, "base64").toString();
    const runner = (await runnerPods("a100"))[0]!.metadata!.labels!["livepeer.org/ai-runner"]!;
    const token = decode(`${runner}.token`);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(decode("aiModels.json"))).toEqual([
      {
        pipeline: "text-to-image",
        model_id: SD_TURBO,
        warm: true,
        capacity: 1,
        url: `http://${runner}.${ns.name}.svc.cluster.local:8000`,
        token,
      },
    ]);
    const config = await client.get<KubeObject & { data: Record<string, string> }>(
      ConfigMaps,
      ns.name,
      "a100-config",
    );
    expect(Object.keys(config.data)).toEqual(["livepeer.conf"]);
    expect(config.data["livepeer.conf"]).toMatch(/^aiWorker$/m);
    expect(config.data["livepeer.conf"]).toMatch(
      /^aiModels \/var\/run\/secrets\/livepeer\/ai-models\/aiModels.json$/m,
    );
    // AI only: the node transcodes nothing itself.
    expect(config.data["livepeer.conf"]).not.toMatch(/^transcoder$/m);
    expect(config.data["livepeer.conf"]).not.toContain(token);
    // The runner got the same token: the stand-in answers the node's bearer token, refuses others.
    const ip = (await runnerPods("a100"))[0]!.status?.podIP;
    const post = (auth: string) =>
      fetch(`http://${ip}:8000/text-to-image`, {
        method: "POST",
        headers: { authorization: auth, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "a cat" }),
        signal: AbortSignal.timeout(5_000),
      });
    await waitFor(
      "the runner simulator",
      async () => (await post(`Bearer ${token}`).catch(() => undefined))?.status === 200,
      30_000,
      context,
    );
    expect((await post("Bearer wrong")).status).toBe(401);
  });

  it("keeps AIReady=False (and an AI-only Ready=False) while the runner loads the model, True once it answers", async () => {
    const cold = await kit.until(
      "a100",
      (o) =>
        condition(o, "AIReady")?.status === "False" &&
        /loading the model/.test(condition(o, "AIReady")?.message ?? ""),
    );
    expect(aiModel(cold, SD_TURBO)).toMatchObject({
      pipeline: "text-to-image",
      ready: false,
      runners: 0,
      capacity: 1,
    });
    expect(condition(cold, "Ready")?.status).not.toBe("True");
    runners.finishLoading(SD_TURBO);
    const warm = await kit.until("a100", (o) => condition(o, "AIReady")?.status === "True" && isServing(o));
    expect(aiModel(warm, SD_TURBO)).toMatchObject({ ready: true, runners: 1, capacity: 1 });
    expect(aiModel(warm, SD_TURBO)?.runner).toMatch(/^a100-text-to-image-/);
  });
});

describe("a dual (video + AI) Orchestrator on the RTX 3090 node", () => {
  it("keeps the video session limit of its own GPU and serves video while a runner runs out of GPU memory", async () => {
    runners.finishLoading(SDXL);
    await kit.apply(
      "dual",
      {
        gpu: { count: 1, product: RTX },
        ai: { models: [{ pipeline: "text-to-image", model_id: SDXL, runner: { gpus: 1, gpuProduct: RTX } }] },
      },
      pool,
    );
    const o = await kit.until("dual", (x) => condition(x, "AIReady")?.status === "True" && isServing(x));
    // One RTX 3090 for video: the runner's GPU is not counted.
    expect(o.status?.maxSessions).toBe(4);
    const pods = await runnerPods("dual");
    expect(pods.map((p) => p.spec?.nodeName)).toEqual([`${pool.name}-gpu-rtx3090-a`]);
    runners.outOfMemory(SDXL);
    const oom = await kit.until("dual", (x) => !!x.status?.findings?.some((f) => f.id === "GpuOutOfMemory"));
    expect(oom.status?.findings?.find((f) => f.id === "GpuOutOfMemory")?.message).toMatch(
      /CUDA out of memory.*Lower the model's capacity/,
    );
    // A dual orchestrator still serves video: the runner's error is AI's, not the node's.
    expect(condition(oom, "Ready")?.status).toBe("True");
  });

  it("warns when the runner's GPU memory is above 85 %, naming the video/AI split on the shared node", async () => {
    runners.memoryUsed(SDXL, 0.92);
    const high = await kit.until("dual", (x) => !!x.status?.findings?.some((f) => f.id === "GpuMemoryHigh"));
    const f = high.status?.findings?.find((x) => x.id === "GpuMemoryHigh");
    expect(f?.severity).toBe("warning");
    expect(f?.message).toMatch(new RegExp(`92%.*Video and AI share node ${pool.name}-gpu-rtx3090-a`));
    runners.memoryUsed(SDXL, 0.25);
  });
});

describe("a model removed from spec.ai", () => {
  it("has its runner Deployment and Service deleted, and the Orchestrator's AI status and AIReady go", async () => {
    const before = await client.list(Deployments, {
      namespace: ns.name,
      labelSelector: "app.kubernetes.io/instance=dual",
    });
    expect(before.items).toHaveLength(1);
    const runner = before.items[0]!.metadata!.name!;
    await kit.apply("dual", { gpu: { count: 1, product: RTX } }, pool);
    const o = await kit.until(
      "dual",
      (x) => !condition(x, "AIReady") && x.status?.ai === undefined && isServing(x),
    );
    expect(o.status?.maxSessions).toBe(4);
    await waitFor(
      "the runner Deployment and Service deleted",
      async () =>
        (await client.get(Deployments, ns.name, runner).catch(() => undefined)) === undefined &&
        (await client.get(Services, ns.name, runner).catch(() => undefined)) === undefined,
      30_000,
      context,
    );
  });
});

describe("a Gateway capping an AI capability", () => {
  const readGateway = (name: string) => client.get<StoredGateway>(Gateways, ns.name, name);
  const finding = (g: StoredGateway | undefined) =>
    g?.status?.findings?.find((f) => f.id === "NoAICapableOrchestrator");
  async function untilGateway(ok: (g: StoredGateway) => boolean) {
    let last: StoredGateway | undefined;
    await waitFor(
      "Gateway gw",
      async () => {
        last = await readGateway("gw").catch(() => undefined);
        return !!last && ok(last);
      },
      60_000,
      () => `${JSON.stringify(last?.status, null, 1)}\n${context()}`,
    );
    return last!;
  }

  it("warns NoAICapableOrchestrator while it selects only a video orchestrator, and clears once an AI one joins", async () => {
    await kit.apply("video", { pricePerUnit: "100" }, pool);
    await kubectl(["label", "orchestrator", "video", "-n", ns.name, "pool=gw-ai", "--overwrite"]);
    await kit.until("video", isServing);
    const body = {
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Gateway",
      metadata: { name: "gw", namespace: ns.name },
      spec: {
        podTemplate: { nodeSelector: pool.nodeSelector, tolerations: pool.tolerations },
        orchestrators: { selector: { matchLabels: { pool: "gw-ai" } } },
        maxPricePerCapability: [{ pipeline: "text-to-image", modelId: SD_TURBO, maxPricePerUnit: "1000" }],
      },
    };
    await kubectl(["apply", "--server-side", "--field-manager=test", "-f", "-"], JSON.stringify(body));
    const without = await untilGateway((g) => !!finding(g));
    expect(finding(without)).toMatchObject({ severity: "warning" });
    expect(finding(without)?.message).toMatch(
      /none of the 1 orchestrator\(s\).*text-to-image stabilityai\/sd-turbo/,
    );
    await kubectl(["label", "orchestrator", "a100", "-n", ns.name, "pool=gw-ai", "--overwrite"]);
    const withAi = await untilGateway(
      (g) => !finding(g) && (g.status?.orchestrators ?? []).some((x) => x.name === "a100"),
    );
    expect(withAi.status?.orchestrators?.map((x) => x.name).sort()).toEqual(["a100", "video"]);
  });
});

describe("bad model ids", () => {
  it("are rejected at apply with the reason and the fix", async () => {
    const body = {
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Orchestrator",
      metadata: { name: "bad-ai", namespace: ns.name },
      spec: { ai: { models: [{ pipeline: "llm", model_id: "llama3:8b" }] } },
    };
    const error = await kubectl(
      ["apply", "--server-side", "--field-manager=test", "-f", "-"],
      JSON.stringify(body),
    ).then(
      () => "",
      (err: Error) => err.message,
    );
    expect(error).toMatch(/container-runtime LLM tag.*meta-llama\/Meta-Llama-3.1-8B-Instruct/);
  });
});
