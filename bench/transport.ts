// Measures the runtime's transport against client-node's: N ConfigMap creates, C in flight,
// against the cluster in $KUBECONFIG, with
//   stock    client-node's KubeConfig + CoreV1Api (npm undici; a new Agent, so a TLS handshake, per request)
//   runtime  PooledKubeConfig + the runtime's KubeClient (node:https keep-alive pool, plain JSON)
// Each variant runs in its own child process (fair RSS), one after the other, in its own
// namespace (deleted afterwards). Prints one line per variant and the ratios.
//
//   KUBECONFIG=... node bench/transport.ts [--n 1000] [--concurrency 16]
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { KubeClient } from "../src/kube/kube-client.ts";
import { PooledKubeConfig } from "../src/kube/kube-config.ts";
import { ConfigMaps } from "../src/kube/resources.ts";

type Variant = "stock" | "runtime";
interface Result {
  variant: Variant;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuMsPerRequest: number;
  peakRssMb: number;
  /** Connection pools the runtime opened (1 expected). */
  pools: number | undefined;
}

async function measure(variant: Variant, n: number, concurrency: number): Promise<Result> {
  const kc = variant === "stock" ? new KubeConfig() : new PooledKubeConfig();
  kc.loadFromDefault();
  const admin = kc.makeApiClient(CoreV1Api);
  const namespace = `bench-${variant}-${randomBytes(3).toString("hex")}`;
  await admin.createNamespace({ body: { metadata: { name: namespace } } });
  const core = kc.makeApiClient(CoreV1Api);
  const client = new KubeClient(kc);
  const create =
    variant === "runtime"
      ? (name: string) => client.create(ConfigMaps, { metadata: { name, namespace }, data: { k: "v" } })
      : (name: string) =>
          core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data: { k: "v" } } });
  // Warm-up (JIT, first connection), not measured.
  for (let i = 0; i < 20; i++) await create(`warm-${i}`);
  const latencies: number[] = [];
  let peakRss = process.memoryUsage.rss();
  const rssTimer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 20);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const s = performance.now();
        await create(`cm-${i}`);
        latencies.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(rssTimer);
  latencies.sort((a, b) => a - b);
  await admin.deleteNamespace({ name: namespace });
  const pools = kc instanceof PooledKubeConfig ? kc.connections.size : undefined;
  if (kc instanceof PooledKubeConfig) await kc.close();
  return {
    variant,
    perSecond: n / seconds,
    p50Ms: latencies[Math.floor(n * 0.5)]!,
    p99Ms: latencies[Math.floor(n * 0.99)]!,
    cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / n,
    peakRssMb: peakRss / 2 ** 20,
    pools,
  };
}

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "16" },
    variant: { type: "string" },
  },
});
const n = Number(values.n);
const concurrency = Number(values.concurrency);

if (values.variant) {
  const r = await measure(values.variant as Variant, n, concurrency);
  process.stdout.write(`${JSON.stringify(r)}\n`);
} else {
  if (!process.env.KUBECONFIG) {
    process.stderr.write(
      "set KUBECONFIG to a cluster you may create namespaces in (e.g. livepeer-operator cluster up)\n",
    );
    process.exit(2);
  }
  const results: Result[] = [];
  for (const variant of ["stock", "runtime"] as const) {
    const child = spawnSync(
      process.execPath,
      [
        fileURLToPath(import.meta.url),
        "--variant",
        variant,
        "--n",
        String(n),
        "--concurrency",
        String(concurrency),
      ],
      { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
    );
    if (child.status !== 0) throw new Error(`${variant} run failed (exit ${child.status})`);
    results.push(JSON.parse(child.stdout.trim().split("\n").pop()!) as Result);
  }
  process.stdout.write(`${n} ConfigMap creates, ${concurrency} in flight, node ${process.version}\n`);
  for (const r of results) {
    process.stdout.write(
      `${r.variant.padEnd(8)} ${r.perSecond.toFixed(0).padStart(5)}/s  p50 ${r.p50Ms.toFixed(1)} ms  p99 ${r.p99Ms.toFixed(1)} ms  CPU ${r.cpuMsPerRequest.toFixed(2)} ms/request  peak RSS ${r.peakRssMb.toFixed(0)} MB${r.pools !== undefined ? `  pools ${r.pools}` : ""}\n`,
    );
  }
  const [stock, runtime] = results as [Result, Result];
  process.stdout.write(
    `runtime/stock: ${(runtime.perSecond / stock.perSecond).toFixed(1)}x throughput, ${(stock.cpuMsPerRequest / runtime.cpuMsPerRequest).toFixed(1)}x less CPU, ${(stock.peakRssMb - runtime.peakRssMb).toFixed(0)} MB less peak RSS\n`,
  );
}
