// The client against the node simulator on loopback, every endpoint, the happy path and each
// way a read can fail.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  type NodeSimulator,
  type NodeSimulatorOptions,
  startNodeSimulator,
} from "../../simulator/simulator.ts";
import {
  gpuMemoryHigh,
  paymentCreateErrorsRising,
  sessionLimitReached,
  videoOnlyOrchestrator,
} from "../diagnosis/evaluators.ts";
import { CertificatePins, NodeConnection } from "../wire/connection.ts";
import { ANONYMOUS } from "../wire/identity.ts";
import {
  setBroadcastConfig,
  setMaxPriceForCapability,
  setMaxSessions,
  setOrchestratorConfig,
  setPriceForBroadcaster,
} from "./cli-port.ts";
import { NodeEndpointError } from "./errors.ts";
import { readHardwareStats } from "./hardware-stats.ts";
import { readMetrics } from "./metrics.ts";
import { readNetworkCapabilities } from "./network-capabilities.ts";
import { readOrchestratorInfo } from "./orchestrator-info.ts";
import { saysSimulated } from "./simulated.ts";
import { readStatus } from "./status.ts";

const running: NodeSimulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});
const dir = mkdtempSync(path.join(tmpdir(), "node-client-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ORCH = [
  "-orchestrator",
  "-transcoder",
  "-monitor",
  "-serviceAddr=127.0.0.1:8935",
  "-startupAvailabilityCheck=false",
  "-cliAddr=127.0.0.1:0",
  "-httpAddr=127.0.0.1:0",
];

async function sim(argv: string[] = ORCH, extra: Partial<NodeSimulatorOptions> = {}) {
  const s = await startNodeSimulator({ argv, log: () => {}, ...extra });
  running.push(s);
  return s;
}

async function failure(read: Promise<unknown>): Promise<NodeEndpointError> {
  try {
    await read;
  } catch (err) {
    expect(err).toBeInstanceOf(NodeEndpointError);
    return err as NodeEndpointError;
  }
  throw new Error("expected the read to fail");
}

describe("readStatus", () => {
  it("reads the spec's SessionLimit and PricePerUnit and the real node's fields", async () => {
    const s = await sim([...ORCH, "-maxSessions=8", "-pricePerUnit=0.5USD"]);
    const status = await readStatus(s.urls.cli, { require: ["SessionLimit", "PricePerUnit"] });
    expect(status).toMatchObject({
      sessionLimit: 8,
      pricePerUnit: "0.5USD",
      version: "0.9.1+simulated",
      localTranscoding: true,
      simulated: true,
      orchestratorPool: [],
      registeredTranscoders: [],
    });
  });

  it("tolerates the real node's /status without the spec fields, and Go's nulls", async () => {
    const s = await sim();
    s.control.failEndpoint({
      path: "/status",
      status: 200,
      body: JSON.stringify({
        Version: "0.9.1",
        OrchestratorPool: null,
        RegisteredTranscoders: [{ Address: "10.0.0.9:1", Capacity: 4 }],
        RegisteredTranscodersNumber: 1,
      }),
    });
    const status = await readStatus(s.urls.cli);
    expect(status).toMatchObject({
      sessionLimit: undefined,
      pricePerUnit: undefined,
      simulated: false,
      orchestratorPool: [],
    });
    expect(status.registeredTranscoders).toEqual([{ address: "10.0.0.9:1", capacity: 4 }]);
  });

  it("a required spec field that is missing is a missing-field error", async () => {
    const gateway = await sim([
      "-gateway",
      "-cliAddr=127.0.0.1:0",
      "-httpAddr=127.0.0.1:0",
      "-rtmpAddr=127.0.0.1:0",
    ]);
    const err = await failure(readStatus(gateway.urls.cli, { require: ["PricePerUnit"] }));
    expect(err.reason).toBe("missing-field");
    expect(err.field).toBe("PricePerUnit");
    expect(err.message).toBe(`GET /status of ${gateway.urls.cli} failed: field PricePerUnit is missing`);
  });

  it("a malformed field is an invalid-field error naming it", async () => {
    const s = await sim();
    s.control.failEndpoint({ path: "/status", status: 200, body: '{"SessionLimit":"many"}' });
    const err = await failure(readStatus(s.urls.cli));
    expect(err.reason).toBe("invalid-field");
    expect(err.field).toBe("SessionLimit");
    expect(err.message).toContain("field SessionLimit is invalid");
  });

  it("bad JSON says so and shows the start of the answer", async () => {
    const s = await sim();
    s.control.failEndpoint({ path: "/status", status: 200, body: "{not json" });
    const err = await failure(readStatus(s.urls.cli));
    expect(err.reason).toBe("bad-json");
    expect(err.message).toMatch(
      /^GET \/status of http:\/\/127\.0\.0\.1:\d+ failed: the answer is not JSON .*"\{not json"$/,
    );
  });

  it("an HTTP error status is reported with its body", async () => {
    const s = await sim();
    s.control.failEndpoint({ path: "/status", status: 503 });
    const err = await failure(readStatus(s.urls.cli));
    expect(err).toMatchObject({
      reason: "http-status",
      status: 503,
      endpoint: "/status",
      baseUrl: s.urls.cli,
    });
    expect(err.message).toContain("HTTP 503: simulated failure of /status");
  });

  it("a node that does not answer in time is a timeout", async () => {
    const s = await sim();
    s.control.failEndpoint({ path: "/status", hang: true });
    const t0 = Date.now();
    const err = await failure(readStatus(s.urls.cli, { timeoutMs: 200 }));
    expect(err.reason).toBe("timeout");
    expect(err.message).toContain("no complete answer within 200 ms");
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it("a cancelled read is aborted, not a timeout", async () => {
    const s = await sim();
    s.control.failEndpoint({ path: "/status", hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await failure(readStatus(s.urls.cli, { signal: controller.signal, timeoutMs: 5000 }));
    expect(err.reason).toBe("aborted");
  });

  it("a stopped node is connection refused", async () => {
    const s = await sim();
    const url = s.urls.cli;
    await s.stop();
    const err = await failure(readStatus(url));
    expect(err.reason).toBe("connection-refused");
    expect(err.message).toContain(`GET /status of ${url} failed: connection refused`);
  });
});

describe("readMetrics", () => {
  it("reads sessions and payment errors summed over label sets", async () => {
    const s = await sim([...ORCH, "-maxSessions=5"]);
    s.control.setCurrentSessions(2);
    s.control.addPaymentCreateErrors(4);
    const m = await readMetrics(s.urls.cli, {
      require: ["currentSessions", "maxSessions", "paymentCreateErrors"],
    });
    expect(m).toMatchObject({
      currentSessions: 2,
      maxSessions: 5,
      paymentCreateErrors: 4,
      transcodersCapacity: 0,
    });
    expect(m.families.map((f) => f.name)).toContain("livepeer_current_sessions_total");
  });

  it("reads the spec's node_payment_create_errors as well", async () => {
    const s = await sim(ORCH, { paymentErrorsMetric: "node_payment_create_errors" });
    s.control.addPaymentCreateErrors(7);
    expect((await readMetrics(s.urls.cli)).paymentCreateErrors).toBe(7);
  });

  it("sums series and reads untyped text", async () => {
    const s = await sim();
    s.control.failEndpoint({
      path: "/metrics",
      status: 200,
      contentType: "text/plain",
      body: 'livepeer_payment_create_errors{manifest_id="a"} 2\nlivepeer_payment_create_errors{manifest_id="b"} 3\n',
    });
    const m = await readMetrics(s.urls.cli);
    expect(m.paymentCreateErrors).toBe(5);
    expect(m.currentSessions).toBeUndefined();
  });

  it("without -monitor the 404 says what to do", async () => {
    const s = await sim(ORCH.filter((a) => a !== "-monitor"));
    const err = await failure(readMetrics(s.urls.cli));
    expect(err).toMatchObject({ reason: "http-status", status: 404 });
    expect(err.message).toContain("the node serves /metrics only with -monitor");
  });

  it("text that is not Prometheus format is bad-metrics; a non-number is invalid-field", async () => {
    const s = await sim();
    s.control.failEndpoint({
      path: "/metrics",
      status: 200,
      contentType: "text/plain",
      body: "{not metrics",
    });
    expect((await failure(readMetrics(s.urls.cli))).reason).toBe("bad-metrics");
    s.control.failEndpoint({
      path: "/metrics",
      status: 200,
      contentType: "text/plain",
      body: "livepeer_max_sessions_total lots\n",
    });
    const err = await failure(readMetrics(s.urls.cli));
    expect(err).toMatchObject({ reason: "invalid-field", field: "livepeer_max_sessions_total" });
  });

  it("a required metric that is absent is a missing-field error", async () => {
    const s = await sim();
    s.control.failEndpoint({
      path: "/metrics",
      status: 200,
      contentType: "text/plain",
      body: "other_metric 1\n",
    });
    const err = await failure(readMetrics(s.urls.cli, { require: ["paymentCreateErrors"] }));
    expect(err).toMatchObject({ reason: "missing-field", field: "livepeer_payment_create_errors" });
  });

  it("a hanging /metrics times out", async () => {
    const s = await sim();
    s.control.failEndpoint({ path: "/metrics", hang: true });
    expect((await failure(readMetrics(s.urls.cli, { timeoutMs: 150 }))).reason).toBe("timeout");
  });
});

describe("readOrchestratorInfo", () => {
  // GetOrchestrator over gRPC/TLS, as a gateway asks it; the simulator makes its certificate at
  // start as the node does, and the connection pins it on first use.
  const info = async (s: NodeSimulator, options: { timeoutMs?: number } = {}) => {
    const connection = new NodeConnection(s.urls.http!, new CertificatePins(), "run-1");
    try {
      return await readOrchestratorInfo(connection, ANONYMOUS, options);
    } finally {
      connection.close();
    }
  };

  it("reads capabilities and AI models; off chain no price, as the node quotes none", async () => {
    const s = await sim([
      ...ORCH,
      "-pricePerUnit=1200",
      "-aiWorker",
      "-aiModels=text-to-image:ByteDance/SDXL-Lightning:true,llm:meta-llama/Meta-Llama-3.1-8B-Instruct:false",
    ]);
    const o = await info(s);
    expect(o.serviceUri).toBe("https://127.0.0.1:8935");
    expect(o.priceInfo).toBeUndefined();
    expect(o.capabilities.ids).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 26, 27, 33]);
    expect(o.capabilities.capacities[0]).toBe(10);
    expect(o.capabilities.aiModels).toEqual([
      { capability: 27, modelId: "ByteDance/SDXL-Lightning", warm: true, capacity: 1, capacityInUse: 0 },
      {
        capability: 33,
        modelId: "meta-llama/Meta-Llama-3.1-8B-Instruct",
        warm: false,
        capacity: 1,
        capacityInUse: 0,
      },
    ]);
    // The simulator says what it is where the format leaves room: the version's build metadata.
    expect(saysSimulated(o.capabilities.version)).toBe(true);
    expect(
      videoOnlyOrchestrator({
        address: o.serviceUri!,
        capabilities: o.capabilities.ids,
        aiExpected: true,
      }),
    ).toBeUndefined();
  });

  it("a video-only orchestrator is recognised from its capabilities", async () => {
    const s = await sim();
    const o = await info(s);
    expect(
      videoOnlyOrchestrator({ address: "o", capabilities: o.capabilities.ids, aiExpected: true })?.id,
    ).toBe("VideoOnlyOrchestratorRejectsAi");
  });

  it("the CLI port (plain HTTP) is not a service port: named as not speaking TLS", async () => {
    const s = await sim();
    const connection = new NodeConnection(s.urls.cli.replace("http:", "https:"), new CertificatePins());
    const err = await failure(readOrchestratorInfo(connection, ANONYMOUS));
    connection.close();
    expect(err).toMatchObject({ reason: "unreachable", endpoint: "/net.Orchestrator/GetOrchestrator" });
    expect(err.message).toMatch(/does not speak TLS/);
  });

  it("a restarted node's new certificate is refused once for the same run (then re-pinned) and pinned at once for a new run", async () => {
    const first = await sim();
    const pins = new CertificatePins();
    const before = new NodeConnection(first.urls.http!, pins, "run-1");
    await readOrchestratorInfo(before, ANONYMOUS);
    before.close();
    const url = first.urls.http!;
    await first.stop();
    running.splice(running.indexOf(first), 1);
    const port = new URL(url).port;
    const second = await sim([
      ...ORCH.filter((f) => !f.startsWith("-httpAddr")),
      `-httpAddr=127.0.0.1:${port}`,
    ]);
    expect(second.urls.http).toBe(url);
    const sameRun = new NodeConnection(url, pins, "run-1");
    expect(await failure(readOrchestratorInfo(sameRun, ANONYMOUS))).toMatchObject({
      reason: "tls-certificate",
    });
    sameRun.close();
    // Refused once and said; the next connection pins what the node presents now.
    const again = new NodeConnection(url, pins, "run-1");
    expect((await readOrchestratorInfo(again, ANONYMOUS)).serviceUri).toBe("https://127.0.0.1:8935");
    again.close();
    const newRun = new NodeConnection(url, pins, "run-2");
    expect((await readOrchestratorInfo(newRun, ANONYMOUS)).serviceUri).toBe("https://127.0.0.1:8935");
    newRun.close();
  });
});

describe("readNetworkCapabilities", () => {
  it("only a gateway lists network capabilities: an orchestrator answers 400, an off-chain gateway (which polls nobody) 500", async () => {
    const orchestrator = await sim([...ORCH, "-pricePerUnit=900"]);
    expect(await failure(readNetworkCapabilities(orchestrator.urls.cli))).toMatchObject({
      reason: "http-status",
      status: 400,
    });
    const gateway = await sim([
      "-gateway",
      "-cliAddr=127.0.0.1:0",
      "-httpAddr=127.0.0.1:0",
      "-rtmpAddr=127.0.0.1:0",
      "-orchAddr=o1:8935,o2",
    ]);
    expect(await failure(readNetworkCapabilities(gateway.urls.cli))).toMatchObject({
      reason: "http-status",
      status: 500,
    });
  });

  it("reads the orchestrators a gateway lists: addresses, service URI, quoted price, capabilities", async () => {
    const s = await sim();
    s.control.failEndpoint({
      path: "/getNetworkCapabilities",
      status: 200,
      body: JSON.stringify({
        capabilities_names: { "0": "H.264" },
        orchestrators: [
          {
            address: "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e",
            local_address: "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e",
            orch_uri: "https://127.0.0.1:8935",
            capabilities: { bitstring: [1], mandatories: [0], capacities: { "0": 10 }, version: "0.9.1" },
            price_info: { pricePerUnit: 1010, pixelsPerUnit: 1 },
            capabilities_prices: [],
            hardware: [],
          },
        ],
      }),
    });
    const caps = await readNetworkCapabilities(s.urls.cli);
    expect(caps.capabilityNames[0]).toBe("H.264");
    expect(caps.orchestrators).toEqual([
      expect.objectContaining({
        address: "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e",
        localAddress: "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e",
        orchUri: "https://127.0.0.1:8935",
        priceInfo: { pricePerUnit: "1010", pixelsPerUnit: "1" },
      }),
    ]);
    expect(caps.orchestrators[0]!.capabilities.ids).toContain(0);
  });

  it("missing orchestrators and malformed entries are field errors", async () => {
    const s = await sim();
    s.control.failEndpoint({ path: "/getNetworkCapabilities", status: 200, body: "{}" });
    expect(await failure(readNetworkCapabilities(s.urls.cli))).toMatchObject({
      reason: "missing-field",
      field: "orchestrators",
    });
    s.control.failEndpoint({
      path: "/getNetworkCapabilities",
      status: 200,
      body: '{"orchestrators":[{"orch_uri":"x"}]}',
    });
    expect(await failure(readNetworkCapabilities(s.urls.cli))).toMatchObject({
      reason: "missing-field",
      field: "orchestrators.0.address",
    });
    s.control.failEndpoint({ path: "/getNetworkCapabilities", status: 200, body: '{"orchestrators":null}' });
    expect((await readNetworkCapabilities(s.urls.cli)).orchestrators).toEqual([]);
  });
});

describe("GPU memory", () => {
  it("an orchestrator's GPUs come in its GetOrchestrator hardware and feed the 85 % check", async () => {
    const s = await sim([...ORCH, "-nvidia=0,1"]);
    const read = async () => {
      const connection = new NodeConnection(s.urls.http!, "any");
      const o = await readOrchestratorInfo(connection, ANONYMOUS);
      connection.close();
      return o.gpus;
    };
    expect(gpuMemoryHigh(await read())).toBeUndefined();
    s.control.setGpuMemoryUsed(0.9, "1");
    const gpus = await read();
    expect(
      gpus.map((g) => [g.id, Number(((g.memoryTotal - g.memoryFree) / g.memoryTotal).toFixed(6))]),
    ).toEqual([
      ["0", 0.25],
      ["1", 0.9],
    ]);
    expect(gpuMemoryHigh(gpus)?.message).toBe("GPU memory above 85%: GPU 1 (Simulated GPU) 90%");
  });
});

describe("readHardwareStats (an AI runner's /hardware/stats)", () => {
  // A runner stand-in answering fixed bodies: the reader's handling of each shape.
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));
  async function runner(body: string | undefined): Promise<string> {
    server = createServer((_req, res) => {
      if (body === undefined) return; // never answers
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("accepts a list of runner answers", async () => {
    const entry = (id: string) => ({
      pipeline: "llm",
      model_id: "m",
      gpu_stats: { [id]: { id, name: "L4", memory_total: 100, memory_free: 10 } },
    });
    const gpus = await readHardwareStats(await runner(JSON.stringify([entry("0"), entry("1")])));
    expect(gpus.map((g) => [g.id, g.pipeline, g.memoryUsedFraction])).toEqual([
      ["0", "llm", 0.9],
      ["1", "llm", 0.9],
    ]);
  });

  it.each([
    ["missing gpu_stats", '{"pipeline":""}', { reason: "missing-field", field: "gpu_stats" }],
    [
      "missing GPU memory fields",
      '[{"gpu_stats":{"0":{"memory_free":1}}}]',
      { reason: "missing-field", field: "0.gpu_stats.0.memory_total" },
    ],
    ["not JSON", "nope", { reason: "bad-json" }],
  ])("%s: a field error", async (_name, body, expected) => {
    expect(await failure(readHardwareStats(await runner(body)))).toMatchObject(expected);
  });

  it("no answer: a timeout", async () => {
    expect((await failure(readHardwareStats(await runner(undefined), { timeoutMs: 100 }))).reason).toBe(
      "timeout",
    );
  });
});

describe("metric-based findings from a running node", () => {
  it("session limit reached and payment errors rising between two reads", async () => {
    const s = await sim([...ORCH, "-maxSessions=3"]);
    const first = await readMetrics(s.urls.cli);
    expect(sessionLimitReached(first.currentSessions, first.maxSessions)).toBeUndefined();
    s.control.reachSessionLimit();
    s.control.addPaymentCreateErrors(2);
    const second = await readMetrics(s.urls.cli);
    expect(sessionLimitReached(second.currentSessions, second.maxSessions)?.message).toBe(
      "3 of 3 sessions in use: new work is turned away",
    );
    expect(paymentCreateErrorsRising(first.paymentCreateErrors, second.paymentCreateErrors)?.message).toBe(
      "payment creation errors rose from 0 to 2",
    );
  });
});

describe("CLI port writes", () => {
  it("setMaxSessions changes the limit; a refusal is an http-status error with the node's text", async () => {
    const s = await sim();
    expect(await setMaxSessions(s.urls.cli, 4)).toBe("Max sessions set to 4\n");
    expect((await readStatus(s.urls.cli)).sessionLimit).toBe(4);
    const err = await failure(setMaxSessions(s.urls.cli, 0));
    expect(err.message).toBe(
      `POST /setMaxSessions of ${s.urls.cli} failed: HTTP 400: Max Sessions must be 'auto' or greater than zero`,
    );
  });

  it("setOrchestratorConfig changes the price on chain; off chain the node has no chain client", async () => {
    const onchain = await sim([
      ...ORCH,
      "-network=devnet",
      "-ethUrl=http://127.0.0.1:8545",
      "-ethController=0x77A0865438f2EfD65667362D4a8937537CA7a5EF",
      `-ethKeystorePath=${dir}`,
      "-ethPassword=secret",
      "-pricePerUnit=10",
    ]);
    await setOrchestratorConfig(onchain.urls.cli, { pricePerUnit: 20, pixelsPerUnit: 1 });
    expect((await readStatus(onchain.urls.cli)).pricePerUnit).toBe("20");
    const offchain = await sim();
    const err = await failure(
      setOrchestratorConfig(offchain.urls.cli, { pricePerUnit: 20, pixelsPerUnit: 1 }),
    );
    expect(err).toMatchObject({ reason: "http-status", status: 500 });
    expect(err.message).toContain("missing ETH client");
  });
  it("a gateway's caps and an orchestrator's per-gateway price change live; the wrong role is refused", async () => {
    const gateway = await sim([
      "-gateway",
      "-cliAddr=127.0.0.1:0",
      "-httpAddr=127.0.0.1:0",
      "-rtmpAddr=127.0.0.1:0",
    ]);
    await setBroadcastConfig(gateway.urls.cli, { maxPricePerUnit: 900, pixelsPerUnit: 2 });
    expect((await readStatus(gateway.urls.cli)).raw.BroadcastConfig).toMatchObject({ MaxPrice: "450" });
    await setMaxPriceForCapability(gateway.urls.cli, {
      pipeline: "llm",
      modelID: "meta-llama/Meta-Llama-3.1-8B-Instruct",
      maxPricePerUnit: 30,
      pixelsPerUnit: 1,
      currency: "wei",
    });
    expect((await readStatus(gateway.urls.cli)).raw.MaxPricePerCapability).toEqual({
      llm: { "meta-llama/Meta-Llama-3.1-8B-Instruct": "30" },
    });
    const orchestrator = await sim();
    const address = "0x2222222222222222222222222222222222222222";
    await setPriceForBroadcaster(orchestrator.urls.cli, {
      broadcasterEthAddr: address,
      pricePerUnit: 5,
      pixelsPerUnit: 1,
    });
    expect((await readStatus(orchestrator.urls.cli)).raw.BroadcasterPrices).toEqual({ [address]: "5" });
    const refused = await failure(
      setPriceForBroadcaster(gateway.urls.cli, {
        broadcasterEthAddr: address,
        pricePerUnit: 5,
        pixelsPerUnit: 1,
      }),
    );
    expect(refused.message).toContain("Node must be orchestrator node to set price for broadcaster");
  });
});

describe("aiModels.json from a file", () => {
  it("the simulator reads the node's aiModels.json format", async () => {
    const file = path.join(dir, "aiModels.json");
    writeFileSync(
      file,
      JSON.stringify([
        { pipeline: "upscale", model_id: "stabilityai/stable-diffusion-x4-upscaler", capacity: 3 },
      ]),
    );
    const s = await sim([...ORCH, "-aiWorker", `-aiModels=${file}`]);
    const connection = new NodeConnection(s.urls.http!, "any");
    const info = await readOrchestratorInfo(connection, ANONYMOUS);
    connection.close();
    expect(info.capabilities.capacities[30]).toBe(3);
  });
});
