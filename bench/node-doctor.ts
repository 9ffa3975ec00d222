// What the node doctor costs the controller per node pod, measured in one run: N pods, each with
// its own resource, looked at once (endpoints + one log read) with the production limiter. Two
// plain-HTTP stand-ins on loopback play the API server (the pod log endpoint: 20 timestamped
// lines per read, one of them a catalog condition) and the node (/status and /metrics on its CLI
// port; GetOrchestrator over gRPC/TLS on its service port, one kept connection per pod, as
// bench/orchestrator-info.ts measures alone). Prints the time for a full
// round, CPU time and requests per look, and heap per tracked pod. Not a test.
//
//   node --expose-gc bench/node-doctor.ts [--pods 5000] [--concurrency 32]
import { fork } from "node:child_process";
import { createServer, type Server } from "node:http";
import { createSecureServer } from "node:http2";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { KubePodLogs, NodeDoctor, type NodeTarget } from "../src/controller/doctor/index.ts";
import { KubeClient, PooledKubeConfig } from "../src/kube/index.ts";
import { frameMessage, GRPC_CONTENT_TYPE } from "../src/node/wire/grpc.ts";
import { encodeMessage } from "../src/node/wire/messages.ts";
import { selfSignedCertificate } from "../src/node/wire/self-signed-certificate.ts";

const { values } = parseArgs({
  options: {
    pods: { type: "string", default: "5000" },
    concurrency: { type: "string", default: "32" },
    serve: { type: "boolean", default: false },
  },
});
const N = Number(values.pods);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
if (!values.serve && !(globalThis as { gc?: unknown }).gc) {
  throw new Error("run with node --expose-gc so heap figures mean something");
}

// The stand-ins run in a child process, so the CPU measured here is the controller's alone.
if (values.serve) {
  await serve();
} else {
  await measure();
}

async function serve(): Promise<void> {
  let apiRequests = 0;
  let nodeRequests = 0;
  const listen = (s: Server) =>
    new Promise<number>((r) => s.listen(0, "127.0.0.1", () => r((s.address() as AddressInfo).port)));

  const api = createServer((req, res) => {
    apiRequests++;
    const now = Date.now();
    const lines = Array.from({ length: 20 }, (_, i) => {
      const at = new Date(now - (20 - i) * 10).toISOString();
      const text =
        i === 10
          ? "E1121 10:00:01.000000       1 orchestrator.go:190] Error receiving ticket: TicketParams expired"
          : `I1121 10:00:01.000000       1 orchestrator.go:700] manifestID=m${i} seqNo=${i} Transcoding of segment took=12ms`;
      return `${at} ${text}\n`;
    });
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(req.url?.includes("/log") ? lines.join("") : "");
  });
  const metricsText = [
    "# TYPE livepeer_current_sessions_total gauge",
    "livepeer_current_sessions_total 1",
    "# TYPE livepeer_max_sessions_total gauge",
    "livepeer_max_sessions_total 10",
    "",
  ].join("\n");
  const node = createServer((req, res) => {
    nodeRequests++;
    const json = (body: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.url === "/status") return json({ SessionLimit: 10, PricePerUnit: "1000", Simulated: true });
    if (req.url === "/metrics") {
      res.writeHead(200, { "content-type": "text/plain" });
      return res.end(metricsText);
    }
    res.writeHead(404);
    res.end();
  });
  const info = frameMessage(
    encodeMessage("OrchestratorInfo", {
      transcoder: "https://o:8935",
      priceInfo: { pricePerUnit: 1000, pixelsPerUnit: 1 },
      capabilities: { bitstring: ["1"], version: "0.9.1+simulated" },
      hardware: [{ gpuInfo: { "0": { id: "0", name: "T4", memoryTotal: 100, memoryFree: 60 } } }],
    }),
  );
  const service = createSecureServer(selfSignedCertificate("127.0.0.1"));
  service.on("stream", (stream) => {
    nodeRequests++;
    stream.on("data", () => {});
    stream.on("end", () => {
      stream.respond({ ":status": 200, "content-type": GRPC_CONTENT_TYPE }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      stream.end(info);
    });
  });
  const apiPort = await listen(api);
  const nodePort = await listen(node);
  const servicePort = await new Promise<number>((r) =>
    service.listen(0, "127.0.0.1", () => r((service.address() as AddressInfo).port)),
  );
  process.send?.({ apiPort, nodePort, servicePort });
  process.on("message", (m) => {
    if (m === "counts") process.send?.({ apiRequests, nodeRequests });
    if (m === "exit") process.exit(0);
  });
}

async function measure(): Promise<void> {
  const child = fork(new URL(import.meta.url).pathname, ["--serve"], { execArgv: [] });
  const ask = <T>(what?: string) =>
    new Promise<T>((resolve) => {
      child.once("message", (m) => resolve(m as T));
      if (what) child.send(what);
    });
  const { apiPort, nodePort, servicePort } = await ask<{
    apiPort: number;
    nodePort: number;
    servicePort: number;
  }>();
  const kc = new PooledKubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "bench", server: `http://127.0.0.1:${apiPort}`, skipTLSVerify: true }],
    users: [{ name: "bench", token: "t" }],
    contexts: [{ name: "bench", cluster: "bench", user: "bench" }],
    currentContext: "bench",
  });
  const woken = new Set<string>();
  const doctor = new NodeDoctor({
    logs: new KubePodLogs(new KubeClient(kc)),
    wake: (key) => woken.add(key),
    concurrency: Number(values.concurrency),
    tickMs: 50,
  });

  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const target: NodeTarget = {
      pod: `o-${i}-0`,
      uid: `uid-${i}`,
      ip: "127.0.0.1",
      cliPort: nodePort,
      servicePort,
      role: "orchestrator",
      ready: true,
      hasLog: true,
      restartCount: 0,
      startedAt: new Date(0),
      aiExpected: false,
    };
    doctor.observe(`bench/o-${i}`, [target], { namespace: "bench" });
  }
  while (woken.size < N) await new Promise((r) => setTimeout(r, 20));
  const roundMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  gc();
  const heapAfter = process.memoryUsage().heapUsed;
  const s = doctor.stats();
  doctor.stop();
  gc();
  // What the doctor held: the heap with its state, minus the heap once it let go of it.
  const heapHeld = heapAfter - process.memoryUsage().heapUsed;
  const { apiRequests, nodeRequests } = await ask<{ apiRequests: number; nodeRequests: number }>("counts");
  child.send("exit");

  const perLookCpuMs = (cpu.user + cpu.system) / 1000 / s.looks;
  console.log(`pods looked at:            ${s.looks} (concurrency ${values.concurrency})`);
  console.log(
    `full round:                ${(roundMs / 1000).toFixed(2)} s (${((s.looks / roundMs) * 1000).toFixed(0)} looks/s)`,
  );
  console.log(
    `controller CPU per look:   ${perLookCpuMs.toFixed(2)} ms (endpoints + log read + classification)`,
  );
  console.log(
    `requests per look:         ${(nodeRequests / s.looks).toFixed(1)} to the node, ${(apiRequests / s.looks).toFixed(1)} to the API server`,
  );
  console.log(
    `heap per tracked pod:      ${(heapHeld / N / 1024).toFixed(1)} KiB held by the doctor (after GC, one finding each; ${((heapAfter - heapBefore) / N / 1024).toFixed(1)} KiB with the HTTP client's pools)`,
  );
  console.log(
    `at a 30 s period:          ${(N / 30).toFixed(0)} log reads/s at the API server, ${((perLookCpuMs * N) / 30 / 10).toFixed(1)} % of a core`,
  );
}
