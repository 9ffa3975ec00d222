// What reading an orchestrator's info costs the node doctor per node per period, measured in one
// run: GetOrchestrator over gRPC/TLS (the node's protocol, one HTTP/2 connection per node, kept
// between periods, the certificate pinned) against the JSON read the doctor made before
// (GET /getOrchestratorInfo over HTTP/1.1 keep-alive, one socket per node, JSON.parse and the same
// mapping). The stand-in servers run in a child process, so the CPU measured here is the reader's
// alone; each node is one connection to them. Prints requests, CPU per read, heap per node and the
// ratios (gRPC / JSON). The first period pays the TLS handshakes; the later ones are the steady
// cost. Not a test.
//
//   node --expose-gc bench/orchestrator-info.ts [--nodes 1000] [--periods 4] [--concurrency 32]
import { fork } from "node:child_process";
import http, { createServer, type Server } from "node:http";
import { createSecureServer } from "node:http2";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { orchestratorInfoOf, readOrchestratorInfo } from "../src/node/client/orchestrator-info.ts";
import { CertificatePins, NodeConnection } from "../src/node/wire/connection.ts";
import { frameMessage, GRPC_CONTENT_TYPE } from "../src/node/wire/grpc.ts";
import { decodeMessage, encodeMessage, type MessageInput } from "../src/node/wire/messages.ts";
import { selfSignedCertificate } from "../src/node/wire/self-signed-certificate.ts";
import { ephemeralIdentity } from "../src/node/wire/signed-identity.ts";

const { values } = parseArgs({
  options: {
    nodes: { type: "string", default: "1000" },
    periods: { type: "string", default: "4" },
    concurrency: { type: "string", default: "32" },
    serve: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  console.log("node --expose-gc bench/orchestrator-info.ts [--nodes 1000] [--periods 4] [--concurrency 32]");
  process.exit(0);
}
const N = Number(values.nodes);
const PERIODS = Math.max(2, Number(values.periods));
const CONCURRENCY = Number(values.concurrency);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** What a GPU orchestrator with two AI models answers (about the size of a real answer). */
const INFO: MessageInput<"OrchestratorInfo"> = {
  transcoder: "https://10.0.0.1:8935",
  priceInfo: { pricePerUnit: 101, pixelsPerUnit: 100 },
  address: Buffer.alloc(20, 7),
  capabilities: {
    bitstring: ["201343487"],
    capacities: { 0: 10, 1: 10, 27: 1, 33: 1 },
    version: "0.9.1",
    constraints: {
      minVersion: "",
      PerCapability: {
        27: { models: { "ByteDance/SDXL-Lightning": { warm: true, capacity: 1, runnerVersion: "0.14.0" } } },
        33: { models: { "meta-llama/Meta-Llama-3.1-8B-Instruct": { warm: true, capacity: 1 } } },
      },
    },
  },
  authToken: { token: Buffer.alloc(32, 1), sessionId: "0123456789abcdef", expiration: 1_800_000_000 },
  hardware: [
    {
      gpuInfo: {
        "0": {
          id: "0",
          name: "NVIDIA GeForce RTX 3090",
          major: 8,
          minor: 6,
          memoryFree: 20e9,
          memoryTotal: 24e9,
        },
      },
    },
  ],
  capabilitiesPrices: [
    { pricePerUnit: 4768371, pixelsPerUnit: 1, capability: 27, constraint: "ByteDance/SDXL-Lightning" },
  ],
};

if (values.serve) await serve();
else await measure();

async function serve(): Promise<void> {
  let grpcRequests = 0;
  let jsonRequests = 0;
  const reply = frameMessage(encodeMessage("OrchestratorInfo", INFO));
  const json = JSON.stringify({
    ...(() => {
      const m = decodeMessage("OrchestratorInfo", encodeMessage("OrchestratorInfo", INFO));
      return {
        transcoder: m.transcoder,
        price_info: { pricePerUnit: 101, pixelsPerUnit: 100 },
        capabilities: { ...m.capabilities, bitstring: [201343487] },
        capabilities_prices: [
          { pricePerUnit: 4768371, pixelsPerUnit: 1, capability: 27, constraint: "ByteDance/SDXL-Lightning" },
        ],
        hardware: [
          {
            pipeline: "",
            model_id: "",
            gpu_info: {
              "0": {
                id: "0",
                name: "NVIDIA GeForce RTX 3090",
                major: 8,
                minor: 6,
                memory_free: 20e9,
                memory_total: 24e9,
              },
            },
          },
        ],
        auth_token: {
          token: Buffer.alloc(32, 1).toString("base64"),
          session_id: "0123456789abcdef",
          expiration: 1_800_000_000,
        },
      };
    })(),
  });
  const tls = selfSignedCertificate("127.0.0.1");
  const service = createSecureServer({ ...tls, allowHTTP1: false });
  service.on("stream", (stream) => {
    grpcRequests++;
    stream.on("data", () => {});
    stream.on("end", () => {
      stream.respond({ ":status": 200, "content-type": GRPC_CONTENT_TYPE }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      stream.end(reply);
    });
  });
  const plain: Server = createServer((_req, res) => {
    jsonRequests++;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(json);
  });
  plain.keepAliveTimeout = 120_000;
  const listen = (s: Server | ReturnType<typeof createSecureServer>) =>
    new Promise<number>((r) => s.listen(0, "127.0.0.1", () => r((s.address() as AddressInfo).port)));
  const grpcPort = await listen(service);
  const jsonPort = await listen(plain);
  process.send?.({ grpcPort, jsonPort });
  process.on("message", (m) => {
    if (m === "counts") process.send?.({ grpcRequests, jsonRequests });
    if (m === "exit") process.exit(0);
  });
}

/** Runs `read(i)` for every node with at most CONCURRENCY in flight. */
async function round(read: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) await read(next++);
    }),
  );
}

interface Figures {
  firstMs: number;
  firstCpuMs: number;
  steadyCpuMsPerRead: number;
  heapPerNodeKiB: number;
}

/** V8 heap plus memory outside it (TLS and HTTP/2 buffers live there). */
function held(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

async function periods(read: (i: number) => Promise<void>, release: () => void): Promise<Figures> {
  gc();
  const heap0 = held();
  let cpu = process.cpuUsage();
  const t0 = performance.now();
  await round(read);
  const firstMs = performance.now() - t0;
  const firstCpu = process.cpuUsage(cpu);
  cpu = process.cpuUsage();
  for (let p = 1; p < PERIODS; p++) await round(read);
  const steady = process.cpuUsage(cpu);
  gc();
  const heapHeld = held() - heap0;
  release();
  return {
    firstMs,
    firstCpuMs: (firstCpu.user + firstCpu.system) / 1000,
    steadyCpuMsPerRead: (steady.user + steady.system) / 1000 / (N * (PERIODS - 1)),
    heapPerNodeKiB: heapHeld / N / 1024,
  };
}

async function measure(): Promise<void> {
  if (!(globalThis as { gc?: unknown }).gc)
    throw new Error("run with node --expose-gc so heap figures mean something");
  const child = fork(new URL(import.meta.url).pathname, ["--serve"], { execArgv: [] });
  const ask = <T>(what?: string) =>
    new Promise<T>((resolve) => {
      child.once("message", (m) => resolve(m as T));
      if (what) child.send(what);
    });
  const { grpcPort, jsonPort } = await ask<{ grpcPort: number; jsonPort: number }>();

  // JSON over HTTP/1.1 keep-alive: one agent (one socket) per node, as one connection per node.
  const agents = Array.from({ length: N }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  let jsonPrices = 0;
  const json = await periods(
    (i) =>
      new Promise<void>((resolve, reject) => {
        http
          .get(
            { host: "127.0.0.1", port: jsonPort, path: "/getOrchestratorInfo", agent: agents[i] },
            (res) => {
              const chunks: Buffer[] = [];
              res.on("data", (c: Buffer) => chunks.push(c));
              res.on("end", () => {
                const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
                  price_info?: { pricePerUnit: number };
                };
                if (body.price_info) jsonPrices++;
                resolve();
              });
            },
          )
          .on("error", reject);
      }),
    () => {
      for (const a of agents) a.destroy();
    },
  );

  const pins = new CertificatePins();
  const identity = ephemeralIdentity();
  const connections = Array.from(
    { length: N },
    (_, i) => new NodeConnection(`https://127.0.0.1:${grpcPort}`, pins, `node-${i}`),
  );
  let grpcPrices = 0;
  const grpc = await periods(
    async (i) => {
      const info = await readOrchestratorInfo(connections[i]!, identity, { timeoutMs: 30_000 });
      if (info.priceInfo) grpcPrices++;
    },
    () => {
      for (const c of connections) c.close();
    },
  );
  // The mapping alone, to show what of the cost is protobuf vs transport.
  const bytes = encodeMessage("OrchestratorInfo", INFO);
  const cpu = process.cpuUsage();
  for (let i = 0; i < 20_000; i++) orchestratorInfoOf(decodeMessage("OrchestratorInfo", bytes));
  const spent = process.cpuUsage(cpu);
  const decodeUs = (spent.user + spent.system) / 20_000;

  const { grpcRequests, jsonRequests } = await ask<{ grpcRequests: number; jsonRequests: number }>("counts");
  child.send("exit");
  const reads = N * PERIODS;
  console.log(`nodes: ${N}, periods: ${PERIODS}, concurrency ${CONCURRENCY}`);
  console.log(
    `requests per node per period: gRPC ${(grpcRequests / reads).toFixed(2)}, JSON ${(jsonRequests / reads).toFixed(2)} (prices read: ${grpcPrices}/${reads} gRPC, ${jsonPrices}/${reads} JSON)`,
  );
  const row = (name: string, f: Figures) =>
    console.log(
      `${name.padEnd(5)} first period ${(f.firstMs / 1000).toFixed(2)} s wall, ${(f.firstCpuMs / N).toFixed(3)} ms CPU per node (connect + read); steady ${f.steadyCpuMsPerRead.toFixed(3)} ms CPU per read; memory ${f.heapPerNodeKiB.toFixed(1)} KiB per node held (heap + external)`,
    );
  row("gRPC", grpc);
  row("JSON", json);
  console.log(
    `ratio gRPC/JSON: steady CPU per read ${(grpc.steadyCpuMsPerRead / json.steadyCpuMsPerRead).toFixed(2)}, first period CPU ${(grpc.firstCpuMs / json.firstCpuMs).toFixed(2)}, memory per node ${(grpc.heapPerNodeKiB / json.heapPerNodeKiB).toFixed(2)}`,
  );
  console.log(`protobuf decode + mapping alone: ${decodeUs.toFixed(1)} us per answer`);
  console.log(
    `at a 30 s period and ${N} orchestrators: ${((grpc.steadyCpuMsPerRead * N) / 30 / 10).toFixed(2)} % of a core for GetOrchestrator (JSON was ${((json.steadyCpuMsPerRead * N) / 30 / 10).toFixed(2)} %)`,
  );
}
