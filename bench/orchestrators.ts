// What the Orchestrator controller costs over the bare minimum, measured in one run:
//   time from applying N Orchestrators at once until every one reports its current generation
//   and its pod Running, as a ratio to a bare script that server-side applies the same children
//   (the plan's ConfigMap, Services and StatefulSet) with the same concurrency and waits for the
//   same pods (goal: <= 1.3); the controller's peak RSS (VmHWM) and p99 work-queue wait from its
//   own metrics (goal: < 1 s).
// Starts its own local control plane with enough fake CPU nodes for the pods.
//
//   node bench/orchestrators.ts [--count 1000] [--concurrency 4] [--skip-bare]
// --skip-bare measures only the controller (memory and queue wait at 5,000 without the ratio).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { load } from "js-yaml";
import { planOrchestrator } from "../src/controller/orchestrator/plan.ts";
import { type Orchestrator, Orchestrators } from "../src/controller/orchestrator/resource.ts";
import {
  applyOwned,
  ConfigMaps,
  KubeClient,
  type KubeObject,
  Pods,
  PooledKubeConfig,
  Services,
  StatefulSets,
} from "../src/controller/runtime/index.ts";
import { runKubectl, startControlPlane } from "../src/dev/cluster/control-plane.ts";
import { createNodePool } from "../src/dev/cluster/fleet.ts";
import { waitFor } from "../src/dev/cluster/process.ts";
import { startController } from "../test/integration/support/controller-process.ts";

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "4" },
    "skip-bare": { type: "boolean", default: false },
  },
});
const N = Number(values.count);
const C = Number(values.concurrency);

async function pool<T>(items: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const cp = await startControlPlane({});
try {
  const kc = new PooledKubeConfig();
  kc.loadFromFile(cp.kubeconfig);
  const client = new KubeClient(kc);
  const kubectl = (args: string[], input?: string) =>
    runKubectl(cp.binaries.kubectl, cp.kubeconfig, args, input);
  await kubectl(["apply", "--server-side", "-f", "deploy/crds/"]);
  await kubectl(["wait", "--for=condition=Established", "crd/orchestrators.livepeer.org"]);
  const nodes = Math.ceil((2 * N) / 100) + 1;
  const p = await createNodePool(
    kc,
    "bench",
    Array.from({ length: nodes }, (_, i) => ({ name: `cpu-${i}`, cpu: "256", memory: "1Ti" })),
  );
  const spec = { podTemplate: { nodeSelector: p.nodeSelector, tolerations: p.tolerations } };
  const podsRunning = async (ns: string) =>
    (await client.list<KubeObject & { status?: { phase?: string } }>(Pods, { namespace: ns })).items.filter(
      (x) => x.status?.phase === "Running",
    ).length;

  // Baseline: the same children, applied directly, owned by a stand-in ConfigMap.
  await kubectl(["create", "namespace", "bare"]);
  const owner = await client.create<KubeObject>(
    ConfigMaps,
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "owner", namespace: "bare" } },
    "bench",
  );
  const t0 = Date.now();
  await pool(values["skip-bare"] ? [] : [...Array(N).keys()], C, async (i) => {
    const orch = {
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Orchestrator",
      metadata: { name: `o-${i}`, namespace: "bare" },
      spec,
    } as unknown as Orchestrator;
    const plan = planOrchestrator({ orch, nodes: [], defaultImage: "livepeer/go-livepeer:bench" });
    for (const cm of plan.configMaps) await applyOwned(client, ConfigMaps, owner, cm as KubeObject);
    for (const s of plan.services) await applyOwned(client, Services, owner, s as KubeObject);
    for (const s of plan.statefulSets) await applyOwned(client, StatefulSets, owner, s as KubeObject);
  });
  if (!values["skip-bare"]) {
    await waitFor("bare pods Running", async () => (await podsRunning("bare")) === N, 3_600_000);
  }
  const bare = Date.now() - t0;

  // The controller, as a process of its own.
  await kubectl(["create", "namespace", "operated"]);
  // The controller runs with the V8 flags the Helm chart gives it, so its memory is the deployed one.
  const chartValues = load(readFileSync("deploy/helm/livepeer-operator/values.yaml", "utf8")) as {
    controller: { nodeOptions?: string };
  };
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, chartValues.controller.nodeOptions]
    .filter(Boolean)
    .join(" ");
  const ctl = startController("bench", [
    `--kubeconfig=${cp.kubeconfig}`,
    "--namespace=operated",
    "--leader-elect=false",
    `--workers=${C}`,
  ]);
  const metrics = await ctl.metricsUrl();
  await ctl.waitForLine(/started \d+ workers resource=orchestrators/, 60_000);
  const items = Array.from({ length: N }, (_, i) => ({
    apiVersion: "livepeer.org/v1alpha1",
    kind: "Orchestrator",
    metadata: { name: `o-${i}`, namespace: "operated" },
    spec,
  }));
  const t1 = Date.now();
  // kubectl applies a List item by item; lists of 500, two at a time, keep each call short.
  const lists = Array.from({ length: Math.ceil(N / 500) }, (_, i) => items.slice(i * 500, (i + 1) * 500));
  await pool(lists, 2, (list) =>
    kubectl(
      ["apply", "--server-side", "-f", "-"],
      JSON.stringify({ apiVersion: "v1", kind: "List", items: list }),
    ).then(() => undefined),
  );
  await waitFor(
    "Orchestrators at their generation with pods Running",
    async () => {
      const list = await client.list<Orchestrator>(Orchestrators, { namespace: "operated" });
      const current = list.items.filter(
        (o) => o.status?.observedGeneration === o.metadata?.generation,
      ).length;
      return current === N && (await podsRunning("operated")) === N;
    },
    3_600_000,
  );
  const operated = Date.now() - t1;
  const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${ctl.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  const text = await (await fetch(`${metrics}/metrics`)).text();
  /** Upper bucket bounds holding the q-quantiles of the orchestrator controller's histogram. */
  const quantiles = (metric: string, qs: number[]) => {
    const buckets = text
      .split("\n")
      .filter((l) => l.startsWith(`${metric}_bucket{`) && /(name|controller)="orchestrator"/.test(l))
      .map((l) => {
        const le = /le="([^"]+)"/.exec(l)?.[1] ?? "+Inf";
        return [le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le), Number(l.split(" ").at(-1))] as const;
      });
    const total = buckets.at(-1)?.[1] ?? 0;
    return { total, at: qs.map((q) => buckets.find(([, c]) => c >= total * q)?.[0]) };
  };
  const wait = quantiles("workqueue_queue_duration_seconds", [0.5, 0.99]);
  const work = quantiles("controller_runtime_reconcile_time_seconds", [0.5, 0.99]);
  const [p50, p99] = wait.at;
  const total = wait.total;
  const gauge = (name: string) =>
    Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN) / 2 ** 20;
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${ctl.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  if (process.env.BENCH_HEAP_SNAPSHOT) {
    // The controller writes Heap.*.heapsnapshot into the working directory on SIGUSR2 when started
    // with NODE_OPTIONS=--heapsnapshot-signal=SIGUSR2 (for finding what holds memory).
    process.kill(ctl.pid, "SIGUSR2");
    await new Promise((r) => setTimeout(r, 20_000));
  }
  await ctl.stop();
  console.log(`orchestrators: ${N}, concurrency ${C}, ${nodes} fake nodes, 2 cores`);
  console.log(`controller NODE_OPTIONS:              ${process.env.NODE_OPTIONS}`);
  if (!values["skip-bare"]) console.log(`bare children + pods Running:        ${(bare / 1000).toFixed(1)} s`);
  console.log(`controller: generation + pods Running: ${(operated / 1000).toFixed(1)} s`);
  if (!values["skip-bare"]) {
    console.log(`ratio controller / bare:              ${(operated / bare).toFixed(2)} (goal <= 1.3)`);
  }
  console.log(`controller peak RSS (VmHWM):          ${hwm.toFixed(0)} MB (goal <= 250 MB at 5,000)`);
  console.log(`controller RSS at the end:            ${rss.toFixed(0)} MB`);
  console.log(
    `controller V8 heap used / total:      ${gauge("nodejs_heap_size_used_bytes").toFixed(0)} / ${gauge("nodejs_heap_size_total_bytes").toFixed(0)} MB`,
  );
  console.log(
    `reconcile time p50 / p99 (bucket):    <= ${work.at[0]} s / <= ${work.at[1]} s over ${work.total}`,
  );
  console.log(
    `work-queue wait p50 / p99 (bucket):   <= ${p50} s / <= ${p99} s over ${total} adds (goal p99 < 1 s)`,
  );
} finally {
  await cp.stop();
}
