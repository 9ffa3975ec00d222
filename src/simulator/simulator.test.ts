import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Wallet } from "ethers";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { LogClassifier } from "../node/diagnosis/classifier.ts";
import { NodeConnection } from "../node/wire/connection.ts";
import { parseScenario, playScenario } from "./scenario.ts";
import {
  type NodeSimulator,
  type NodeSimulatorOptions,
  type NodeStartError,
  startNodeSimulator,
} from "./simulator.ts";
import { getOrchestrator, serviceRequest } from "./testing/wire.ts";

const running: NodeSimulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});
const dir = mkdtempSync(path.join(tmpdir(), "node-sim-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PORTS = ["-cliAddr=127.0.0.1:0", "-httpAddr=127.0.0.1:0"];
const ORCH = [
  "-orchestrator",
  "-transcoder",
  "-serviceAddr=127.0.0.1:8935",
  "-startupAvailabilityCheck=false",
  ...PORTS,
];

async function start(argv: string[], extra: Partial<NodeSimulatorOptions> = {}) {
  const lines: string[] = [];
  const sim = await startNodeSimulator({ argv, log: (l) => lines.push(l), ...extra });
  running.push(sim);
  return { sim, lines };
}

async function startError(argv: string[], extra: Partial<NodeSimulatorOptions> = {}) {
  const lines: string[] = [];
  try {
    const sim = await startNodeSimulator({ argv, log: (l) => lines.push(l), ...extra });
    running.push(sim);
  } catch (err) {
    return { error: err as NodeStartError, lines };
  }
  throw new Error("expected the simulator to refuse to start");
}

const json = async (url: string, init?: RequestInit) => {
  const r = await fetch(url, init);
  return { status: r.status, headers: r.headers, body: (await r.json()) as Record<string, unknown> };
};
const form = (url: string, fields: Record<string, string>) =>
  fetch(url, { method: "POST", body: new URLSearchParams(fields) }).then(async (r) => ({
    status: r.status,
    text: await r.text(),
  }));

describe("node simulator: values from flags", () => {
  it("orchestrator /status carries SessionLimit and PricePerUnit from the flags, marked simulated", async () => {
    const { sim } = await start([...ORCH, "-maxSessions=12", "-pricePerUnit=1500"]);
    const expected = { SessionLimit: 12, PricePerUnit: 1500, Simulated: true, LocalTranscoding: true };
    expect((await json(`${sim.urls.cli}/status`)).body).toMatchObject(expected);
    // The service port speaks TLS (HTTP/2): its /status is the same body.
    expect(sim.urls.http).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const service = await serviceRequest(sim.urls.http!, "GET", "/status");
    expect(JSON.parse(service.body.toString("utf8"))).toMatchObject(expected);
  });

  it("keeps a currency price as text and defaults like the node (10 sessions, price 0)", async () => {
    const a = await start([...ORCH, "-pricePerUnit=0.5USD"]);
    expect((await json(`${a.sim.urls.cli}/status`)).body).toMatchObject({
      PricePerUnit: "0.5USD",
      SessionLimit: 10,
    });
    const b = await start(ORCH);
    expect((await json(`${b.sim.urls.cli}/status`)).body).toMatchObject({
      PricePerUnit: 0,
      SessionLimit: 10,
    });
  });

  it("GetOrchestrator (gRPC over TLS) advertises video capabilities, price and, with -aiWorker, AI models from -aiModels", async () => {
    const models = path.join(dir, "aiModels.json");
    writeFileSync(
      models,
      JSON.stringify([
        {
          pipeline: "text-to-image",
          model_id: "ByteDance/SDXL-Lightning",
          warm: true,
          capacity: 2,
          price_per_unit: 4768371,
        },
      ]),
    );
    const { sim } = await start([
      ...ORCH,
      "-aiWorker",
      "-pricePerUnit=1200",
      "-pixelsPerUnit=2",
      `-aiModels=${models}`,
    ]);
    const info = await getOrchestrator(sim.urls.http!);
    expect(info.transcoder).toBe("https://127.0.0.1:8935");
    // The price per pixel as the node's big.Rat: 1200/2 in lowest terms.
    expect(info.priceInfo).toMatchObject({ pricePerUnit: "600", pixelsPerUnit: "1" });
    // Off chain: the zero address (20 bytes, as the node's), no ticket parameters.
    expect(info.address).toEqual(Buffer.alloc(20));
    expect(info.ticketParams).toBeUndefined();
    expect(info.authToken?.sessionId).toMatch(/^[0-9a-f]{8}$/);
    expect(info.authToken?.token).toHaveLength(32);
    expect(Number(info.authToken?.expiration) * 1000 - Date.now()).toBeGreaterThan(29 * 60_000);
    const caps = info.capabilities!;
    // Says it is simulated where the message leaves room: semver build metadata.
    expect(caps.version).toBe("0.9.1+simulated");
    expect(caps.capacities["0"]).toBe(10);
    expect(caps.capacities["27"]).toBe(2);
    expect(caps.constraints?.PerCapability["27"]).toEqual({
      models: {
        "ByteDance/SDXL-Lightning": {
          warm: true,
          capacity: 2,
          runnerVersion: "0.0.0-simulated",
          capacityInUse: 0,
        },
      },
    });
    expect(info.capabilitiesPrices).toEqual([
      { pricePerUnit: "4768371", pixelsPerUnit: "1", capability: 27, constraint: "ByteDance/SDXL-Lightning" },
    ]);
    // Each answer has its own session.
    expect((await getOrchestrator(sim.urls.http!)).authToken?.sessionId).not.toBe(info.authToken?.sessionId);
  });

  it("OrchestratorInfo.hardware lists the -nvidia devices as Simulated GPUs, memory_free following the steering; no /hardware/stats", async () => {
    const { sim } = await start([...ORCH, "-nvidia=0,1"]);
    sim.control.setGpuMemoryUsed(0.9, "1");
    const [hardware] = (await getOrchestrator(sim.urls.http!)).hardware;
    expect(Object.keys(hardware!.gpuInfo)).toEqual(["0", "1"]);
    const total = 24 * 1024 ** 3;
    expect(hardware!.gpuInfo["0"]).toMatchObject({ name: "Simulated GPU", memoryTotal: String(total) });
    expect(Number(hardware!.gpuInfo["1"]!.memoryFree)).toBe(Math.round(total * 0.1));
    expect((await serviceRequest(sim.urls.http!, "GET", "/hardware/stats")).status).toBe(404);
    expect((await serviceRequest(sim.urls.http!, "GET", "/healthz")).status).toBe(200);
  });

  it("serves /metrics only with -monitor, with the real node's names", async () => {
    const without = await start(ORCH);
    const r = await fetch(`${without.sim.urls.cli}/metrics`);
    expect(r.status).toBe(404);
    expect(await r.text()).toBe("404 page not found\n");
    const withMonitor = await start([...ORCH, "-monitor", "-maxSessions=4"]);
    const text = await (await fetch(`${withMonitor.sim.urls.cli}/metrics`)).text();
    expect(text).toMatch(/^livepeer_max_sessions_total\{node_id="[^"]+",node_type="orch"\} 4$/m);
    expect(text).toMatch(/^livepeer_current_sessions_total\{.*\} 0$/m);
    expect(text).toMatch(/^livepeer_payment_create_errors\{.*\} 0$/m);
  });

  it("a gateway binds CLI, HTTP and RTMP ports; RTMP accepts connections", async () => {
    const { sim, lines } = await start([
      "-gateway",
      ...PORTS,
      "-rtmpAddr=127.0.0.1:0",
      "-orchAddr=127.0.0.1:8935",
    ]);
    expect(sim.role).toBe("gateway");
    const status = await json(`${sim.urls.cli}/status`);
    expect(status.body.OrchestratorPool).toEqual(["https://127.0.0.1:8935"]);
    expect(status.body).not.toHaveProperty("PricePerUnit");
    const rtmp = new URL(sim.urls.rtmp!);
    await new Promise<void>((resolve, reject) => {
      const s = connect(Number(rtmp.port), rtmp.hostname, () => {
        s.destroy();
        resolve();
      });
      s.on("error", reject);
    });
    expect(await fetch(`${sim.urls.http}/getOrchestratorInfo`).then((x) => x.status)).toBe(404);
    expect(lines.some((l) => l.includes("***Livepeer Running in Gateway Mode***"))).toBe(true);
    expect(lines.some((l) => l.includes(`Video Ingest Endpoint - ${sim.urls.rtmp}`))).toBe(true);
  });

  it("--host puts every listener on that loopback address", async () => {
    const { sim } = await start(["-gateway", "-cliAddr=0.0.0.0:0", "-httpAddr=0.0.0.0:0", "-rtmpAddr=:0"], {
      host: "127.1.0.5",
    });
    for (const url of Object.values(sim.urls)) expect(new URL(url!).hostname).toBe("127.1.0.5");
    expect((await json(`${sim.urls.cli}/status`)).body.Simulated).toBe(true);
  });

  it("refuses podNetwork beside a --host (0.0.0.0 binding is proven in test/integration/image.test.ts)", async () => {
    const { error } = await startError(ORCH, { podNetwork: true, host: "127.0.0.1" });
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain("--host 127.0.0.1 and --pod-network contradict");
  });

  it("refuses a non-loopback --host", async () => {
    const { error } = await startError(ORCH, { host: "10.0.0.1" });
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain("not a loopback address");
  });

  it("prints the node's startup lines in glog format", async () => {
    const { sim, lines } = await start([...ORCH, "-nvidia=0"]);
    expect(lines.every((l) => /^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ [\w.]+:\d+\] /.test(l))).toBe(true);
    const text = lines.join("\n");
    expect(text).toContain("***Livepeer is running on the offchain network***");
    expect(text).toContain("Transcoding on these Nvidia devices: [0]");
    expect(text).toContain(`CLI server listening on ${new URL(sim.urls.cli).host}`);
    expect(text).toContain("***Livepeer Running in Orchestrator Mode***");
  });
});

describe("node simulator: flags like the node", () => {
  it("invalid flags stop it with exit 1 and F lines naming the flag and fix", async () => {
    const { error, lines } = await startError([...ORCH, "-maxSessions=0"]);
    expect(error.exitCode).toBe(1);
    expect(lines.find((l) => l.startsWith("F"))).toMatch(
      /-maxSessions 0 is not an integer > 0.* - give an integer > 0/,
    );
  });

  it("an unknown flag exits 2 as Go's flag package does", async () => {
    const { error, lines } = await startError([...ORCH, "-maxsessions=3"]);
    expect(error.exitCode).toBe(2);
    expect(lines.join("\n")).toContain("flag provided but not defined: -maxsessions");
  });

  it("-help and -version print to stdout and exit 0", async () => {
    const help = await startError(["-help"]);
    expect(help.error.exitCode).toBe(0);
    expect(help.error.stdout).toMatch(/^Usage of livepeer:\n {2}-FVfailGsbucket string\n/);
    expect(help.error.stdout).toContain("  -maxSessions string\n    \tconcurrent session cap");
    const version = await startError(["-version"], { version: "9.9.9" });
    expect(version.error.stdout).toContain("Livepeer Node Version: 9.9.9");
  });

  it("reads -config and LP_ variables with the node's precedence", async () => {
    const config = path.join(dir, "livepeer.conf");
    writeFileSync(
      config,
      "orchestrator\ntranscoder\nmaxSessions 3\npricePerUnit 7\nserviceAddr 127.0.0.1:8935\nstartupAvailabilityCheck false\n",
    );
    const { sim } = await start([`-config=${config}`, ...PORTS, "-pricePerUnit=9"], {
      env: { LP_MAXSESSIONS: "5" },
    });
    expect((await json(`${sim.urls.cli}/status`)).body).toMatchObject({ SessionLimit: 5, PricePerUnit: 9 });
  });

  it("a missing or bad config file stops it with exit 1", async () => {
    const missing = await startError(["-config=/no/such.conf"]);
    expect(missing.error.exitCode).toBe(1);
    expect(missing.lines.join()).toContain(
      "Error parsing config: open /no/such.conf: no such file or directory",
    );
    const bad = path.join(dir, "bad.conf");
    writeFileSync(bad, "-orchestrator\n");
    const badStart = await startError([`-config=${bad}`]);
    expect(badStart.lines.join()).toContain('config file flag "-orchestrator" not defined');
  });

  it("warns about arguments the node would silently ignore", async () => {
    const { lines } = await start([...ORCH, "-reward", "false"]);
    expect(lines.find((l) => l.startsWith("W") && l.includes("ignores everything from"))).toContain(
      '"false"',
    );
  });

  it("a busy port stops it with the node's bind error, which diagnose recognises", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { error, lines } = await startError([
        ...ORCH.filter((a) => !a.startsWith("-cliAddr")),
        `-cliAddr=127.0.0.1:${port}`,
      ]);
      expect(error.exitCode).toBe(1);
      expect(error.message).toBe(`listen tcp 127.0.0.1:${port}: bind: address already in use`);
      const classifier = new LogClassifier();
      for (const l of lines) classifier.push(l);
      expect(classifier.findings().map((f) => f.id)).toEqual(["PortInUse"]);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});

describe("node simulator: keystore and password files of an on-chain node", () => {
  const onchain = (extra: string[]) => [
    ...ORCH,
    "-network=arbitrum-one-mainnet",
    "-ethUrl=https://arb1.arbitrum.io/rpc",
    "-pricePerUnit=100",
    ...extra,
  ];

  it("a keystore path that does not exist stops the node", async () => {
    const { error, lines } = await startError(
      onchain([`-ethKeystorePath=${dir}/nope`, "-ethPassword=secret"]),
    );
    expect(error.exitCode).toBe(1);
    expect(lines.find((l) => l.startsWith("F"))).toContain("provided -ethKeystorePath was not found");
  });

  it("a password file ending in a newline does not unlock the key", async () => {
    const file = path.join(dir, "password");
    writeFileSync(file, "secret\n");
    const { error, lines } = await startError(onchain([`-ethKeystorePath=${dir}`, `-ethPassword=${file}`]));
    expect(error.exitCode).toBe(1);
    const classifier = new LogClassifier();
    for (const l of lines) classifier.push(l);
    expect(classifier.findings().map((f) => f.id)).toEqual(["KeystorePasswordWrong"]);
    expect(lines.join("\n")).toContain("ends with a newline");
  });

  it("a clean password file starts", async () => {
    const file = path.join(dir, "password-ok");
    writeFileSync(file, "secret");
    const { sim, lines } = await start(onchain([`-ethKeystorePath=${dir}`, `-ethPassword=${file}`]));
    expect((await json(`${sim.urls.cli}/status`)).body.Simulated).toBe(true);
    // Its startup line names the chain calls it really makes (and makes none at start).
    const chainLine = lines.find((l) => l.includes("simulator.go:2]"));
    expect(chainLine).toContain("chain calls go to -ethUrl https://arb1.arbitrum.io/rpc");
    expect(chainLine).toMatch(/\/reward .*\/fundDepositAndReserve .*send real transactions/);
    expect(chainLine).toContain("TicketBroker.getSenderInfo for its ticket parameters");
    expect(lines.join("\n")).not.toContain("no chain RPC is called");
  });
});

describe("node simulator: CLI port changes a running node", () => {
  it("/setMaxSessions changes SessionLimit and refuses what the node refuses", async () => {
    const { sim, lines } = await start(ORCH);
    expect(await form(`${sim.urls.cli}/setMaxSessions`, { maxSessions: "6" })).toEqual({
      status: 200,
      text: "Max sessions set to 6\n",
    });
    expect((await json(`${sim.urls.cli}/status`)).body.SessionLimit).toBe(6);
    expect(lines.some((l) => l.endsWith("Updated session limit to 6"))).toBe(true);
    expect(await form(`${sim.urls.cli}/setMaxSessions`, { maxSessions: "0" })).toEqual({
      status: 400,
      text: "Max Sessions must be 'auto' or greater than zero\n",
    });
    expect((await form(`${sim.urls.cli}/setMaxSessions`, {})).text).toBe("missing form param: maxSessions\n");
    expect((await form(`${sim.urls.cli}/setMaxSessions`, { maxSessions: "x" })).status).toBe(400);
  });

  it("/setOrchestratorConfig needs a chain client (500 off-chain) and updates price and service URI on chain", async () => {
    const off = await start(ORCH);
    expect(
      await form(`${off.sim.urls.cli}/setOrchestratorConfig`, { pricePerUnit: "5", pixelsPerUnit: "1" }),
    ).toEqual({
      status: 500,
      text: "missing ETH client\n",
    });
    const on = await start([
      ...ORCH,
      "-network=devnet",
      "-ethUrl=http://127.0.0.1:8545",
      "-ethController=0x77A0865438f2EfD65667362D4a8937537CA7a5EF",
      `-ethKeystorePath=${dir}`,
      "-ethPassword=secret",
      "-pricePerUnit=100",
    ]);
    const r = await form(`${on.sim.urls.cli}/setOrchestratorConfig`, {
      pricePerUnit: "250",
      pixelsPerUnit: "1",
      serviceURI: "https://o.example:8935",
    });
    expect(r.status).toBe(200);
    expect((await json(`${on.sim.urls.cli}/status`)).body.PricePerUnit).toBe(250);
    // On chain only a signed request is answered (core/orchestrator.go VerifySig).
    const asker = Wallet.createRandom() as unknown as Wallet;
    expect((await getOrchestrator(on.sim.urls.http!, asker)).transcoder).toBe("https://o.example:8935");
    expect(
      (await form(`${on.sim.urls.cli}/setOrchestratorConfig`, { pricePerUnit: "x", pixelsPerUnit: "1" }))
        .status,
    ).toBe(400);
  });
});

describe("node simulator: steering", () => {
  it("control: emits chosen log lines, reaches the session limit, adds payment errors", async () => {
    const { sim, lines } = await start([...ORCH, "-monitor", "-maxSessions=3"]);
    const capped =
      'E1121 10:00:01.000000       1 segment_rpc.go:576] Error submitting segment statusCode=403 err="OrchestratorCapped"';
    sim.control.emitLog([capped, "plain words"]);
    expect(lines).toContain(capped);
    expect(lines.at(-1)).toMatch(/^I\d{4} .* simulator\.go:3\] plain words$/);
    sim.control.reachSessionLimit();
    sim.control.addPaymentCreateErrors(2);
    const text = await (await fetch(`${sim.urls.cli}/metrics`)).text();
    expect(text).toMatch(/^livepeer_current_sessions_total\{.*\} 3$/m);
    expect(text).toMatch(/^livepeer_payment_create_errors\{.*\} 2$/m);
  });

  it("POST /__sim/actions applies actions; GET /__sim/state shows them; bad actions get 400", async () => {
    const { sim, lines } = await start([...ORCH, "-maxSessions=4"]);
    const r = await json(`${sim.urls.cli}/__sim/actions`, {
      method: "POST",
      body: JSON.stringify([
        { sessions: "limit" },
        { paymentCreateErrors: 3 },
        { log: "hello" },
        { gpuMemoryUsed: 0.9 },
      ]),
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ currentSessions: 4, paymentCreateErrors: 3, Simulated: true });
    expect(lines.at(-1)).toContain("hello");
    expect((await json(`${sim.urls.cli}/__sim/state`)).body.currentSessions).toBe(4);
    const bad = await json(`${sim.urls.cli}/__sim/actions`, {
      method: "POST",
      body: JSON.stringify({ sessions: -1 }),
    });
    expect(bad.status).toBe(400);
    expect(String(bad.body.error)).toContain("expected a JSON action");
  });

  it("fails an endpoint with a status or a body, then recovers when cleared", async () => {
    const { sim } = await start(ORCH);
    sim.control.failEndpoint({ path: "/status", status: 503 });
    const failed = await fetch(`${sim.urls.cli}/status`);
    expect(failed.status).toBe(503);
    sim.control.failEndpoint({ path: "/status", body: "{not json" });
    expect(await (await fetch(`${sim.urls.cli}/status`)).text()).toBe("{not json");
    sim.control.clearFaults("/status");
    expect((await fetch(`${sim.urls.cli}/status`)).status).toBe(200);
    // A gRPC method's path too: the call sees an HTTP error where gRPC answers 200.
    sim.control.failEndpoint({ path: "/net.Orchestrator/GetOrchestrator", status: 503 });
    await expect(getOrchestrator(sim.urls.http!)).rejects.toThrow(/HTTP 503 where gRPC answers 200/);
    sim.control.clearFaults();
    expect((await getOrchestrator(sim.urls.http!)).authToken).toBeDefined();
  });

  it("a hanging endpoint holds each request (counted) until its client goes", async () => {
    const { sim } = await start(ORCH);
    sim.control.failEndpoint({ path: "/status", hang: true });
    expect(sim.control.snapshot().heldRequests).toBe(0);
    const client = new AbortController();
    const pending = fetch(`${sim.urls.cli}/status`, { signal: client.signal }).then(
      () => "answered",
      () => "gone",
    );
    await until(() => sim.control.snapshot().heldRequests === 1);
    // Clearing the fault serves later requests; the held one stays held.
    sim.control.clearFaults("/status");
    expect((await fetch(`${sim.urls.cli}/status`)).status).toBe(200);
    expect(sim.control.snapshot().heldRequests).toBe(1);
    expect((await json(`${sim.urls.cli}/__sim/state`)).body.heldRequests).toBe(1);
    client.abort();
    expect(await pending).toBe("gone");
    await until(() => sim.control.snapshot().heldRequests === 0);
  });

  it("a hanging endpoint does not keep stop() from closing", async () => {
    const { sim } = await start(ORCH);
    sim.control.failEndpoint({ path: "/status", hang: true });
    const pending = fetch(`${sim.urls.cli}/status`).then(
      () => "answered",
      () => "cut",
    );
    // stop() once the server holds the request: one that stop() beat to the server is cut too.
    await until(() => sim.control.snapshot().heldRequests === 1);
    await sim.stop();
    expect(await pending).toBe("cut");
    expect(await sim.exited).toBe(0);
  });

  it("plays a scenario: timed and repeated steps", async () => {
    const scenario = parseScenario(`
steps:
  - log: "E1121 10:00:01.000000       1 orchestrator.go:190] Error receiving ticket: TicketParams expired"
  - at: 50ms
    sessions: limit
  - at: 0
    every: 40ms
    paymentCreateErrors: 1
`);
    const { sim, lines } = await start([...ORCH, "-maxSessions=2"], { scenario });
    // Six ticks of the repeated step (at 0, 40, ..., 200 ms): the step at 50 ms is due before the
    // third, and a one-off step that repeated would have had the time to repeat.
    await until(() => sim.control.snapshot().paymentCreateErrors >= 6);
    const state = sim.control.snapshot();
    expect(state.currentSessions).toBe(2);
    expect(state.paymentCreateErrors).toBeGreaterThanOrEqual(3);
    expect(lines.filter((l) => l.includes("TicketParams expired"))).toHaveLength(1);
    await sim.stop();
    const after = sim.control.snapshot().paymentCreateErrors;
    // The sentinel: the same repeated step played from now on the same timers. Once it has ticked
    // three times (at 0, 40 and 80 ms), the stopped one, had it kept its timer, would have ticked too.
    let twinTicks = 0;
    const stopTwin = playScenario(
      parseScenario("steps:\n  - at: 0\n    every: 40ms\n    paymentCreateErrors: 1\n"),
      () => {
        twinTicks++;
      },
    );
    try {
      await until(() => twinTicks >= 3);
    } finally {
      stopTwin();
    }
    expect(sim.control.snapshot().paymentCreateErrors).toBe(after);
  });

  it("scenario errors name the step", () => {
    expect(() => parseScenario("steps:\n  - at: soon\n    log: x\n")).toThrow("steps.0");
    expect(() => parseScenario("steps:\n  - sessions: -1\n")).toThrow("steps.0");
    expect(() => parseScenario("steps: [")).toThrow("not YAML or JSON");
    expect(parseScenario('{"steps":[{"at":"2s","every":"1m","clear":"all"}]}')).toEqual([
      { at: 2000, every: 60_000, action: { clear: "all" } },
    ]);
  });
});

describe("node simulator: the orchestrator's startup self-check", () => {
  it("shuts down when its loopback -serviceAddr does not answer", async () => {
    const { sim, lines } = await start(
      ["-orchestrator", "-transcoder", ...PORTS, "-serviceAddr=127.0.0.1:1"],
      { availabilityCheckDelayMs: 50 },
    );
    expect(await sim.exited).toBe(0);
    expect(lines.join("\n")).toContain("Orchestrator not available at https://127.0.0.1:1");
    expect(lines.join("\n")).not.toContain("availability check of https://127.0.0.1:1 was answered");
    await expect(fetch(`${sim.urls.cli}/status`)).rejects.toThrow();
  });

  it("stays up when -serviceAddr reaches its own service port", async () => {
    const port = await freePort();
    const { sim, lines } = await start(
      [
        "-orchestrator",
        "-transcoder",
        "-cliAddr=127.0.0.1:0",
        `-httpAddr=127.0.0.1:${port}`,
        `-serviceAddr=127.0.0.1:${port}`,
      ],
      { availabilityCheckDelayMs: 50 },
    );
    // The node's self-check is a gRPC Ping of its own service URI; wait for the check's own end
    // (its verdict), not only for the Ping to arrive.
    await until(() =>
      lines.some((l) =>
        l.includes(`Simulated: the startup availability check of https://127.0.0.1:${port} was answered`),
      ),
    );
    expect(lines.join("\n")).toContain("Received Ping request");
    expect(lines.join("\n")).not.toContain("Orchestrator not available");
    expect((await fetch(`${sim.urls.cli}/status`)).status).toBe(200);
  });

  it("skips (and says so) a non-loopback -serviceAddr", async () => {
    const { lines } = await start([
      "-orchestrator",
      "-transcoder",
      ...PORTS,
      "-serviceAddr=orch.default.svc.cluster.local:8935",
    ]);
    expect(lines.join("\n")).toContain(
      "skipped the startup availability check of https://orch.default.svc.cluster.local:8935",
    );
  });
});

describe("node simulator: stops cleanly", () => {
  const servers = () => process.getActiveResourcesInfo().filter((r) => r === "TCPServerWrap").length;
  /**
   * The listeners once every close asked for so far is done (an earlier test's): libuv drops a
   * closed handle in the close phase of the loop's turn, after its check phase and before the next
   * one, so two check phases (setImmediate) later it is gone. An order of events, not a time.
   */
  const serversOnceClosed = async () => {
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    return servers();
  };
  /** After stop(): the listener count back to `before`, polled to a deadline. */
  const serversBackTo = async (before: number) => {
    await until(() => servers() <= before);
    return servers();
  };

  it("closes every listener and leaves no server handle behind", async () => {
    const before = await serversOnceClosed();
    const { sim } = await start(["-gateway", ...PORTS, "-rtmpAddr=127.0.0.1:0"]);
    expect(servers()).toBe(before + 3);
    await sim.stop();
    await sim.stop(); // idempotent
    expect(await serversBackTo(before)).toBe(before);
    await expect(fetch(`${sim.urls.cli}/status`)).rejects.toThrow();
  });

  it("an orchestrator's TLS service port closes with a client's HTTP/2 connection still open", async () => {
    const before = await serversOnceClosed();
    const { sim } = await start(ORCH);
    const kept = new NodeConnection(sim.urls.http!, "any");
    expect((await kept.request("GET", "/healthz", {}, undefined)).status).toBe(200);
    await sim.stop();
    expect(await serversBackTo(before)).toBe(before);
    await expect(kept.request("GET", "/healthz", {}, undefined, { timeoutMs: 1000 })).rejects.toThrow(
      /connection refused/,
    );
    kept.close();
  });
});

async function until(ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
