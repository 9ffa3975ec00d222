// An AI job through the simulated network: gateway -> orchestrator (-aiWorker, aiModels.json with
// url + token) -> AI runner, all on loopback, every process stopped after each test.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../../dev/cluster/process.ts";
import { readNetworkCapabilities } from "../../node/client/network-capabilities.ts";
import { readSolidPng } from "../ai-runner/png.ts";
import { type AiRunnerOptions, type AiRunnerSimulator, startAiRunnerSimulator } from "../ai-runner/runner.ts";
import {
  type NodeSimulator,
  type NodeSimulatorOptions,
  type NodeStartError,
  startNodeSimulator,
} from "../simulator.ts";
import { testAccountFlags } from "../testing/keystore.ts";
import { getOrchestrator, serviceFetch } from "../testing/wire.ts";

const stoppers: (() => Promise<void>)[] = [];

/** A port nothing listens on (bound and released at once). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
afterEach(async () => {
  await Promise.all(stoppers.splice(0).map((stop) => stop()));
});
const dir = mkdtempSync(path.join(tmpdir(), "ai-sim-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PORTS = ["-cliAddr=127.0.0.1:0", "-httpAddr=127.0.0.1:0"];
const MODEL = "stabilityai/sd-turbo";

async function runner(options: Partial<AiRunnerOptions> = {}) {
  const lines: string[] = [];
  const r: AiRunnerSimulator = startAiRunnerSimulator({
    pipeline: "text-to-image",
    modelId: MODEL,
    port: 0,
    token: "runner-token",
    log: (l) => lines.push(l),
    ...options,
  });
  stoppers.push(() => r.stop());
  return { runner: r, url: await r.listening, lines };
}

/**
 * A door in front of a runner: requests pass through to it, except that each job (a POST) waits at
 * the door, counted, until the test opens it.
 */
async function door(target: string) {
  let opened!: () => void;
  const open = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const state = { url: "", waiting: 0, open: () => opened() };
  const server = createHttpServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method === "POST") {
      state.waiting++;
      await open;
    }
    const headers: Record<string, string> = {};
    for (const name of ["authorization", "content-type"]) {
      const value = req.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    try {
      const answer = await fetch(`${target}${req.url}`, {
        method: req.method ?? "GET",
        headers,
        ...(req.method === "POST" ? { body: Buffer.concat(chunks) } : {}),
      });
      const body = Buffer.from(await answer.arrayBuffer());
      res.writeHead(answer.status, { "Content-Type": answer.headers.get("content-type") ?? "text/plain" });
      res.end(body);
    } catch (err) {
      res.writeHead(502).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stoppers.push(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

async function until(ok: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function aiModels(entries: object[]): string {
  const file = path.join(dir, `aiModels-${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(entries));
  return file;
}

async function node(argv: string[], extra: Partial<NodeSimulatorOptions> = {}) {
  const lines: string[] = [];
  const sim: NodeSimulator = await startNodeSimulator({ argv, log: (l) => lines.push(l), ...extra });
  stoppers.push(() => sim.stop());
  return { sim, lines };
}

/** On chain with no chain behind -ethUrl: prices are quoted, ticket parameters left out. */
const NO_CHAIN = [
  "-network=devnet",
  "-ethUrl=http://127.0.0.1:9",
  "-ethController=0x77A0865438f2EfD65667362D4a8937537CA7a5EF",
  `-ethKeystorePath=${tmpdir()}`,
  "-ethPassword=secret",
  "-autoAdjustPrice=false",
  "-liveAICapReportInterval=200ms",
];
/** An on-chain gateway with an account of its own: it signs its GetOrchestrator requests. */
const gatewayOnChain = async () => [
  ...NO_CHAIN.filter((f) => !/^-eth(KeystorePath|Password)=/.test(f)),
  ...(await testAccountFlags(mkdtempSync(path.join(dir, "gateway-account-")))),
];

const orchestrator = (extra: string[]) =>
  node([
    "-orchestrator",
    "-serviceAddr=127.0.0.1:8935",
    "-startupAvailabilityCheck=false",
    ...PORTS,
    ...extra,
  ]);

const gateway = (orchs: NodeSimulator[], extra: string[] = []) =>
  node([
    "-gateway",
    ...PORTS,
    "-rtmpAddr=127.0.0.1:0",
    `-orchAddr=${orchs.map((o) => o.urls.http).join(",")}`,
    ...extra,
  ]);

const textToImage = (gatewayUrl: string, body: object) =>
  fetch(`${gatewayUrl}/text-to-image`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

describe("AI through the simulated network", () => {
  it("a text-to-image request through gateway -> orchestrator -> runner returns a PNG", async () => {
    const r = await runner();
    const models = aiModels([
      {
        pipeline: "text-to-image",
        model_id: MODEL,
        url: r.url,
        token: "runner-token",
        capacity: 2,
        warm: true,
      },
    ]);
    const orch = await orchestrator(["-aiWorker", `-aiModels=${models}`]);
    const gw = await gateway([orch.sim]);

    const res = await textToImage(gw.sim.urls.http!, {
      prompt: "a red fox",
      model_id: MODEL,
      width: 32,
      height: 16,
      seed: 3,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { images: { url: string; seed: number; nsfw: boolean }[] };
    expect(body.images).toEqual([
      { nsfw: false, seed: 3, url: expect.stringMatching(/^\/stream\/[0-9a-f]{8}\/[0-9a-f]{8}\.png$/) },
    ]);
    const image = await fetch(`${gw.sim.urls.http}${body.images[0]!.url}`);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(readSolidPng(Buffer.from(await image.arrayBuffer()))).toMatchObject({ width: 32, height: 16 });

    expect(
      orch.lines.some((l) =>
        / INFO Starting external container name=text-to-image_stabilityai-sd-turbo_http:\/\/127\.0\.0\.1:\d+ modelID=stabilityai\/sd-turbo$/.test(
          l,
        ),
      ),
    ).toBe(true);
    expect(
      orch.lines.some((l) =>
        /Processed request id=[0-9a-f]{8} cap=Text to image modelID=stabilityai\/sd-turbo took=/.test(l),
      ),
    ).toBe(true);
    expect(
      gw.lines.some((l) =>
        /request_id=[0-9a-f]{8} capability=Text to image model_id=stabilityai\/sd-turbo Processed AI request/.test(
          l,
        ),
      ),
    ).toBe(true);
  });

  it("the orchestrator advertises its runners' models (capacity, runner version) only with -aiWorker", async () => {
    const r = await runner({ version: "0.14.2" });
    const models = aiModels([
      { pipeline: "text-to-image", model_id: MODEL, url: r.url, token: "runner-token", capacity: 3 },
    ]);
    const ai = await orchestrator(["-aiWorker", `-aiModels=${models}`]);
    const info = await getOrchestrator(ai.sim.urls.http!);
    expect(info.capabilities?.capacities["27"]).toBe(3);
    expect(info.capabilities?.constraints?.PerCapability["27"]).toEqual({
      models: { [MODEL]: { warm: false, capacity: 3, runnerVersion: "0.14.2", capacityInUse: 0 } },
    });
    // Only gateways list network capabilities (server/handlers.go): an orchestrator refuses.
    const refused = await fetch(`${ai.sim.urls.cli}/getNetworkCapabilities`);
    expect([refused.status, await refused.text()]).toEqual([
      400,
      "Node must be gateway node to get network capabilities\n",
    ]);

    const withoutWorker = await orchestrator([`-aiModels=${models}`]);
    const plain = await getOrchestrator(withoutWorker.sim.urls.http!);
    expect(plain.capabilities?.constraints?.PerCapability).toEqual({});
  });

  it("refuses as the node does when no orchestrator in the pool offers the model: 503 Service Unavailable Error", async () => {
    const r = await runner();
    const models = aiModels([
      { pipeline: "text-to-image", model_id: MODEL, url: r.url, token: "runner-token" },
    ]);
    const aiOrch = await orchestrator(["-aiWorker", `-aiModels=${models}`]);
    const videoOrch = await orchestrator(["-transcoder"]);

    const videoOnly = await gateway([videoOrch.sim]);
    const refused = await textToImage(videoOnly.sim.urls.http!, { prompt: "x", model_id: MODEL });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ error: { message: "Service Unavailable Error" } });
    expect(
      videoOnly.lines.some((l) =>
        /model_id=stabilityai\/sd-turbo Error with API code=503 err=no orchestrators available$/.test(l),
      ),
    ).toBe(true);

    const otherModel = await gateway([aiOrch.sim]);
    expect(
      (await textToImage(otherModel.sim.urls.http!, { prompt: "x", model_id: "ByteDance/SDXL-Lightning" }))
        .status,
    ).toBe(503);

    const both = await gateway([videoOrch.sim, aiOrch.sim]);
    expect(
      (await textToImage(both.sim.urls.http!, { prompt: "x", model_id: MODEL, width: 8, height: 8 })).status,
    ).toBe(200);
  });

  it("on chain the gateway's /getNetworkCapabilities lists what its pool's orchestrators quoted it, models included; off chain it answers 500, as the node", async () => {
    const r = await runner();
    const models = aiModels([
      {
        pipeline: "text-to-image",
        model_id: MODEL,
        url: r.url,
        token: "runner-token",
        capacity: 2,
        price_per_unit: 40,
      },
    ]);
    const aiOrch = await orchestrator(["-aiWorker", `-aiModels=${models}`, "-pricePerUnit=7", ...NO_CHAIN]);
    const videoOrch = await orchestrator(["-transcoder", "-pricePerUnit=9", ...NO_CHAIN]);
    const gw = await gateway([aiOrch.sim, videoOrch.sim], await gatewayOnChain());
    // The node polls at start and every -liveAICapReportInterval; until one answered, 500.
    let network: Awaited<ReturnType<typeof readNetworkCapabilities>> | undefined;
    await waitFor(
      "the gateway to list both orchestrators",
      async () => {
        network = await readNetworkCapabilities(gw.sim.urls.cli).catch(() => undefined);
        return network?.orchestrators.length === 2;
      },
      10_000,
      () => JSON.stringify(network),
    );
    expect(network!.simulated).toBe(true);
    expect(network!.capabilityNames[27]).toBe("Text to image");
    // Each listed with the price it quoted this gateway (no overhead: -autoAdjustPrice=false).
    const listed = network!.orchestrators.map((o) => [o.priceInfo?.pricePerUnit, o.capabilities.aiModels]);
    expect(listed).toContainEqual([
      "7",
      [{ capability: 27, modelId: MODEL, warm: false, capacity: 2, capacityInUse: 0 }],
    ]);
    expect(listed).toContainEqual(["9", []]);
    expect(network!.orchestrators.map((o) => o.orchUri)).toEqual([
      "https://127.0.0.1:8935",
      "https://127.0.0.1:8935",
    ]);
    expect(gw.lines.some((l) => l.includes("Using orchestrator pool with 2 orchestrators"))).toBe(true);

    const offChain = await gateway([aiOrch.sim, videoOrch.sim]);
    const answer = await fetch(`${offChain.sim.urls.cli}/getNetworkCapabilities`);
    expect(answer.status).toBe(500);
    const text = await answer.text();
    expect(text.startsWith("network capabilities not available\n")).toBe(true);
    expect(JSON.parse(text.slice(text.indexOf("\n") + 1))).toMatchObject({ orchestrators: null });
    expect(
      offChain.lines.some((l) =>
        /HTTP Response Error statusCode=500 err=network capabilities not available$/.test(l),
      ),
    ).toBe(true);
  });

  it("a video-only orchestrator answers an AI job 503 insufficient capacity (silently, for the gateway)", async () => {
    const videoOrch = await orchestrator(["-transcoder"]);
    const res = await serviceFetch(`${videoOrch.sim.urls.http}/text-to-image`, {
      method: "POST",
      body: JSON.stringify({ prompt: "x", model_id: MODEL }),
    });
    expect(res.status).toBe(503);
    expect(await res.text()).toBe("insufficient capacity\n");
    expect(
      videoOrch.lines.some((l) =>
        /clientIP=127\.0\.0\.1 Insufficient capacity for pipeline=text-to-image modelID=stabilityai\/sd-turbo$/.test(
          l,
        ),
      ),
    ).toBe(true);
  });

  it("an orchestrator takes at most `capacity` jobs of a model at once: the next gets 503 insufficient capacity", async () => {
    const r = await runner();
    const held = await door(r.url);
    const models = aiModels([
      { pipeline: "text-to-image", model_id: MODEL, url: held.url, token: "runner-token", capacity: 1 },
    ]);
    const orch = await orchestrator(["-aiWorker", `-aiModels=${models}`]);
    const job = () =>
      serviceFetch(`${orch.sim.urls.http}/text-to-image`, {
        method: "POST",
        body: JSON.stringify({ prompt: "x", model_id: MODEL, width: 8, height: 8 }),
      }).then((res) => res.status);
    const first = job();
    // The first job is in flight once it waits at the runner's door (the orchestrator counted it
    // before sending it on); it stays in flight until the door opens.
    await until(() => held.waiting === 1);
    expect(await job()).toBe(503);
    expect(held.waiting).toBe(1); // the refused job never reached the runner
    held.open();
    expect(await first).toBe(200);
    expect(await job()).toBe(200);
    expect(held.waiting).toBe(2);
    expect(r.runner.snapshot().images).toBe(2);
  });

  it("a wrong token in aiModels.json: the runner refuses it and the gateway finds no orchestrator left", async () => {
    const r = await runner();
    const models = aiModels([
      { pipeline: "text-to-image", model_id: MODEL, url: r.url, token: "stale-token" },
    ]);
    const orch = await orchestrator(["-aiWorker", `-aiModels=${models}`]);
    const direct = await serviceFetch(`${orch.sim.urls.http}/text-to-image`, {
      method: "POST",
      body: JSON.stringify({ prompt: "x", model_id: MODEL }),
    });
    expect(direct.status).toBe(500);
    expect(await direct.text()).toBe("text-to-image container returned 401: Invalid bearer token.\n");
    const gw = await gateway([orch.sim]);
    expect((await textToImage(gw.sim.urls.http!, { prompt: "x", model_id: MODEL })).status).toBe(503);
    expect(
      gw.lines.some(
        (l) =>
          l.includes("Error submitting request modelID=stabilityai/sd-turbo try=1") &&
          l.includes("err=text-to-image container returned 401: Invalid bearer token."),
      ),
    ).toBe(true);
  });

  it("a runner out of GPU memory: its CUDA line in its log, the orchestrator answers 500 with the runner's message", async () => {
    const r = await runner({ oomAfter: 0 });
    const models = aiModels([
      { pipeline: "text-to-image", model_id: MODEL, url: r.url, token: "runner-token" },
    ]);
    const orch = await orchestrator(["-aiWorker", `-aiModels=${models}`]);
    const res = await serviceFetch(`${orch.sim.urls.http}/text-to-image`, {
      method: "POST",
      body: JSON.stringify({ prompt: "x", model_id: MODEL }),
    });
    expect(res.status).toBe(500);
    expect(await res.text()).toBe(
      "text-to-image container returned 500: Out of memory error. Try reducing output image resolution.\n",
    );
    expect(r.lines.some((l) => l.includes("message=TextToImage pipeline error: CUDA out of memory."))).toBe(
      true,
    );
  });

  it("the orchestrator waits for a cold runner before it binds its ports, and gives up as the node does", async () => {
    const port = await freePort();
    const t0 = Date.now();
    const cold = startAiRunnerSimulator({
      pipeline: "text-to-image",
      modelId: MODEL,
      port,
      coldStartMs: 1200,
      log: () => {},
    });
    stoppers.push(() => cold.stop());
    const models = aiModels([
      { pipeline: "text-to-image", model_id: MODEL, url: `http://127.0.0.1:${port}` },
    ]);
    const orch = await orchestrator(["-aiWorker", `-aiModels=${models}`]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1200);
    expect((await serviceFetch(`${orch.sim.urls.http}/healthz`)).status).toBe(200);

    const nobodyPort = await freePort();
    const nobody = aiModels([
      { pipeline: "text-to-image", model_id: MODEL, url: `http://127.0.0.1:${nobodyPort}` },
    ]);
    const lines: string[] = [];
    const err = await startNodeSimulator({
      argv: [
        "-orchestrator",
        "-serviceAddr=127.0.0.1:8935",
        "-startupAvailabilityCheck=false",
        ...PORTS,
        "-aiWorker",
        `-aiModels=${nobody}`,
      ],
      log: (l) => lines.push(l),
      aiRunnerTimeoutMs: 1200,
    }).then(
      (sim) => {
        stoppers.push(() => sim.stop());
        throw new Error("expected the orchestrator to give up on its runner");
      },
      (e: NodeStartError) => e,
    );
    expect(err.exitCode).toBe(1);
    const refused = `Get "http://127.0.0.1:${nobodyPort}/health": dial tcp 127.0.0.1:${nobodyPort}: connect: connection refused`;
    expect(
      lines.some((l) =>
        l.endsWith(
          `Error AI worker warming text-to-image container: timed out waiting for runner: ${refused}`,
        ),
      ),
    ).toBe(true);
  });

  it("applies -maxPricePerCapability on chain: an orchestrator above the cap is skipped", async () => {
    const r = await runner();
    const models = aiModels([
      {
        pipeline: "text-to-image",
        model_id: MODEL,
        url: r.url,
        token: "runner-token",
        price_per_unit: 5000,
        pixels_per_unit: 1,
      },
    ]);
    const orch = await orchestrator(["-aiWorker", `-aiModels=${models}`, ...NO_CHAIN]);
    const cheap = JSON.stringify({
      capabilities_prices: [{ pipeline: "text-to-image", model_id: MODEL, price_per_unit: 100 }],
    });
    const capped = await gateway(
      [orch.sim],
      [`-maxPricePerCapability=${cheap}`, ...(await gatewayOnChain())],
    );
    expect(
      capped.lines.some((l) =>
        l.includes(
          "Maximum price per unit set to 100.000 wei for capability=text-to-image model_id=stabilityai/sd-turbo",
        ),
      ),
    ).toBe(true);
    expect(
      (await textToImage(capped.sim.urls.http!, { prompt: "x", model_id: MODEL, width: 8, height: 8 }))
        .status,
    ).toBe(503);

    const enough = JSON.stringify({
      capabilities_prices: [{ pipeline: "text-to-image", price_per_unit: 5000 }],
    });
    const ok = await gateway([orch.sim], [`-maxPricePerCapability=${enough}`, ...(await gatewayOnChain())]);
    expect(
      (await textToImage(ok.sim.urls.http!, { prompt: "x", model_id: MODEL, width: 8, height: 8 })).status,
    ).toBe(200);
  });

  it("refuses -aiWorker without -aiModels with the node's words", async () => {
    const lines: string[] = [];
    const err = await startNodeSimulator({
      argv: [
        "-orchestrator",
        "-serviceAddr=127.0.0.1:8935",
        "-startupAvailabilityCheck=false",
        ...PORTS,
        "-aiWorker",
      ],
      log: (l) => lines.push(l),
    }).then(
      (sim) => {
        stoppers.push(() => sim.stop());
        throw new Error("expected a refusal");
      },
      (e: NodeStartError) => e,
    );
    expect(err.message).toMatch(/^The '-aiWorker' flag was set, but no model configuration was provided/);
  });
});
