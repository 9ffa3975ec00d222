// One AI request through the simulated network on the real control plane, as `npm start` runs
// it: an AI-only Orchestrator's runner pod on the A100 node is served by the real AI runner
// simulator (src/dev/runner-simulators.ts, from the pod's PIPELINE, MODEL_ID, AUTH_TOKEN), the
// node reaches it through its Service URL as the simulator fleet routes it, and a Gateway that
// selects the orchestrator turns `POST /text-to-image` into a PNG. A gateway whose pool has only a
// video orchestrator refuses the same request as the node does.
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
import { aiRunnerSimulatorFactory } from "../../src/dev/runner-simulators.ts";
import { type SimulatorFleet, startSimulatorFleet } from "../../src/dev/simulators.ts";
import { KubeClient, type KubeObject, Pods, PooledKubeConfig } from "../../src/kube/index.ts";
import { readSolidPng } from "../../src/node/simulator/ai-runner/png.ts";
import type { StoredGateway } from "../../src/schema/gateway.ts";
import { Gateways } from "../../src/schema/resources.ts";
import { startTestApi, type TestApi } from "./api-harness.ts";
import { kubeConfig, kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";
import { startTestManager } from "./support/manager.ts";
import { condition, isServing, orchestratorKit } from "./support/orchestrators.ts";

const kc = new PooledKubeConfig();
kc.loadFromFile(inject("kubeconfig"));
const client = new KubeClient(kc);

let ns: Awaited<ReturnType<typeof testNamespace>>;
let manager: Manager;
let api: TestApi;
let pool: NodePool;
let sims: SimulatorFleet;
const simDir = mkdtempSync(path.join(tmpdir(), "ai-request-sims-"));
const simLog: string[] = [];
const controllerLog: string[] = [];
const node = (name: string) => defaultFleet.find((n) => n.name === name)!;
const SD_TURBO = "stabilityai/sd-turbo";
const A100 = "NVIDIA-A100-SXM4-40GB";
const GATEWAY_HTTP_PORT = 8935;
const GATEWAY_CLI_PORT = 5935;

beforeAll(async () => {
  ns = await testNamespace("ai-request");
  await installCrds(kubectl);
  pool = await createNodePool(kubeConfig(), `${ns.name}-ai`, [
    node("gpu-a100"),
    node("gpu-rtx3090-a"),
    node("cpu-only"),
  ]);
  sims = startSimulatorFleet(kubeConfig(), simDir, (l) => simLog.push(l), {
    namespace: ns.name,
    timings: { orchWebhookRefreshMs: 500 },
    runnerSimulator: aiRunnerSimulatorFactory({ coldStartSeconds: 2 }),
  });
  api = await startTestApi("default", { nodeHooks: true });
  const doctor = { periodMs: 1_000, retryMs: 500, tickMs: 200, endpointTimeoutMs: 1_000 };
  manager = await startTestManager(
    "ai-request-test",
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
  `${simLog.slice(-10).join("\n")}\n${controllerLog
    .filter((l) => /warn|error/i.test(l))
    .slice(-8)
    .join("\n")}`;
const kit = orchestratorKit(client, () => ns.name, context);

async function applyGateway(name: string, poolLabel: string): Promise<void> {
  const body = {
    apiVersion: "livepeer.org/v1alpha1",
    kind: "Gateway",
    metadata: { name, namespace: ns.name },
    spec: {
      podTemplate: { nodeSelector: pool.nodeSelector, tolerations: pool.tolerations },
      orchestrators: { selector: { matchLabels: { pool: poolLabel } } },
    },
  };
  await kubectl(["apply", "--server-side", "--field-manager=test", "-f", "-"], JSON.stringify(body));
}

/** The gateway's pod IP once it is Ready and lists `orchestrator`. */
async function readyGateway(name: string, orchestrator: string): Promise<string> {
  let last: StoredGateway | undefined;
  await waitFor(
    `Gateway ${name} Ready with ${orchestrator}`,
    async () => {
      last = await client.get<StoredGateway>(Gateways, ns.name, name).catch(() => undefined);
      return (
        last?.status?.conditions?.find((c) => c.type === "Ready")?.status === "True" &&
        (last.status.orchestrators ?? []).some((o) => o.name === orchestrator)
      );
    },
    90_000,
    () => `${JSON.stringify(last?.status, null, 1)}\n${context()}`,
  );
  const pod = await client.get<KubeObject & { status?: { podIP?: string } }>(Pods, ns.name, `${name}-0`);
  return pod.status!.podIP!;
}

/** Waits until the gateway's node itself has `count` orchestrators in its pool (its discovery refresh). */
async function nodeKnowsOrchestrators(ip: string, count: number): Promise<void> {
  await waitFor(
    `the gateway node at ${ip} to know ${count} orchestrator(s)`,
    async () => {
      const r = await fetch(`http://${ip}:${GATEWAY_CLI_PORT}/getNetworkCapabilities`).catch(() => undefined);
      if (!r?.ok) return false;
      const body = (await r.json()) as { orchestrators?: { capabilities: unknown }[] };
      return (body.orchestrators ?? []).filter((o) => o.capabilities).length === count;
    },
    30_000,
    context,
  );
}

const textToImage = (ip: string) =>
  fetch(`http://${ip}:${GATEWAY_HTTP_PORT}/text-to-image`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ prompt: "a red fox", model_id: SD_TURBO, width: 64, height: 48 }),
    signal: AbortSignal.timeout(30_000),
  });

describe("an AI request through gateway -> orchestrator -> runner", () => {
  it("returns a PNG from the real runner simulator behind an AI-only orchestrator on the A100 node", async () => {
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
    await kubectl(["label", "orchestrator", "a100", "-n", ns.name, "pool=ai", "--overwrite"]);
    const orch = await kit.until(
      "a100",
      (o) => isServing(o) && condition(o, "AIReady")?.status === "True",
      120_000,
    );
    expect(orch.status?.ai?.models).toEqual([
      expect.objectContaining({ pipeline: "text-to-image", modelId: SD_TURBO, ready: true }),
    ]);

    await applyGateway("gw-ai", "ai");
    const ip = await readyGateway("gw-ai", "a100");
    await nodeKnowsOrchestrators(ip, 1);
    const r = await textToImage(ip);
    const body = await r.text();
    expect(r.status, body).toBe(200);
    const images = (JSON.parse(body) as { images: { url: string; nsfw: boolean }[] }).images;
    expect(images).toHaveLength(1);
    expect(images[0]!.url).toMatch(/^\/stream\/[^/]+\/[^/]+\.png$/);

    const image = await fetch(`http://${ip}:${GATEWAY_HTTP_PORT}${images[0]!.url}`);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    const png = readSolidPng(Buffer.from(await image.arrayBuffer()));
    expect([png.width, png.height]).toEqual([64, 48]);
  });

  it("is refused with 503 Service Unavailable by a gateway whose pool has only a video orchestrator", async () => {
    await kit.apply("video", { pricePerUnit: "100" }, pool);
    await kubectl(["label", "orchestrator", "video", "-n", ns.name, "pool=video", "--overwrite"]);
    await kit.until("video", isServing, 90_000);
    await applyGateway("gw-video", "video");
    const ip = await readyGateway("gw-video", "video");
    // The refusal must come from a pool that has the orchestrator, not from an empty one.
    await nodeKnowsOrchestrators(ip, 1);
    const r = await textToImage(ip);
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({ error: { message: "Service Unavailable Error" } });
  });
});
