// One AI request through the simulated network on the real control plane, as `npm start` runs
// it: an AI-only Orchestrator's runner pod on the A100 node is served by the real AI runner
// simulator (src/dev/runner-simulators.ts, from the pod's PIPELINE, MODEL_ID, AUTH_TOKEN), the
// node reaches it through its Service URL as the simulator fleet routes it, and a Gateway that
// selects the orchestrator turns `POST /text-to-image` into a PNG. A gateway whose pool has only a
// video orchestrator refuses the same request as the node does.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { aiRunnerSimulatorFactory } from "../../src/dev/runner-simulators.ts";
import { type KubeObject, Pods } from "../../src/kube/index.ts";
import type { StoredGateway } from "../../src/schema/gateway.ts";
import { Gateways } from "../../src/schema/resources.ts";
import { readSolidPng } from "../../src/simulator/ai-runner/png.ts";
import { aiOnlyOnA100, SD_TURBO } from "./support/ai-specs.ts";
import { kubeClient, kubectl } from "./support/cluster.ts";
import { type NodeBed, startNodeBed } from "./support/node-bed.ts";
import { condition, isServing, orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();

const GATEWAY_HTTP_PORT = 8935;
const GATEWAY_CLI_PORT = 5935;

let bed: NodeBed;

beforeAll(async () => {
  bed = await startNodeBed({
    name: "ai-request",
    nodes: ["gpu-a100", "gpu-rtx3090-a", "cpu-only"],
    timings: { orchWebhookRefreshMs: 500 },
    runnerSimulator: aiRunnerSimulatorFactory({ coldStartSeconds: 2 }),
    doctorPeriodMs: 1_000,
  });
});
afterAll(async () => {
  await bed?.stop();
  await kc.close();
});

const context = () => bed.context();
const kit = orchestratorKit(client, () => bed.ns.name, context);

async function applyGateway(name: string, poolLabel: string): Promise<void> {
  const body = {
    apiVersion: "livepeer.org/v1alpha1",
    kind: "Gateway",
    metadata: { name, namespace: bed.ns.name },
    spec: {
      podTemplate: { nodeSelector: bed.pool.nodeSelector, tolerations: bed.pool.tolerations },
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
      last = await client.get<StoredGateway>(Gateways, bed.ns.name, name).catch(() => undefined);
      return (
        last?.status?.conditions?.find((c) => c.type === "Ready")?.status === "True" &&
        (last.status.orchestrators ?? []).some((o) => o.name === orchestrator)
      );
    },
    90_000,
    () => `${JSON.stringify(last?.status, null, 1)}\n${context()}`,
  );
  const pod = await client.get<KubeObject & { status?: { podIP?: string } }>(Pods, bed.ns.name, `${name}-0`);
  return pod.status!.podIP!;
}

/** Waits until the gateway's node itself has `count` orchestrators in its pool (its discovery refresh). */
async function nodeKnowsOrchestrators(ip: string, count: number): Promise<void> {
  await waitFor(
    `the gateway node at ${ip} to know ${count} orchestrator(s)`,
    async () => {
      // Off chain the node polls nobody (its /getNetworkCapabilities answers 500): its pool is in /status.
      const r = await fetch(`http://${ip}:${GATEWAY_CLI_PORT}/status`).catch(() => undefined);
      if (!r?.ok) return false;
      const body = (await r.json()) as { OrchestratorPool?: string[] | null };
      return (body.OrchestratorPool ?? []).length === count;
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
    await kit.apply("a100", aiOnlyOnA100(), bed.pool);
    await kubectl(["label", "orchestrator", "a100", "-n", bed.ns.name, "pool=ai", "--overwrite"]);
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
    await kit.apply("video", { pricePerUnit: "100" }, bed.pool);
    await kubectl(["label", "orchestrator", "video", "-n", bed.ns.name, "pool=video", "--overwrite"]);
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
