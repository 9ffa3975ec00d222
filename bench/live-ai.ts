// Live AI (spec.ai.live), measured in one run on this machine. Figures, not goals:
//   (a) session: an Orchestrator with one live app applied -> the node offers the app
//       (GetOrchestrator's live capacity, what the SDK selects by) -> LiveAIReady -> the official
//       Python SDK's start_lv2v accepted by the node, with the runner's pipeline load ("warm-up")
//       simulated at each --warm-ups value (the live runner simulator binds its port only then, as
//       the real runner does). Its own local control plane, the controller as the CLI runs it, node
//       and live runner simulators in this process. The SDK's own run (Python start, selection,
//       POST) is printed beside it: it is in the figure, as a client's first session pays it.
//   (b) cost: what the controller spends per live runner per doctor/reconcile period at --runners
//       runners (--per-orchestrator each): the runner doctor's look at each runner (/health,
//       /hardware/stats, a log read, with the production limiter), the node doctor's GET
//       /discovery of each orchestrator, and the reconcile's plan and status.ai.live, in this
//       process (CPU time, heap held after GC); stand-ins for the runners, the nodes and the API
//       server's pod log endpoint run in a child process. The baseline: a bare keep-alive GET
//       /health per runner from the same process.
//
//   node --expose-gc bench/live-ai.ts [--part session|cost|both] [--warm-ups 0,30] [--trials 1]
//                                     [--runners 1000] [--per-orchestrator 10]
import { fork } from "node:child_process";
import { readdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Agent, request } from "undici";
import { runnerTargets } from "../src/controller/ai/targets.ts";
import { KubePodLogs, NodeDoctor, type NodeReading } from "../src/controller/doctor/index.ts";
import { planLiveAi } from "../src/controller/live-ai/plan.ts";
import { liveAiReady, liveStatusOf } from "../src/controller/live-ai/status.ts";
import type { PodFacts } from "../src/controller/node-status/facts.ts";
import { KubeClient, PooledKubeConfig } from "../src/kube/index.ts";
import { readLiveDiscovery } from "../src/node/client/index.ts";
import { selfSignedCertificate } from "../src/node/wire/self-signed-certificate.ts";
import { OrchestratorSchema, type StoredOrchestrator } from "../src/schema/orchestrator.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const log = (l: string) => process.stderr.write(`${l}\n`);
const { values } = parseArgs({
  options: {
    part: { type: "string", default: "both" },
    "warm-ups": { type: "string", default: "0,30" },
    trials: { type: "string", default: "1" },
    runners: { type: "string", default: "1000" },
    "per-orchestrator": { type: "string", default: "10" },
    concurrency: { type: "string", default: "32" },
    serve: { type: "boolean", default: false },
  },
});
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

if (values.serve) await serve();
else await main();

async function main(): Promise<void> {
  const part = values.part;
  if (part !== "session" && part !== "cost" && part !== "both")
    throw new Error(`--part ${part}: give session, cost or both`);
  if ((part === "cost" || part === "both") && !(globalThis as { gc?: unknown }).gc)
    throw new Error("run with node --expose-gc so heap figures mean something");
  const out: string[] = [];
  if (part !== "cost") out.push(...(await measureSessions()));
  if (part !== "session") out.push(...(await measureCost()));
  process.stdout.write(`${out.join("\n")}\n`);
}

// ---- (a) apply -> first session accepted ----

async function measureSessions(): Promise<string[]> {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { KubeConfig } = await import("@kubernetes/client-node");
  const { runKubectl, startControlPlane } = await import("../src/dev/cluster/control-plane.ts");
  const { applyFleet } = await import("../src/dev/cluster/fleet.ts");
  const { defaultFleet } = await import("../src/dev/cluster/nodes.ts");
  const { freePorts } = await import("../src/dev/cluster/ports.ts");
  const { waitFor } = await import("../src/dev/cluster/process.ts");
  const { liveRunnerSimulatorFactory } = await import("../src/dev/live-runner-simulators.ts");
  const { ensureGatewaySdk, GATEWAY_DRIVER } = await import("../src/dev/python/environment.ts");
  const { startCommand, waitHealthy } = await import("../src/dev/services.ts");
  const { startSimulatorFleet } = await import("../src/dev/simulators.ts");
  const { loadKubeConfig, Pods } = await import("../src/kube/index.ts");
  const { Orchestrators } = await import("../src/schema/resources.ts");
  const { getOrchestrator } = await import("../src/simulator/testing/wire.ts");

  const warmUps = values["warm-ups"].split(",").map(Number);
  const trials = Number(values.trials);
  const sdk = await ensureGatewaySdk(log);
  // A pod range of its own: another local control plane's simulators may hold 127.1.x.y.
  const podCidr = `127.${200 + (process.pid % 50)}.0.0/16`;
  const cp = await startControlPlane({ progress: log, podCidr });
  const kubectl = (args: string[], input?: string) =>
    runKubectl(cp.binaries.kubectl, cp.kubeconfig, args, input);
  const { kc } = loadKubeConfig({ kubeconfig: cp.kubeconfig });
  const client = new KubeClient(kc);
  const simDir = mkdtempSync(path.join(tmpdir(), "bench-live-sims-"));
  const logDir = mkdtempSync(path.join(tmpdir(), "bench-live-logs-"));
  const stops: (() => Promise<void>)[] = [];
  const rows: string[] = [];
  try {
    const ckc = new KubeConfig();
    ckc.loadFromFile(cp.kubeconfig);
    await applyFleet(
      ckc,
      defaultFleet.filter((n) => n.name === "cpu-only" || n.name === "gpu-a100"),
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
    for (const w of warmUps) {
      const namespace = `bench-live-w${w}`;
      await kubectl(["create", "namespace", namespace]);
      const sims = startSimulatorFleet(ckc, simDir, () => undefined, {
        namespace,
        liveRunnerSimulator: liveRunnerSimulatorFactory({ warmUpSeconds: w }),
      });
      stops.push(() => sims.stop());
    }
    const [metricsPort] = await freePorts(1);
    const controller = startCommand(
      "controller",
      [
        "controller",
        `--kubeconfig=${cp.kubeconfig}`,
        `--metrics-addr=127.0.0.1:${metricsPort}`,
        "--leader-elect=false",
      ],
      logDir,
      () => undefined,
    );
    stops.push(() => controller.stop());
    await waitHealthy(controller, `http://127.0.0.1:${metricsPort}/readyz`);

    type Obj = StoredOrchestrator & { status?: { podIP?: string } };
    for (const w of warmUps) {
      const namespace = `bench-live-w${w}`;
      for (let t = 1; t <= trials; t++) {
        const name = `live${t}`;
        log(`[bench] (a) warm-up ${w} s, trial ${t}`);
        const body = {
          apiVersion: "livepeer.org/v1alpha1",
          kind: "Orchestrator",
          metadata: { name, namespace },
          spec: {
            // The controller's default image (0.8.x) has no live runners: the node would refuse
            // -liveRunnerConfig, and the controller says so.
            image: "livepeer/go-livepeer:0.9.1",
            ai: {
              only: true,
              live: {
                apps: [
                  {
                    id: "noop",
                    gpus: 1,
                    replicas: 1,
                    price: { usd: "0.50", unit: "hour" },
                    warmUpSeconds: Math.max(120, w * 4),
                  },
                ],
              },
            },
          },
        };
        const t0 = performance.now();
        await kubectl(["apply", "--server-side", "--field-manager=bench", "-f", "-"], JSON.stringify(body));
        let offeredAt = 0;
        let readyAt = 0;
        let ip = "";
        let serviceAddr = "";
        let last: Obj | undefined;
        const look = async () => {
          if (!readyAt) {
            const o = await client.get<Obj>(Orchestrators, namespace, name).catch(() => undefined);
            last = o;
            if (o?.status?.conditions?.some((c) => c.type === "LiveAIReady" && c.status === "True"))
              readyAt = performance.now();
            serviceAddr = o?.status?.serviceAddr ?? serviceAddr;
          }
          if (!offeredAt) {
            ip ||=
              (await client.get<Obj>(Pods, namespace, `${name}-0`).catch(() => undefined))?.status?.podIP ??
              "";
            const info = ip ? await getOrchestrator(`https://${ip}:8935`).catch(() => undefined) : undefined;
            const model = info?.capabilities?.constraints?.PerCapability?.[35]?.models?.noop;
            if ((info?.capabilities?.capacities?.[35] ?? 0) > 0 && model) offeredAt = performance.now();
          }
        };
        const timeoutMs = w * 1000 + Number(process.env.BENCH_LIVE_TIMEOUT_MS ?? 300_000);
        const state = () =>
          `offered ${offeredAt > 0}, ready ${readyAt > 0}, ip ${ip}, serviceAddr ${serviceAddr}\n${JSON.stringify(last?.status, null, 1)}`;
        await waitFor(
          `${namespace}/${name}: the node offering live-video-to-video/noop`,
          async () => {
            await look();
            return offeredAt > 0 && serviceAddr !== "";
          },
          timeoutMs,
          state,
        );
        // The SDK as a client starting its first session as soon as the node offers the app (a
        // client does not wait for the status); LiveAIReady is watched meanwhile.
        const sdkStart = performance.now();
        const session = sdk.run(
          GATEWAY_DRIVER,
          [
            "lv2v-start",
            ...["--orch-url", `https://${ip}:8935`, "--model-id", "noop"],
            ...["--resolve", `${serviceAddr.replace(/:\d+$/, "")}:${ip}`],
          ],
          { timeoutMs: 120_000 },
        );
        let sessionAt = 0;
        void session.then(() => {
          sessionAt = performance.now();
        });
        await waitFor(
          `${namespace}/${name}: LiveAIReady`,
          async () => {
            await look();
            return readyAt > 0;
          },
          timeoutMs,
          state,
        );
        const r = await session;
        sessionAt ||= performance.now();
        if (r.code !== 0) throw new Error(`start_lv2v failed: ${r.stdout}\n${r.stderr.slice(-2000)}`);
        rows.push(
          `  warm-up ${String(w).padStart(3)} s, trial ${t}: apply -> offered ${s(offeredAt - t0)}, -> LiveAIReady ${s(readyAt - t0)}, -> session accepted ${s(sessionAt - t0)} (the SDK's run ${s(sessionAt - sdkStart)}; offered less the warm-up ${s(offeredAt - t0 - w * 1000)})`,
        );
        await kubectl(["delete", "orchestrator", name, "-n", namespace, "--wait=true"]);
      }
    }
  } finally {
    for (const stop of stops.reverse())
      await stop().catch((e: Error) => log(`[bench] stopping: ${e.message}`));
    await kc.close();
    await cp.stop();
    rmSync(simDir, { recursive: true, force: true });
    rmSync(logDir, { recursive: true, force: true });
  }
  return [
    "",
    "(a) an Orchestrator with one live app applied -> first session accepted (one runner, static registration; the node polls its runner's /health every ~5 s):",
    ...rows,
  ];
}

// ---- (b) the controller's cost per live runner ----

/** The stand-ins (child process): runners' /health, the nodes' GET /discovery, the pod log endpoint. */
async function serve(): Promise<void> {
  const perOrch = Number(values["per-orchestrator"]);
  let apiRequests = 0;
  let runnerRequests = 0;
  let nodeRequests = 0;
  const listen = (srv: Server) =>
    new Promise<number>((r) => srv.listen(0, "127.0.0.1", () => r((srv.address() as AddressInfo).port)));
  const api = createServer((req, res) => {
    apiRequests++;
    const now = Date.now();
    // A live runner's log: the ai-runner's live lines and uvicorn's access lines.
    const lines = Array.from({ length: 20 }, (_, i) => {
      const at = new Date(now - (20 - i) * 10).toISOString();
      const text =
        i % 2
          ? `INFO:     10.0.0.1:5990${i} - "GET /health HTTP/1.1" 200 OK`
          : `timestamp=2026-11-28 04:39:5${i % 10} level=INFO location=streamer.py:240:run_ingress_loop gateway_request_id= manifest_id=m${i} stream_id= message=Stream ended: input channel failed`;
      return `${at} ${text}\n`;
    });
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(req.url?.includes("/log") ? lines.join("") : "");
  });
  const runner = createServer((req, res) => {
    runnerRequests++;
    if (req.url === "/health") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end('{"status":"IDLE"}');
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"detail":"Not Found"}');
  });
  // One orchestrator's GET /discovery: its runners (label routing: /apps/<pod>/), half in session.
  const discovery = JSON.stringify([
    {
      address: "https://o-0.o-pods.bench.svc.cluster.local:8935",
      runners: Array.from({ length: perOrch }, (_, i) => ({
        url: `https://o-0.o-pods.bench.svc.cluster.local:8935/apps/o-live-noop-${i}/`,
        app: "live-video-to-video/noop",
        capacity: 1,
        capacity_used: i % 2,
      })),
    },
  ]);
  const node = createHttpsServer(selfSignedCertificate("127.0.0.1"), (req, res) => {
    nodeRequests++;
    res.writeHead(req.url === "/discovery" ? 200 : 404, { "content-type": "application/json" });
    res.end(req.url === "/discovery" ? discovery : "{}");
  });
  const apiPort = await listen(api);
  const runnerPort = await listen(runner);
  const nodePort = await new Promise<number>((r) =>
    node.listen(0, "127.0.0.1", () => r((node.address() as AddressInfo).port)),
  );
  process.send?.({ apiPort, runnerPort, nodePort });
  process.on("message", (m) => {
    if (m === "counts") process.send?.({ apiRequests, runnerRequests, nodeRequests });
    if (m === "exit") process.exit(0);
  });
}

function orchestratorOf(index: number, perOrch: number): StoredOrchestrator {
  return {
    ...OrchestratorSchema.parse({
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Orchestrator",
      metadata: { name: "o" },
      spec: {
        ai: {
          only: true,
          live: { apps: [{ id: "noop", gpus: 1, replicas: perOrch, price: { usd: "0.50", unit: "hour" } }] },
        },
      },
    }),
    metadata: { name: "o", namespace: `bench-${index}` },
  } as StoredOrchestrator;
}

function runnerPod(i: number, index: number): PodFacts {
  return {
    metadata: {
      name: `o-live-noop-${i}`,
      namespace: `bench-${index}`,
      uid: `uid-${index}-${i}`,
      labels: { "livepeer.org/live-app": "noop" },
    },
    spec: { nodeName: "gpu" },
    status: {
      phase: "Running",
      podIP: "127.0.0.1",
      startTime: new Date(0).toISOString(),
      conditions: [
        { type: "PodScheduled", status: "True" },
        { type: "Ready", status: "True" },
      ],
      containerStatuses: [
        {
          name: "runner",
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: new Date(0).toISOString() } },
        },
      ],
    },
  } as unknown as PodFacts;
}

async function measureCost(): Promise<string[]> {
  const runners = Number(values.runners);
  const perOrch = Number(values["per-orchestrator"]);
  const orchestrators = Math.ceil(runners / perOrch);
  const child = fork(fileURLToPath(import.meta.url), ["--serve", "--per-orchestrator", String(perOrch)], {
    execArgv: [],
  });
  const ask = <T>(what?: string) =>
    new Promise<T>((resolve) => {
      child.once("message", (m) => resolve(m as T));
      if (what) child.send(what);
    });
  const { apiPort, runnerPort, nodePort } = await ask<{
    apiPort: number;
    runnerPort: number;
    nodePort: number;
  }>();
  const kc = new PooledKubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "bench", server: `http://127.0.0.1:${apiPort}`, skipTLSVerify: true }],
    users: [{ name: "bench", token: "t" }],
    contexts: [{ name: "bench", cluster: "bench", user: "bench" }],
    currentContext: "bench",
  });
  const pods = Array.from({ length: orchestrators }, (_, k) =>
    Array.from({ length: perOrch }, (_, i) => runnerPod(i, k)),
  );

  // The baseline: a bare keep-alive GET /health per runner, from this process.
  const agent = new Agent({ connections: Number(values.concurrency) });
  const bareCpu0 = process.cpuUsage();
  const bareT0 = performance.now();
  for (let i = 0; i < runners; i += Number(values.concurrency)) {
    await Promise.all(
      Array.from({ length: Math.min(Number(values.concurrency), runners - i) }, async () => {
        const r = await request(`http://127.0.0.1:${runnerPort}/health`, { dispatcher: agent });
        await r.body.json();
      }),
    );
  }
  const bareMs = cpuMs(process.cpuUsage(bareCpu0));
  const bareWall = performance.now() - bareT0;
  await agent.close();

  // 1. The runner doctor (the production NodeDoctor, as the Orchestrator controller makes it).
  const woken = new Set<string>();
  const doctor = new NodeDoctor({
    logs: new KubePodLogs(new KubeClient(kc)),
    wake: (key) => woken.add(key),
    container: "runner",
    concurrency: Number(values.concurrency),
    tickMs: 50,
  });
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const keys = pods.map((_, k) => `bench-${k}/o`);
  for (let k = 0; k < orchestrators; k++) {
    const targets = runnerTargets(pods[k]!).map((t) => ({ ...t, cliPort: runnerPort }));
    doctor.observe(keys[k]!, targets, { namespace: `bench-${k}` });
  }
  // Every runner looked at once: each resource's report names all of its pods.
  const reports = () =>
    keys.map((key, k) =>
      doctor.observe(
        key,
        runnerTargets(pods[k]!).map((t) => ({ ...t, cliPort: runnerPort })),
        { namespace: `bench-${k}` },
      ),
    );
  let readings: NodeReading[][] = [];
  for (;;) {
    if (woken.size >= orchestrators) {
      readings = reports().map((r) => r.readings);
      if (readings.every((r) => r.length === perOrch)) break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const doctorWall = performance.now() - t0;
  const doctorMs = cpuMs(process.cpuUsage(cpu0));
  gc();
  const heapWithDoctor = process.memoryUsage().heapUsed;

  // 2. The node doctor's GET /discovery of each orchestrator (its other reads are the node
  // doctor's own bench: bench/node-doctor.ts).
  const discoveryCpu0 = process.cpuUsage();
  const seenByNode = [];
  for (let k = 0; k < orchestrators; k += Number(values.concurrency)) {
    seenByNode.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(Number(values.concurrency), orchestrators - k) }, () =>
          readLiveDiscovery(`https://127.0.0.1:${nodePort}`, { timeoutMs: 5_000 }),
        ),
      )),
    );
  }
  const discoveryMs = cpuMs(process.cpuUsage(discoveryCpu0));

  // 3. The reconcile's live part: the plan (StatefulSets, Service, -liveRunnerConfig Secret) and
  // status.ai.live with LiveAIReady, for every Orchestrator.
  const reconcileCpu0 = process.cpuUsage();
  let ready = 0;
  for (let k = 0; k < orchestrators; k++) {
    const plan = planLiveAi({
      orch: orchestratorOf(k, perOrch),
      nodes: [],
      orchestratorUrl: "https://o-0.o-pods:8935",
      orchSecret: { name: "o-orch-secret", key: "secret" },
    });
    const apps = liveStatusOf({
      plan,
      runnerPods: pods[k]!,
      runnerReadings: readings[k]!,
      node: { runners: seenByNode[k]! },
    });
    if (liveAiReady(apps)?.status === "True") ready++;
  }
  const reconcileMs = cpuMs(process.cpuUsage(reconcileCpu0));
  const stats = doctor.stats();
  doctor.stop();
  gc();
  const heapHeld = heapWithDoctor - process.memoryUsage().heapUsed;
  const counts = await ask<{ apiRequests: number; runnerRequests: number; nodeRequests: number }>("counts");
  child.send("exit");
  const per = (ms: number) => `${((ms / runners) * 1000).toFixed(0)} µs`;
  const totalMs = doctorMs + discoveryMs + reconcileMs;
  const periodS = 30;
  return [
    "",
    `(b) the controller's cost per live runner, ${runners} runners on ${orchestrators} Orchestrators (${perOrch} each), one period:`,
    `  runner doctor, one look each:  ${per(doctorMs)} CPU per runner (${s(doctorWall)} for the round; ${((counts.runnerRequests - runners) / stats.looks).toFixed(1)} requests to the runner, ${(counts.apiRequests / stats.looks).toFixed(1)} log reads per look; ${stats.looks} looks)`,
    `  node doctor, GET /discovery:   ${per(discoveryMs)} CPU per runner (${orchestrators} reads of ${perOrch} runners)`,
    `  reconcile, plan + status:      ${per(reconcileMs)} CPU per runner (${ready} of ${orchestrators} LiveAIReady)`,
    `  total:                         ${per(totalMs)} CPU per runner per period; at a ${periodS} s period ${((totalMs / periodS / 1000) * 100).toFixed(2)} % of a core for ${runners} runners`,
    `  baseline, bare GET /health:    ${per(bareMs)} CPU per runner (${s(bareWall)}); runner doctor / bare = ${(doctorMs / bareMs).toFixed(1)}`,
    `  heap held by the runner doctor: ${(heapHeld / runners / 1024).toFixed(1)} KiB per runner (after GC; ${((heapWithDoctor - heap0) / runners / 1024).toFixed(1)} KiB with the HTTP pools)`,
    `  the doctor's limiter (20 periodic looks/s by default) looks at ${runners} runners once per ${Math.max(periodS, runners / 20).toFixed(0)} s at a ${periodS} s period`,
  ];
}
