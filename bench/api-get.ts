// What the webhook API costs over the bare minimum, measured in one run on this machine:
//   GET {prefix}/webhook/{id}  throughput and p99 at 64 connections, as a ratio to a bare fastify
//                              route returning the same JSON (goal: throughput ratio >= 0.85), and
//                              the CPU time the servers' process spends per request (the same ratio
//                              with the machine's other load taken out)
//   POST {prefix}/webhook      p99 (with a sharedSecret), as a ratio to the same two writes made
//                              directly with the API server's Kubernetes client (Webhook, then its
//                              Secret) at the same concurrency (goal: <= 1.2)
// Starts its own local control plane. The HTTP load comes from a child process (so the load
// generator does not share an event loop with the servers) over raw keep-alive sockets opened
// before the clock starts (bench/support/http-load.ts, which loads Node's built-ins only); both
// servers run in this process.
//
//   node bench/api-get.ts [--requests 20000] [--connections 64] [--creates 800] [--create-concurrency 8]
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import Fastify from "fastify";
import { mintToken } from "../src/api/auth/mint.ts";
import { type RunningApiServer, startApiServer } from "../src/api/server.ts";
import { createSecret, newSecretRef } from "../src/api/store/shared-secrets.ts";
import { newWebhookResource, webhookSpec } from "../src/api/store/webhook-resource.ts";
import { runKubectl, startControlPlane } from "../src/dev/cluster/control-plane.ts";
import { KubeClient } from "../src/kube/kube-client.ts";
import { loadKubeConfig } from "../src/kube/kube-config.ts";
import { Webhooks } from "../src/schema/resources.ts";
import type { StoredWebhook } from "../src/schema/webhook.ts";
import { countCause, type LoadResult, type LoadSpec, summarize } from "./support/http-load.ts";

// This file as the child cost 1.3 s of CPU per start, and its tail slowed the first requests of
// every round (see bench/support/http-load.ts).
const LOAD_GENERATOR = fileURLToPath(new URL("./support/http-load.ts", import.meta.url));

function loadInChild(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LOAD_GENERATOR, JSON.stringify(spec)], {
      stdio: ["ignore", "pipe", "inherit"],
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
  });
}

// ---- the baselines ----

async function bareServer(prefix: string, body: unknown): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify();
  const json = body;
  app.get(`${prefix}/webhook/:id`, async () => json);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}${prefix}`, close: () => app.close() };
}

/** The two writes behind one create, straight through the API server's own client. */
async function bareCreates(
  client: KubeClient,
  namespace: string,
  n: number,
  concurrency: number,
): Promise<LoadResult> {
  const tenant = { userId: "bench", projectId: "default" };
  const latencies: number[] = [];
  let failures = 0;
  const causes: Record<string, number> = {};
  let issued = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (issued < n) {
        issued++;
        const id = randomUUID();
        const ref = newSecretRef(id);
        const resource = newWebhookResource(
          id,
          namespace,
          Date.now(),
          webhookSpec({ name: `bare-${id}`, url: "https://example.com/bench" }, tenant, ref),
          tenant,
        );
        const s = performance.now();
        let step = "Webhook";
        try {
          const created = await client.create<StoredWebhook>(Webhooks, resource, "bench");
          step = "Secret";
          await createSecret(client, ref, created, "bench-secret-value", "bench");
        } catch (err) {
          failures++;
          const e = err as { code?: unknown; message?: unknown; stack?: unknown };
          if (process.env.BENCH_STACKS) process.stderr.write(`[bench] ${step}: ${String(e.stack)}\n`);
          // Did the write land anyway? (Says whether a client may simply retry it.)
          const landed =
            step === "Webhook"
              ? await client.get(Webhooks, namespace, id).then(
                  () => " (the Webhook was created)",
                  () => " (the Webhook was not created)",
                )
              : "";
          countCause(
            causes,
            `${step}: ${typeof e.code === "string" ? `${e.code} ` : ""}${String(e.message ?? err)}${landed}`,
          );
        }
        latencies.push(performance.now() - s);
      }
    }),
  );
  return summarize(latencies, performance.now() - t0, failures, causes);
}

/** Rounds merged: requests and failures summed, rate averaged, percentiles over all samples. */
function pooled(runs: LoadResult[]): LoadResult {
  const all = runs.flatMap((r) => r.latencies ?? []);
  const elapsed = runs.reduce((ms, r) => ms + (r.requests / r.perSecond) * 1000, 0);
  const causes: Record<string, number> = {};
  for (const r of runs) for (const [c, n] of Object.entries(r.causes)) causes[c] = (causes[c] ?? 0) + n;
  return summarize(
    all,
    elapsed,
    runs.reduce((n, r) => n + r.failures, 0),
    causes,
  );
}

function ratio(a: number, b: number): string {
  return b ? (a / b).toFixed(2) : "n/a";
}

function line(label: string, r: LoadResult): string {
  const cpu = r.cpuUs === undefined ? "" : `  ${r.cpuUs.toFixed(0).padStart(4)} µs CPU`;
  const head = `${label.padEnd(34)} ${String(r.perSecond).padStart(7)}/s${cpu}  p50 ${r.p50Ms.toFixed(2).padStart(7)} ms  p99 ${r.p99Ms.toFixed(2).padStart(7)} ms  (${r.requests} requests, ${r.failures} failed)`;
  const causes = Object.entries(r.causes)
    .sort((a, b) => b[1] - a[1])
    .map(([cause, n]) => `${" ".repeat(36)}${n} x ${cause}`);
  return [head, ...causes].join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: "string", default: "20000" },
      connections: { type: "string", default: "64" },
      creates: { type: "string", default: "800" },
      "create-concurrency": { type: "string", default: "8" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      "node bench/api-get.ts [--requests 20000] [--connections 64] [--creates 800] [--create-concurrency 8]\n" +
        "  GET throughput/p99 of the webhook API vs a bare fastify route, and create p99 vs the bare\n" +
        "  Kubernetes writes; failed requests are listed under each line with their cause.\n",
    );
    return;
  }
  const requests = Number(values.requests);
  const connections = Number(values.connections);
  const creates = Number(values.creates);
  const createConcurrency = Number(values["create-concurrency"]);
  const log = (l: string) => process.stderr.write(`${l}\n`);

  const cp = await startControlPlane({ progress: log });
  let api: RunningApiServer | undefined;
  let tmp: string | undefined;
  let bare: Awaited<ReturnType<typeof bareServer>> | undefined;
  const { kc } = loadKubeConfig({ kubeconfig: cp.kubeconfig });
  try {
    const k = (args: string[]) => runKubectl(cp.binaries.kubectl, cp.kubeconfig, args);
    const crd = fileURLToPath(new URL("../deploy/crds/webhooks.livepeer.org.yaml", import.meta.url));
    await k(["apply", "--server-side", "-f", crd]);
    await k(["wait", "--for=condition=Established", "--timeout=60s", "crd/webhooks.livepeer.org"]);
    const namespace = `bench-api-${randomBytes(3).toString("hex")}`;
    await k(["create", "namespace", namespace]);

    const secret = randomBytes(48);
    const apiLogCauses: Record<string, number> = {};
    tmp = await mkdtemp(join(tmpdir(), "bench-api-"));
    api = await startApiServer({
      port: 0,
      namespace,
      kubeconfig: cp.kubeconfig,
      jwtSecret: secret,
      nodeHooks: false,
      delivery: { store: { backend: "sqlite", file: join(tmp, "delivery.sqlite") } },
      logLevel: "info",
      // The API's own warnings and errors (a 500's cause is only in the log) and its retries of
      // API server calls: counted, printed.
      logStream: {
        write: (l: string) => {
          const e = JSON.parse(l) as {
            level?: number;
            msg?: string;
            err?: { message?: string; code?: string };
          };
          if ((e.level ?? 0) < 40 && !e.msg?.includes("trying again")) return;
          countCause(
            apiLogCauses,
            `${e.msg ?? ""}${e.err ? `: ${e.err.code ?? ""} ${e.err.message ?? ""}` : ""}`,
          );
        },
      },
    });
    const token = await mintToken({ secret, sub: "bench", ttlSeconds: 3600 });
    const created = await fetch(`${api.url}/webhook`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "bench", url: "https://example.com/bench", events: ["stream.started"] }),
    });
    const hook = (await created.json()) as { id: string };
    bare = await bareServer("/api", hook);

    // The load comes from a child: this process's CPU time is the servers' (and its idle informers').
    const get = async (base: string, n: number): Promise<LoadResult> => {
      const before = process.cpuUsage();
      const r = await loadInChild({
        url: `${base}/webhook/${hook.id}`,
        method: "GET",
        token,
        connections,
        requests: n,
      });
      const used = process.cpuUsage(before);
      return { ...r, cpuUs: (used.user + used.system) / Math.max(1, r.requests) };
    };
    log("[bench] warming up");
    await get(bare.url, 2000);
    await get(api.url, 2000);
    // Interleaved rounds: drift of the machine hits both sides alike; the median round counts.
    const bareRuns: LoadResult[] = [];
    const apiRuns: LoadResult[] = [];
    for (let round = 0; round < 3; round++) {
      bareRuns.push(await get(bare.url, requests));
      apiRuns.push(await get(api.url, requests));
    }
    const median = (runs: LoadResult[]) => [...runs].sort((a, b) => a.perSecond - b.perSecond)[1]!;
    const bareGet = median(bareRuns);
    const apiGet = median(apiRuns);
    const middle = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const cpuRatios = bareRuns.map((b, i) => (b.cpuUs ?? 0) / (apiRuns[i]!.cpuUs ?? 1));

    const client = new KubeClient(kc);
    log("[bench] creates");
    await bareCreates(client, namespace, 20, createConcurrency); // warm-up
    const apiCreateRound = (n: number) =>
      loadInChild({
        url: `${api!.url}/webhook`,
        method: "POST",
        token,
        connections: createConcurrency,
        requests: n,
        body: {
          url: "https://example.com/bench",
          events: ["stream.started"],
          sharedSecret: "bench-secret-value",
        },
      });
    await apiCreateRound(20); // warm-up
    // Interleaved rounds, pooled: the cluster's own drift (etcd compaction, GC) hits both alike.
    const bareCreateRuns: LoadResult[] = [];
    const apiCreateRuns: LoadResult[] = [];
    // Four rounds each: the p99 of a few hundred creates is a handful of samples, and the API
    // server's slow spells (etcd compaction, the machine's other load) last seconds.
    const CREATE_ROUNDS = 4;
    for (let round = 0; round < CREATE_ROUNDS; round++) {
      const n = Math.ceil(creates / CREATE_ROUNDS);
      bareCreateRuns.push(await bareCreates(client, namespace, n, createConcurrency));
      apiCreateRuns.push(await apiCreateRound(n));
    }
    const bareCreate = pooled(bareCreateRuns);
    const apiCreate = pooled(apiCreateRuns);

    const out = [
      "",
      `GET {prefix}/webhook/{id}, ${connections} connections (median of ${bareRuns.length} interleaved rounds):`,
      ...bareRuns.map((r, i) => line(`  bare fastify, round ${i + 1}`, r)),
      ...apiRuns.map((r, i) => line(`  webhook API, round ${i + 1}`, r)),
      `  throughput ratio API/bare: ${ratio(apiGet.perSecond, bareGet.perSecond)} (goal >= 0.85)`,
      `  requests per CPU second API/bare: ${middle(cpuRatios).toFixed(2)} (median of the rounds' ratios, spread ${Math.min(...cpuRatios).toFixed(2)}-${Math.max(...cpuRatios).toFixed(2)})`,
      `  p99 ratio API/bare:        ${ratio(apiGet.p99Ms, bareGet.p99Ms)}`,
      "",
      `create, ${createConcurrency} in flight, ${creates} each (${bareCreateRuns.length} interleaved rounds, pooled):`,
      line("  bare writes (Webhook + Secret)", bareCreate),
      line("  POST {prefix}/webhook", apiCreate),
      `  p99 ratio API/bare: ${ratio(apiCreate.p99Ms, bareCreate.p99Ms)} (goal <= 1.2)`,
      `  p50 ratio API/bare: ${ratio(apiCreate.p50Ms, bareCreate.p50Ms)}`,
      "",
      "the API's warnings, errors and retries (whole run):",
      ...Object.entries(apiLogCauses).map(([cause, n]) => `  ${n} x ${cause}`),
      "",
    ];
    process.stdout.write(out.join("\n"));
  } finally {
    await bare?.close();
    await api?.close();
    await kc.close();
    await cp.stop();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }
}

await main();
