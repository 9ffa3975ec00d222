// AI on the real control plane: an Orchestrator's models run as runner Deployments on GPU nodes
// (kwok pods on loopback IPs, each runner pod served by the AI runner simulator as `npm start`
// serves it: src/dev/runner-simulators.ts, from the pod's PIPELINE, MODEL_ID and AUTH_TOKEN), the
// node's aiModels.json with each runner's url and token comes from a Secret, AIReady follows the
// runners' cold start (port closed while the model loads) and /health, a runner's CUDA
// out-of-memory line becomes a finding, and a Gateway warns while none of its orchestrators
// serves a model it caps. The test steers each runner through the simulator's POST /__sim/actions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { aiRunnerSimulatorFactory } from "../../src/dev/runner-simulators.ts";
import { ConfigMaps, Deployments, type KubeObject, Pods, Secrets, Services } from "../../src/kube/index.ts";
import { AI_RUNNER_PORT } from "../../src/schema/ai.ts";
import type { StoredGateway } from "../../src/schema/gateway.ts";
import type { StoredOrchestrator } from "../../src/schema/orchestrator.ts";
import { Gateways } from "../../src/schema/resources.ts";
import type { AiRunnerSnapshot, RunnerAction } from "../../src/simulator/ai-runner/runner.ts";
import { aiOnlyOnA100, SD_TURBO } from "./support/ai-specs.ts";
import { kubeClient, kubectl } from "./support/cluster.ts";
import { type NodeBed, startNodeBed } from "./support/node-bed.ts";
import { condition, isServing, orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();
// npm start's runner with a longer cold start (its default is 5 s): the loading state must stay
// long enough to be seen on a busy machine.
const COLD_START_SECONDS = 15;

let bed: NodeBed;

beforeAll(async () => {
  bed = await startNodeBed({
    name: "orch-ai",
    nodes: ["gpu-a100", "gpu-rtx3090-a", "cpu-only"],
    timings: { orchWebhookRefreshMs: 500 },
    runnerSimulator: aiRunnerSimulatorFactory({ coldStartSeconds: COLD_START_SECONDS }),
    doctorPeriodMs: 1_000,
  });
});
afterAll(async () => {
  await bed?.stop();
  await kc.close();
});

const context = () => bed.context();
const kit = orchestratorKit(client, () => bed.ns.name, context);

type PodView = KubeObject & { spec?: { nodeName?: string }; status?: { podIP?: string } };
const runnerPods = (orch: string) =>
  client
    .list<PodView>(Pods, {
      namespace: bed.ns.name,
      labelSelector: `app.kubernetes.io/instance=${orch},app.kubernetes.io/component=ai-runner`,
    })
    .then((l) => l.items);

/** The runner simulator of `orch`'s (one) runner pod, on the pod's IP. */
async function runnerUrl(orch: string): Promise<string> {
  const ip = (await runnerPods(orch))[0]?.status?.podIP;
  expect(ip, `${orch}'s runner pod has an IP`).toBeTruthy();
  return `http://${ip}:${AI_RUNNER_PORT}`;
}

/** The bearer token the operator made for `orch`'s runner (its Secret, as the node gets it). */
async function runnerToken(orch: string): Promise<string> {
  const runner = (await runnerPods(orch))[0]!.metadata!.labels!["livepeer.org/ai-runner"]!;
  const secret = await client.get<KubeObject & { data: Record<string, string> }>(
    Secrets,
    bed.ns.name,
    `${orch}-ai-models`,
  );
  return Buffer.from(secret.data[`${runner}.token`]!, "base64").toString();
}

/** Steers `orch`'s runner simulator (POST /__sim/actions); its state after the actions. */
async function steer(orch: string, actions: RunnerAction | RunnerAction[]): Promise<AiRunnerSnapshot> {
  const res = await fetch(`${await runnerUrl(orch)}/__sim/actions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(actions),
    signal: AbortSignal.timeout(5_000),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as AiRunnerSnapshot;
}

/** One text-to-image job on `orch`'s runner, as the node sends it. */
const textToImage = async (orch: string, authorization: string) =>
  fetch(`${await runnerUrl(orch)}/text-to-image`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify({ prompt: "a cat", width: 8, height: 8 }),
    signal: AbortSignal.timeout(5_000),
  });

const SDXL = "ByteDance/SDXL-Lightning";
const RTX = "NVIDIA-GeForce-RTX-3090";
const aiModel = (o: StoredOrchestrator, modelId: string) =>
  o.status?.ai?.models.find((m) => m.modelId === modelId);

describe("an AI-only Orchestrator on the A100 node", () => {
  it("runs the model's runner as a Deployment on the encoder-less A100, behind a Service", async () => {
    await kit.apply("a100", aiOnlyOnA100(), bed.pool);
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
    expect(pods[0]!.spec?.nodeName).toBe(`${bed.pool.name}-gpu-a100`);
    const deployments = await client.list<KubeObject & { spec: { replicas: number } }>(Deployments, {
      namespace: bed.ns.name,
      labelSelector: "app.kubernetes.io/instance=a100",
    });
    expect(deployments.items.map((d) => [d.metadata?.name, d.spec.replicas])).toEqual([
      [expect.stringMatching(/^a100-text-to-image-[0-9a-f]{6}$/), 1],
    ]);
    const runner = deployments.items[0]!.metadata!.name!;
    const service = await client.get<KubeObject & { spec: { ports: { port: number }[] } }>(
      Services,
      bed.ns.name,
      runner,
    );
    expect(service.spec.ports.map((p) => p.port)).toEqual([8000]);
  });

  it("gives the node aiModels.json with the runner's url and token from a Secret, never the ConfigMap", async () => {
    let secret: (KubeObject & { data?: Record<string, string> }) | undefined;
    await waitFor(
      "the AI Secret",
      async () => {
        secret = await client.get(Secrets, bed.ns.name, "a100-ai-models").catch(() => undefined);
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
        url: `http://${runner}.${bed.ns.name}.svc.cluster.local:8000`,
        token,
      },
    ]);
    const config = await client.get<KubeObject & { data: Record<string, string> }>(
      ConfigMaps,
      bed.ns.name,
      "a100-config",
    );
    expect(Object.keys(config.data).sort()).toEqual(["config-hash", "livepeer.conf"]);
    expect(config.data["livepeer.conf"]).toMatch(/^aiWorker$/m);
    expect(config.data["livepeer.conf"]).toMatch(
      /^aiModels \/var\/run\/secrets\/livepeer\/ai-models\/aiModels.json$/m,
    );
    // AI only: the node transcodes nothing itself.
    expect(config.data["livepeer.conf"]).not.toMatch(/^transcoder$/m);
    expect(config.data["livepeer.conf"]).not.toContain(token);
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
    // The cold start is the runner's own: nothing listens on its port while the model loads.
    const health = `${await runnerUrl("a100")}/health`;
    const closed = await fetch(health, { signal: AbortSignal.timeout(2_000) }).then(
      (res) => `answered ${res.status}`,
      (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message,
    );
    expect(closed).toBe("ECONNREFUSED");
    const warm = await kit.until(
      "a100",
      (o) => condition(o, "AIReady")?.status === "True" && isServing(o),
      60_000 + COLD_START_SECONDS * 1000,
    );
    expect(aiModel(warm, SD_TURBO)).toMatchObject({ ready: true, runners: 1, capacity: 1 });
    expect(aiModel(warm, SD_TURBO)?.runner).toMatch(/^a100-text-to-image-/);
    expect(await (await fetch(health, { signal: AbortSignal.timeout(5_000) })).json()).toEqual({
      status: "OK",
    });
  });

  it("gives the runner the node's token: it answers the node's bearer token and refuses others", async () => {
    const token = await runnerToken("a100");
    const ok = await textToImage("a100", `Bearer ${token}`);
    expect(ok.status).toBe(200);
    const { images } = (await ok.json()) as { images: { url: string }[] };
    expect(images[0]?.url).toMatch(/^data:image\/png;base64,/);
    expect((await textToImage("a100", "Bearer wrong")).status).toBe(401);
  });
});

describe("a dual (video + AI) Orchestrator on the RTX 3090 node", () => {
  it("keeps the video session limit of its own GPU and serves video while a runner runs out of GPU memory", async () => {
    await kit.apply(
      "dual",
      {
        gpu: { count: 1, product: RTX },
        ai: { models: [{ pipeline: "text-to-image", model_id: SDXL, runner: { gpus: 1, gpuProduct: RTX } }] },
      },
      bed.pool,
    );
    const o = await kit.until(
      "dual",
      (x) => condition(x, "AIReady")?.status === "True" && isServing(x),
      60_000 + COLD_START_SECONDS * 1000,
    );
    // One RTX 3090 for video: the runner's GPU is not counted.
    expect(o.status?.maxSessions).toBe(4);
    const pods = await runnerPods("dual");
    expect(pods.map((p) => p.spec?.nodeName)).toEqual([`${bed.pool.name}-gpu-rtx3090-a`]);
    // From now on the runner runs out of GPU memory on every image: the next job fails as the real
    // runner's does, and it logs CUDA's error.
    expect(await steer("dual", { oom: true })).toMatchObject({ modelId: SDXL, outOfMemory: true });
    const failed = await textToImage("dual", `Bearer ${await runnerToken("dual")}`);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({
      detail: { msg: "Out of memory error. Try reducing output image resolution." },
    });
    const oom = await kit.until("dual", (x) => !!x.status?.findings?.some((f) => f.id === "GpuOutOfMemory"));
    expect(oom.status?.findings?.find((f) => f.id === "GpuOutOfMemory")?.message).toMatch(
      /CUDA out of memory.*Lower the model's capacity/,
    );
    // A dual orchestrator still serves video: the runner's error is AI's, not the node's.
    expect(condition(oom, "Ready")?.status).toBe("True");
  });

  it("warns when the runner's GPU memory is above 85 %, naming the video/AI split on the shared node", async () => {
    // The runner recovers from running out of memory (which left its GPU 99 % full), then holds 92 %.
    expect(await steer("dual", [{ oom: false }, { gpuMemoryUsed: 0.92 }])).toMatchObject({
      outOfMemory: false,
      gpuMemoryUsed: 0.92,
    });
    // The doctor may still show the 99 % it read during the out-of-memory job: wait for a 92 % reading.
    const gpuMemoryHigh = (x: StoredOrchestrator) =>
      x.status?.findings?.find((f) => f.id === "GpuMemoryHigh");
    const high = await kit.until("dual", (x) => /\b92%/.test(gpuMemoryHigh(x)?.message ?? ""));
    const f = gpuMemoryHigh(high);
    expect(f?.severity).toBe("warning");
    expect(f?.message).toMatch(new RegExp(`92%.*Video and AI share node ${bed.pool.name}-gpu-rtx3090-a`));
    expect(await steer("dual", { gpuMemoryUsed: 0.25 })).toMatchObject({ gpuMemoryUsed: 0.25 });
  });
});

describe("a model removed from spec.ai", () => {
  it("has its runner Deployment and Service deleted, and the Orchestrator's AI status and AIReady go", async () => {
    const before = await client.list(Deployments, {
      namespace: bed.ns.name,
      labelSelector: "app.kubernetes.io/instance=dual",
    });
    expect(before.items).toHaveLength(1);
    const runner = before.items[0]!.metadata!.name!;
    await kit.apply("dual", { gpu: { count: 1, product: RTX } }, bed.pool);
    const o = await kit.until(
      "dual",
      (x) => !condition(x, "AIReady") && x.status?.ai === undefined && isServing(x),
    );
    expect(o.status?.maxSessions).toBe(4);
    await waitFor(
      "the runner Deployment and Service deleted",
      async () =>
        (await client.get(Deployments, bed.ns.name, runner).catch(() => undefined)) === undefined &&
        (await client.get(Services, bed.ns.name, runner).catch(() => undefined)) === undefined,
      30_000,
      context,
    );
  });
});

describe("a Gateway capping an AI capability", () => {
  const readGateway = (name: string) => client.get<StoredGateway>(Gateways, bed.ns.name, name);
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
    await kit.apply("video", { pricePerUnit: "100" }, bed.pool);
    await kubectl(["label", "orchestrator", "video", "-n", bed.ns.name, "pool=gw-ai", "--overwrite"]);
    await kit.until("video", isServing);
    const body = {
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Gateway",
      metadata: { name: "gw", namespace: bed.ns.name },
      spec: {
        podTemplate: { nodeSelector: bed.pool.nodeSelector, tolerations: bed.pool.tolerations },
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
    await kubectl(["label", "orchestrator", "a100", "-n", bed.ns.name, "pool=gw-ai", "--overwrite"]);
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
      metadata: { name: "bad-ai", namespace: bed.ns.name },
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
