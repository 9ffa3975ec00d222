// How fast and how cheaply a Gateway finds its orchestrators, measured in one run on this machine:
//   (a) pool:  a matching Orchestrator becomes Ready -> the Gateway's status.orchestrators names it
//              (the controller) -> the running (simulated) gateway node's /status OrchestratorPool
//              has its address (the API's hook, asked by the node). The node asks its hook at most
//              once per refresh interval, set short here (--refresh-ms) and printed beside the
//              figures; the real node's interval is 1 minute, the floor a real gateway adds.
//   (b) hooks: the API's discovery endpoint under G gateways each polling once per period (default
//              1,000 gateways, once a minute: 16.7 requests/s, each a new connection, open loop):
//              CPU per request of the serving process and p50/p99 latency, as ratios to a bare
//              fastify route returning the same JSON, in interleaved rounds.
// Starts its own local control plane (pods on a loopback range of their own, so a control plane
// running beside it cannot take their IPs), the controller as the CLI runs it, the webhook API
// and node simulators in this process; the load of (b) comes from a child process.
//
//   node bench/gateway-discovery.ts [--orchestrators 5] [--refresh-ms 1000]
//                                   [--gateways 1000] [--period 60] [--seconds 30] [--rounds 2]
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";
import Fastify from "fastify";
import { type RunningApiServer, startApiServer } from "../src/api/server.ts";
import { runKubectl, startControlPlane } from "../src/dev/cluster/control-plane.ts";
import { applyFleet } from "../src/dev/cluster/fleet.ts";
import { defaultFleet } from "../src/dev/cluster/nodes.ts";
import { freePorts } from "../src/dev/cluster/ports.ts";
import { waitFor } from "../src/dev/cluster/process.ts";
import { startCommand, waitHealthy } from "../src/dev/services.ts";
import { startSimulatorFleet } from "../src/dev/simulators.ts";
import { applyStatus, KubeClient, type KubeObject, loadKubeConfig, Pods } from "../src/kube/index.ts";
import { nodeHookPath } from "../src/schema/node-hooks.ts";
import { Gateways, Orchestrators } from "../src/schema/resources.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const log = (l: string) => process.stderr.write(`${l}\n`);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
const sortedOf = (xs: number[]) => [...xs].sort((a, b) => a - b);
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const ratio = (a: number, b: number) => (b ? (a / b).toFixed(2) : "n/a");

// ---- (b)'s load generator (child process) ----

interface LoadSpec {
  host: string;
  port: number;
  /** Request paths (with their tokens), asked round-robin: each gateway once per period. */
  paths: string[];
  perSecond: number;
  seconds: number;
}

interface LoadResult {
  latencies: number[];
  failures: number;
}

/** One request on a new connection (a gateway polling once a minute keeps none open). */
function once(host: string, port: number, requestPath: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, noDelay: true });
    let head = "";
    socket.on("connect", () =>
      socket.write(`GET ${requestPath} HTTP/1.1\r\nhost: ${host}:${port}\r\nconnection: close\r\n\r\n`),
    );
    socket.on("data", (c: Buffer) => {
      head += c.toString("latin1");
    });
    socket.on("error", () => resolve(0));
    socket.on("close", () => resolve(Number(head.slice(9, 12)) || 0));
  });
}

async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const latencies: number[] = [];
  let failures = 0;
  const total = Math.round(spec.perSecond * spec.seconds);
  const t0 = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let k = 0; k < total; k++) {
    const due = t0 + (k * 1000) / spec.perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const started = performance.now();
    inFlight.push(
      once(spec.host, spec.port, spec.paths[k % spec.paths.length]!).then((status) => {
        if (status !== 200) failures++;
        latencies.push(performance.now() - started);
      }),
    );
  }
  await Promise.all(inFlight);
  return { latencies, failures };
}

function loadInChild(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--load"], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`load generator exited with ${code}`));
      else resolve(JSON.parse(out.trim().split("\n").pop()!) as LoadResult);
    });
    child.stdin.end(JSON.stringify(spec));
  });
}

// ---- (a): Ready -> status -> the node's pool ----

type Obj = KubeObject & {
  status?: {
    conditions?: { type: string; status: string }[];
    orchestrators?: { name: string; address: string }[];
    podIP?: string;
  };
};

interface PoolTrial {
  name: string;
  readyToStatusMs: number;
  readyToPoolMs: number;
}

async function measurePool(
  client: KubeClient,
  kubectl: (args: string[], input?: string) => Promise<unknown>,
  namespace: string,
  count: number,
  refreshMs: number,
): Promise<PoolTrial[]> {
  const apply = (body: Record<string, unknown>) =>
    kubectl(["apply", "--server-side", "--field-manager=bench", "-f", "-"], JSON.stringify(body));
  const orchestrator = (name: string) =>
    apply({
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Orchestrator",
      metadata: { name, namespace, labels: { pool: "bench" } },
      spec: { pricePerUnit: "100", pixelsPerUnit: 1 },
    });
  const ready = (o: Obj | undefined) =>
    o?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
  const get = (t: typeof Orchestrators, name: string) =>
    client.get<Obj>(t, namespace, name).catch(() => undefined);
  const nodePool = async (ip: string) => {
    const res = await fetch(`http://${ip}:5935/status`, { signal: AbortSignal.timeout(2_000) });
    return ((await res.json()) as { OrchestratorPool?: string[] }).OrchestratorPool ?? [];
  };

  await orchestrator("first");
  await apply({
    apiVersion: "livepeer.org/v1alpha1",
    kind: "Gateway",
    metadata: { name: "gw", namespace },
    spec: { orchestrators: { selector: { matchLabels: { pool: "bench" } } }, maxPricePerUnit: "1000" },
  });
  let gatewayIP = "";
  await waitFor(
    "the Gateway Ready with its node knowing the first orchestrator",
    async () => {
      if (!ready(await get(Gateways, "gw"))) return false;
      gatewayIP = (await client.get<Obj>(Pods, namespace, "gw-0")).status?.podIP ?? "";
      return gatewayIP !== "" && (await nodePool(gatewayIP).catch(() => [])).length === 1;
    },
    180_000,
  );

  // A gateway carrying streams reads its pool all the time, so it refreshes on the interval's own
  // cadence (an idle node refreshes only when read after the interval): read it every 100 ms.
  let pool: string[] = [];
  let reading = true;
  const reader = (async () => {
    while (reading) {
      pool = await nodePool(gatewayIP).catch(() => pool);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const trials: PoolTrial[] = [];
  for (let i = 1; i <= count; i++) {
    const name = `o${i}`;
    // Start at a random point of the node's refresh cycle, as a real Orchestrator does: back to
    // back, each trial would begin just after the last refresh and measure the worst case.
    await new Promise((r) => setTimeout(r, Math.random() * refreshMs));
    await orchestrator(name);
    let readyAt: number | undefined;
    let statusAt: number | undefined;
    let poolAt: number | undefined;
    let address = "";
    await waitFor(
      `${name} Ready, in the Gateway's status and in its node's pool`,
      async () => {
        const now = () => performance.now();
        if (readyAt === undefined && ready(await get(Orchestrators, name))) readyAt = now();
        if (statusAt === undefined) {
          const given = (await get(Gateways, "gw"))?.status?.orchestrators?.find((o) => o.name === name);
          if (given) [statusAt, address] = [now(), given.address];
          // Given only once Ready: a Ready seen between the two reads happened by now.
          readyAt ??= statusAt;
        }
        if (poolAt === undefined && address && pool.some((u) => u.includes(address))) poolAt = now();
        if (poolAt === undefined) await new Promise((r) => setTimeout(r, 100));
        return readyAt !== undefined && poolAt !== undefined;
      },
      180_000,
    );
    trials.push({ name, readyToStatusMs: statusAt! - readyAt!, readyToPoolMs: poolAt! - readyAt! });
    log(
      `[bench] ${name}: Ready -> status ${s(statusAt! - readyAt!)}, -> node's pool ${s(poolAt! - readyAt!)}`,
    );
  }
  reading = false;
  await reader;
  return trials;
}

// ---- (b): the discovery endpoint vs a bare route ----

interface HookRound {
  label: string;
  requests: number;
  failures: number;
  /** This process's CPU over the round, less what it spends idle (informers, timers) in as long. */
  cpuPerRequestMs: number;
  /** Including the idle part: what the process costs per request at this rate. */
  rawCpuPerRequestMs: number;
  latencies: number[];
  p50Ms: number;
  p99Ms: number;
}

async function retried<T>(write: () => Promise<T>, attempts = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await write();
    } catch (err) {
      if (i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 200 * i));
    }
  }
}

async function seedGateways(client: KubeClient, namespace: string, count: number, addresses: number) {
  const paths: string[] = [];
  const orchestrators = Array.from({ length: addresses }, (_, i) => ({
    name: `orch-${i}`,
    address: `orch-${i}-0.orch-${i}-pods.${namespace}.svc.cluster.local:8935`,
    pricePerUnit: "100",
    pixelsPerUnit: 1,
    priceCompatible: true,
  }));
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const name = `gw-${next++}`;
        const token = randomBytes(24).toString("base64url");
        const body = {
          apiVersion: "livepeer.org/v1alpha1",
          kind: "Gateway",
          metadata: { name, namespace },
          spec: { orchestrators: { selector: { matchLabels: { pool: "bench" } } } },
        };
        // A busy machine's API server may drop a stream now and then: apply is safe to repeat.
        await retried(() => client.apply(Gateways, body, { fieldManager: "bench", force: true }));
        await retried(() =>
          applyStatus(client, Gateways, body, {
            hookTokenDigest: createHash("sha256").update(token).digest("hex"),
            orchestrators,
            orchestratorCount: orchestrators.length,
          }),
        );
        paths.push(`${nodeHookPath(namespace, name, "orchestrators")}?token=${encodeURIComponent(token)}`);
      }
    }),
  );
  return { paths, answer: orchestrators.map((o) => ({ address: `https://${o.address}` })) };
}

async function bareServer(answer: unknown): Promise<{ port: number; close(): Promise<void> }> {
  const app = Fastify();
  app.get("/node-hooks/v1/gateways/:namespace/:name/orchestrators", async () => answer);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  return { port: typeof address === "object" && address ? address.port : 0, close: () => app.close() };
}

/** This process's CPU (ms) per second of wall time with no load: the servers' idle work. */
async function idleCpuPerSecond(seconds: number): Promise<number> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / 1000 / ((performance.now() - t0) / 1000);
}

async function hookRound(label: string, spec: LoadSpec, idlePerSecond: number): Promise<HookRound> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await loadInChild(spec);
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const idleMs = idlePerSecond * ((performance.now() - t0) / 1000);
  const n = Math.max(1, r.latencies.length);
  const sorted = sortedOf(r.latencies);
  return {
    label,
    requests: r.latencies.length,
    failures: r.failures,
    cpuPerRequestMs: Math.max(0, cpuMs - idleMs) / n,
    rawCpuPerRequestMs: cpuMs / n,
    latencies: r.latencies,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
  };
}

function pooledHooks(rounds: HookRound[]) {
  const requests = rounds.reduce((n, r) => n + r.requests, 0);
  return {
    cpuPerRequestMs: rounds.reduce((ms, r) => ms + r.cpuPerRequestMs * r.requests, 0) / requests,
    rawCpuPerRequestMs: rounds.reduce((ms, r) => ms + r.rawCpuPerRequestMs * r.requests, 0) / requests,
    // Percentiles over every request of the rounds.
    p50Ms: percentile(sortedOf(rounds.flatMap((r) => r.latencies)), 50),
    p99Ms: percentile(sortedOf(rounds.flatMap((r) => r.latencies)), 99),
  };
}

const roundLine = (r: HookRound) =>
  `  ${r.label.padEnd(26)} CPU ${r.cpuPerRequestMs.toFixed(3).padStart(6)} ms/request (${r.rawCpuPerRequestMs.toFixed(3)} with idle)  p50 ${r.p50Ms.toFixed(2).padStart(6)} ms  p99 ${r.p99Ms.toFixed(2).padStart(6)} ms  (${r.requests} requests, ${r.failures} failed)`;

// ---- main ----

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      load: { type: "boolean" },
      orchestrators: { type: "string", default: "5" },
      "refresh-ms": { type: "string", default: "1000" },
      gateways: { type: "string", default: "1000" },
      period: { type: "string", default: "60" },
      seconds: { type: "string", default: "30" },
      rounds: { type: "string", default: "2" },
      addresses: { type: "string", default: "3" },
    },
  });
  if (values.load) {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    const result = await runLoad(JSON.parse(Buffer.concat(chunks).toString()) as LoadSpec);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const trialsWanted = Number(values.orchestrators);
  const refreshMs = Number(values["refresh-ms"]);
  const gateways = Number(values.gateways);
  const period = Number(values.period);
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);

  // A pod range of its own: another local control plane's simulators may hold 127.1.x.y.
  const podCidr = `127.${200 + (process.pid % 50)}.0.0/16`;
  const cp = await startControlPlane({ progress: log, podCidr });
  const kubectl = (args: string[], input?: string) =>
    runKubectl(cp.binaries.kubectl, cp.kubeconfig, args, input);
  const { kc } = loadKubeConfig({ kubeconfig: cp.kubeconfig });
  const client = new KubeClient(kc);
  const simDir = mkdtempSync(path.join(tmpdir(), "bench-gateway-sims-"));
  const logDir = mkdtempSync(path.join(tmpdir(), "bench-gateway-logs-"));
  const stops: (() => Promise<void>)[] = [];
  try {
    const ckc = new KubeConfig();
    ckc.loadFromFile(cp.kubeconfig);
    await applyFleet(
      ckc,
      defaultFleet.filter((n) => n.name === "cpu-only"),
    );
    const crdDir = path.join(here, "../deploy/crds");
    const crds = readdirSync(crdDir).filter((f) => f.endsWith(".yaml"));
    await kubectl(["apply", "--server-side", ...crds.flatMap((f) => ["-f", path.join(crdDir, f)])]);
    await kubectl([
      "wait",
      "--for=condition=Established",
      "--timeout=60s",
      ...crds.map((f) => `crd/${f.slice(0, -5)}`),
    ]);
    await kubectl(["create", "namespace", "bench-pool"]);
    await kubectl(["create", "namespace", "bench-hooks"]);
    await kubectl(["create", "namespace", "livepeer-system"]);

    const [apiPort, metricsPort] = await freePorts(2);
    const api: RunningApiServer = await startApiServer({
      port: apiPort!,
      namespace: "livepeer-system",
      kubeconfig: cp.kubeconfig,
      jwtSecret: randomBytes(32),
      logLevel: "warn",
      logStream: { write: () => undefined },
    });
    stops.push(() => api.close());

    // (a) with the controller as the CLI runs it and simulators asking the hook every refreshMs.
    const sims = startSimulatorFleet(ckc, simDir, () => undefined, {
      namespace: "bench-pool",
      timings: { orchWebhookRefreshMs: refreshMs },
    });
    const controller = startCommand(
      "controller",
      [
        "controller",
        `--kubeconfig=${cp.kubeconfig}`,
        `--metrics-addr=127.0.0.1:${metricsPort}`,
        "--leader-elect=false",
        `--node-hooks-url=http://127.0.0.1:${apiPort}`,
        "--orchestrator-addresses=pod-ip",
      ],
      logDir,
      () => undefined,
    );
    let controllerStopped = false;
    stops.push(async () => {
      if (controllerStopped) return;
      await controller.stop();
      await sims.stop();
    });
    await waitHealthy(controller, `http://127.0.0.1:${metricsPort}/readyz`);
    log(
      `[bench] (a) ${trialsWanted} Orchestrators, the simulated node asking its hook every ${refreshMs} ms`,
    );
    const trials = await measurePool(client, kubectl, "bench-pool", trialsWanted, refreshMs);
    // (b) without the controller: it would reconcile the seeded Gateways.
    await controller.stop();
    await sims.stop();
    controllerStopped = true;

    log(`[bench] (b) seeding ${gateways} Gateways with tokens and ${values.addresses} orchestrators each`);
    const seeded = await seedGateways(client, "bench-hooks", gateways, Number(values.addresses));
    await waitFor(
      "the API's gateway cache to hold every seeded Gateway",
      async () => (await fetch(`http://127.0.0.1:${apiPort}${seeded.paths[gateways - 1]}`)).status === 200,
      60_000,
    );
    const bare = await bareServer(seeded.answer);
    stops.push(() => bare.close());
    const perSecond = gateways / period;
    const spec = (port: number, secs: number): LoadSpec => ({
      host: "127.0.0.1",
      port,
      paths: seeded.paths,
      perSecond,
      seconds: secs,
    });
    log("[bench] warming up");
    await hookRound("warm-up", spec(bare.port, 5), 0);
    await hookRound("warm-up", spec(apiPort!, 5), 0);
    log("[bench] idle CPU of this process (both servers, the API's informers)");
    const idle = await idleCpuPerSecond(Math.min(seconds, 20));
    const bareRounds: HookRound[] = [];
    const apiRounds: HookRound[] = [];
    for (let i = 1; i <= rounds; i++) {
      bareRounds.push(await hookRound(`bare fastify, round ${i}`, spec(bare.port, seconds), idle));
      apiRounds.push(await hookRound(`discovery hook, round ${i}`, spec(apiPort!, seconds), idle));
    }
    const b = pooledHooks(bareRounds);
    const a = pooledHooks(apiRounds);

    const status = sortedOf(trials.map((t) => t.readyToStatusMs));
    const pool = sortedOf(trials.map((t) => t.readyToPoolMs));
    const out = [
      "",
      `(a) Orchestrator Ready -> the running gateway's /status OrchestratorPool (${trials.length} Orchestrators, one at a time):`,
      `  the node's refresh interval here: ${s(refreshMs)} (the real node's: 60 s)`,
      "  (each read every 0.1-0.2 s, the node's /status too, as a gateway carrying streams reads its pool: figures below that are within one read)",
      `  Ready -> Gateway status.orchestrators (controller):  p50 ${s(percentile(status, 50))}  max ${s(status.at(-1)!)}`,
      `  Ready -> the node's OrchestratorPool (end to end):    p50 ${s(percentile(pool, 50))}  max ${s(pool.at(-1)!)}`,
      refreshMs < 60_000
        ? `  with the real node's 1-minute refresh instead: Ready -> status plus 0-60 s (about ${s(percentile(status, 50) + 30_000)} on average, ${s(status.at(-1)! + 60_000)} at worst)`
        : "  (the real node's interval: this is what a real gateway sees)",
      "",
      `(b) the discovery hook, ${gateways} gateways each polling once per ${period} s (${perSecond.toFixed(1)} requests/s, a new connection each, ${rounds} interleaved rounds of ${seconds} s):`,
      `  idle: ${idle.toFixed(2)} ms CPU per second (subtracted below; "with idle" keeps it)`,
      ...bareRounds.map(roundLine),
      ...apiRounds.map(roundLine),
      `  CPU per request, hook/bare: ${a.cpuPerRequestMs.toFixed(3)} / ${b.cpuPerRequestMs.toFixed(3)} ms = ${ratio(a.cpuPerRequestMs, b.cpuPerRequestMs)}` +
        ` (with idle: ${a.rawCpuPerRequestMs.toFixed(3)} / ${b.rawCpuPerRequestMs.toFixed(3)} ms = ${ratio(a.rawCpuPerRequestMs, b.rawCpuPerRequestMs)}; the hook at this rate: ${((a.cpuPerRequestMs * perSecond) / 10).toFixed(2)} % of a core)`,
      `  latency over all rounds, hook/bare: p99 ${a.p99Ms.toFixed(2)} / ${b.p99Ms.toFixed(2)} ms = ${ratio(a.p99Ms, b.p99Ms)}, p50 ${a.p50Ms.toFixed(2)} / ${b.p50Ms.toFixed(2)} ms = ${ratio(a.p50Ms, b.p50Ms)}`,
      "",
    ];
    process.stdout.write(out.join("\n"));
  } finally {
    for (const stop of stops.reverse())
      await stop().catch((e: Error) => log(`[bench] stopping: ${e.message}`));
    await kc.close();
    await cp.stop();
    rmSync(simDir, { recursive: true, force: true });
    rmSync(logDir, { recursive: true, force: true });
  }
}

await main();
