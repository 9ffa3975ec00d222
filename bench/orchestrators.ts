// What the Orchestrator controller costs over the bare minimum, measured in one run:
//   time from applying N Orchestrators at once until every one reports its current generation
//   and its pod Running, as a ratio to a bare script that server-side applies the same children
//   (the plan's ConfigMap, Services and StatefulSet) with the same concurrency and waits for the
//   same pods (goal: <= 1.15); the controller's peak RSS (VmHWM) with all of them and their
//   children cached (goal: <= 200 MB at 5,000), with how much of it is V8's heap, memory outside
//   it, and anonymous memory against mapped files;
// - then, with everything converged and cached, the steady state for --steady seconds: one spec
//   edit every 1/--edit-rate s (each rolls a pod), the node doctor's looks, the spread resync, Node
//   heartbeats; the p99 work-queue wait over that window from the controller's own metrics (goal:
//   < 1 s), and how long an edit takes to show as status.observedGeneration.
// The queue wait during the burst is printed too: it is bound by throughput (N keys at once,
// drained C at a time, as the bare script's own backlog is), not by responsiveness.
// Each half (bare script, controller) runs on a local control plane of its own, started fresh
// with enough fake CPU nodes for the pods, so neither half carries the other's objects; with
// --rounds R the halves alternate which goes first (the machine's drift lands on both sides) and
// the ratio printed is the median of the rounds'. Each half also prints the API server's writes
// per Orchestrator by verb and resource (its own request counter) and the CPU seconds of every
// process (API server, etcd, scheduler, controller-manager, kwok, the controller or the script).
//
//   node bench/orchestrators.ts [--count 1000] [--concurrency 4] [--rounds 1] [--skip-bare]
//                               [--steady 120] [--edit-rate 1] [--from-source]
//                               [--node-flags="--heap-growing-percent=20"]
// The controller is compiled first (`npm run build`, as in the image); --from-source runs the
// TypeScript directly.
// --skip-bare measures only the controller (memory and queue wait at 5,000 without the ratio).
// --node-flags: flags given to the controller's node before its script (V8 flags that Node refuses
// in NODE_OPTIONS, for trying them; the chart's nodeOptions and mallocArenaMax are always applied).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { load } from "js-yaml";
import { planOrchestrator } from "../src/controller/orchestrator/plan.ts";
import { runKubectl, startControlPlane } from "../src/dev/cluster/control-plane.ts";
import { createNodePool } from "../src/dev/cluster/fleet.ts";
import { waitFor } from "../src/dev/cluster/process.ts";
import {
  applyOwned,
  ConfigMaps,
  Informer,
  KubeClient,
  type KubeObject,
  Pods,
  PooledKubeConfig,
  type ResourceType,
  Services,
  StatefulSets,
} from "../src/kube/index.ts";
import { OrchestratorSpecSchema, type StoredOrchestrator } from "../src/schema/orchestrator.ts";
import { Orchestrators } from "../src/schema/resources.ts";
import { startController } from "../test/integration/support/controller-process.ts";

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "4" },
    "skip-bare": { type: "boolean", default: false },
    rounds: { type: "string", default: "1" },
    steady: { type: "string", default: "120" },
    "edit-rate": { type: "string", default: "1" },
    "from-source": { type: "boolean", default: false },
    "node-flags": { type: "string", default: "" },
  },
});
const N = Number(values.count);
const C = Number(values.concurrency);
const ROUNDS = values["skip-bare"] ? 1 : Math.max(1, Number(values.rounds));
const STEADY_S = Number(values.steady);
const EDIT_RATE = Number(values["edit-rate"]);
const NODE_FLAGS = values["node-flags"].split(" ").filter(Boolean);
const TICKS_PER_SECOND = 100;

async function pool<T>(items: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

function cpuSecondsOf(pid: number): number {
  // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

// The controller runs as the image runs it: compiled JavaScript (`npm run build` -> dist/), not
// TypeScript stripped at load time (Node's type stripper alone holds about 20 MB).
let main: string | undefined;
if (!values["from-source"]) {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
    stdio: "inherit",
  });
  main = "dist/cli/main.js";
}
// The controller runs with the V8 flags and malloc arenas the Helm chart gives it, so its memory
// is the deployed one (the control plane's binaries are Go's, which do not read MALLOC_ARENA_MAX).
const chartValues = load(readFileSync("deploy/helm/livepeer-operator/values.yaml", "utf8")) as {
  controller: { nodeOptions?: string; mallocArenaMax?: number };
};
process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, chartValues.controller.nodeOptions]
  .filter(Boolean)
  .join(" ");
if (chartValues.controller.mallocArenaMax && process.env.MALLOC_ARENA_MAX === undefined) {
  process.env.MALLOC_ARENA_MAX = String(chartValues.controller.mallocArenaMax);
}

/**
 * Each half of a round runs on a control plane of its own, started fresh: the other half's
 * objects (N StatefulSets and their pods) would otherwise weigh on etcd, the API server's
 * watch caches, the scheduler and kwok during the second half.
 */
async function cluster() {
  const cp = await startControlPlane({});
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
  /**
   * How many objects of a kind in `ns` pass `test`, kept current by a watch: polling a LIST of N
   * objects every 100 ms would load the API server the bench measures (half a core at 1,000).
   */
  const watchedCount = async <T extends KubeObject>(
    resource: ResourceType,
    ns: string,
    test: (o: T) => boolean,
  ) => {
    const informer = new Informer<KubeObject & { passes: boolean }>(client, {
      resource,
      namespaces: [ns],
      // Only the verdict and what a watch needs are kept.
      transform: (o) => ({
        metadata: {
          name: o.metadata?.name,
          namespace: o.metadata?.namespace,
          resourceVersion: o.metadata?.resourceVersion,
        },
        passes: test(o as unknown as T),
      }),
    });
    informer.start();
    await informer.waitForSync();
    return {
      count: () => informer.store.list().filter((o) => o.passes).length,
      stop: () => informer.stop(),
    };
  };
  const podsRunning = (ns: string) =>
    watchedCount<KubeObject & { status?: { phase?: string } }>(
      Pods,
      ns,
      (x) => x.status?.phase === "Running",
    );
  /** The API server's requests so far, by verb and resource (its own counter). */
  const writes = async () => {
    const counts = new Map<string, number>();
    const text = await kubectl(["get", "--raw", "/metrics"]);
    for (const m of text.matchAll(/^apiserver_request_total\{([^}]*)\} (\S+)$/gm)) {
      const label = (k: string) => new RegExp(`${k}="([^"]*)"`).exec(m[1]!)?.[1] ?? "";
      const verb = label("verb");
      const sub = label("subresource");
      const key = `${verb} ${label("resource")}${sub ? `/${sub}` : ""}`;
      counts.set(key, (counts.get(key) ?? 0) + Number(m[2]));
    }
    return counts;
  };
  /** CPU seconds of the control plane's processes (API server, etcd, scheduler, ...) so far. */
  const cpu = () => new Map(cp.processes.map((x) => [x.name, cpuSecondsOf(x.pid)] as const));
  return { cp, kc, client, kubectl, nodes, spec, podsRunning, watchedCount, writes, cpu };
}
type Cluster = Awaited<ReturnType<typeof cluster>>;

interface Half {
  seconds: number;
  /** Mutating API requests per Orchestrator, by verb and resource, most first. */
  writes: [string, number][];
  /** The others (GET, LIST, WATCH) likewise. */
  reads: [string, number][];
  /** CPU seconds by process over the half. */
  cpu: [string, number][];
}

/** What a half cost the cluster: writes and CPU between two readings. */
async function costSince(
  c: Cluster,
  before: { writes: Map<string, number>; cpu: Map<string, number> },
  extraCpu: Map<string, number>,
): Promise<Omit<Half, "seconds">> {
  const after = await c.writes();
  const all = [...after]
    .map(([k, n]) => [k, (n - (before.writes.get(k) ?? 0)) / N] as [string, number])
    .filter(([, n]) => n >= 0.05)
    .sort((a, b) => b[1] - a[1]);
  const mutating = ([k]: [string, number]) => /^(POST|PUT|PATCH|APPLY|DELETE) /.test(k);
  const writes = all.filter(mutating);
  const reads = all.filter((x) => !mutating(x));
  const cpu = [...c.cpu()].map(([k, s]) => [k, s - (before.cpu.get(k) ?? 0)] as [string, number]);
  for (const [k, s] of extraCpu) cpu.push([k, s]);
  return { writes, reads, cpu: cpu.sort((a, b) => b[1] - a[1]) };
}

/** Baseline: the same children, applied directly, owned by a stand-in ConfigMap. */
async function bareHalf(): Promise<Half> {
  const c = await cluster();
  try {
    const { client, kubectl, spec } = c;
    // As the API server admits it (defaults applied): what the controller plans from.
    const admitted = OrchestratorSpecSchema.parse(spec);
    await kubectl(["create", "namespace", "bare"]);
    const owner = await client.create<KubeObject>(
      ConfigMaps,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "owner", namespace: "bare" } },
      "bench",
    );
    const running = await c.podsRunning("bare");
    const before = { writes: await c.writes(), cpu: c.cpu() };
    const self0 = process.cpuUsage();
    const t0 = Date.now();
    await pool([...Array(N).keys()], C, async (i) => {
      const orch: StoredOrchestrator = {
        apiVersion: "livepeer.org/v1alpha1",
        kind: "Orchestrator",
        metadata: { name: `o-${i}`, namespace: "bare" },
        spec: admitted,
      };
      const plan = planOrchestrator({ orch, nodes: [], defaultImage: "livepeer/go-livepeer:bench" });
      for (const cm of plan.configMaps) await applyOwned(client, ConfigMaps, owner, cm as KubeObject);
      for (const s of plan.services) await applyOwned(client, Services, owner, s as KubeObject);
      for (const s of plan.statefulSets) await applyOwned(client, StatefulSets, owner, s as KubeObject);
    });
    await waitFor("bare pods Running", async () => running.count() === N, 3_600_000);
    await running.stop();
    const seconds = (Date.now() - t0) / 1000;
    const self = process.cpuUsage(self0);
    return {
      seconds,
      ...(await costSince(c, before, new Map([["bare script", (self.user + self.system) / 1e6]]))),
    };
  } finally {
    await c.cp.stop();
  }
}

/** The controller, as a process of its own, from applying N Orchestrators until all converged. */
async function controllerHalf(c: Cluster) {
  const { kubectl, spec } = c;
  await kubectl(["create", "namespace", "operated"]);
  const ctl = startController(
    "bench",
    [`--kubeconfig=${c.cp.kubeconfig}`, "--namespace=operated", "--leader-elect=false", `--workers=${C}`],
    main,
    NODE_FLAGS,
  );
  const metrics = await ctl.metricsUrl();
  await ctl.waitForLine(/started \d+ workers resource=orchestrators/, 60_000);
  const items = Array.from({ length: N }, (_, i) => ({
    apiVersion: "livepeer.org/v1alpha1",
    kind: "Orchestrator",
    metadata: { name: `o-${i}`, namespace: "operated" },
    spec,
  }));
  const running = await c.podsRunning("operated");
  const current = await c.watchedCount<StoredOrchestrator>(
    Orchestrators,
    "operated",
    (o) => o.status?.observedGeneration === o.metadata?.generation,
  );
  const before = { writes: await c.writes(), cpu: c.cpu() };
  const ctlCpu0 = cpuSecondsOf(ctl.pid);
  const t1 = Date.now();
  // kubectl applies a List item by item; lists of 100, two at a time, keep each call well inside
  // kubectl's 2-minute bound even on a busy machine (500 at a time overran it at 5,000).
  const lists = Array.from({ length: Math.ceil(N / 100) }, (_, i) => items.slice(i * 100, (i + 1) * 100));
  await pool(lists, 2, (list) =>
    kubectl(
      ["apply", "--server-side", "-f", "-"],
      JSON.stringify({ apiVersion: "v1", kind: "List", items: list }),
    ).then(() => undefined),
  );
  await waitFor(
    "Orchestrators at their generation with pods Running",
    async () => current.count() === N && running.count() === N,
    3_600_000,
  );
  await Promise.all([current.stop(), running.stop()]);
  const seconds = (Date.now() - t1) / 1000;
  const cost = await costSince(c, before, new Map([["controller", cpuSecondsOf(ctl.pid) - ctlCpu0]]));
  return { half: { seconds, ...cost } satisfies Half, ctl, metrics, t1 };
}

const bareHalves: Half[] = [];
const controllerHalves: Half[] = [];
// Rounds alternate which half goes first, so the machine's drift lands on both sides.
for (let round = 0; round < ROUNDS - 1; round++) {
  const order = round % 2 === 0 ? ["bare", "controller"] : ["controller", "bare"];
  for (const which of order) {
    if (which === "bare") bareHalves.push(await bareHalf());
    else {
      const c = await cluster();
      try {
        const { half, ctl } = await controllerHalf(c);
        controllerHalves.push(half);
        await ctl.stop();
      } finally {
        await c.cp.stop();
      }
    }
  }
}
// The last round's controller half goes on to the drain, memory and steady state.
const lastBareFirst = (ROUNDS - 1) % 2 === 0;
if (!values["skip-bare"] && lastBareFirst) bareHalves.push(await bareHalf());
async function lastControllerHalf(): Promise<string[]> {
  const c = await cluster();
  try {
    const { client } = c;
    const { half, ctl, metrics, t1 } = await controllerHalf(c);
    controllerHalves.push(half);
    const hwm = () =>
      Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${ctl.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
    const scrape = async () => (await fetch(`${metrics}/metrics`)).text();
    // Converged is not idle: status updates (the node doctor's first looks) may still be queued.
    // The steady state begins once the queue has been empty for a few seconds in a row. Asked
    // every 2 s, about as often as a Prometheus scrapes: a scrape renders every object's series
    // (50,000 at 5,000 Orchestrators), and asking every 100 ms kept the controller rendering.
    let idleSince = 0;
    const deadline = Date.now() + 3_600_000;
    for (;;) {
      const depth = Number(/^workqueue_depth\{name="orchestrator"\} (\S+)$/m.exec(await scrape())?.[1]);
      idleSince = depth === 0 ? idleSince || Date.now() : 0;
      if (idleSince > 0 && Date.now() - idleSince > 5_000) break;
      if (Date.now() > deadline) throw new Error("the controller's queue did not drain within an hour");
      await new Promise((r) => setTimeout(r, 2_000));
    }
    const drained = Date.now() - t1;
    const hwmBurst = hwm();
    const burstText = await scrape();

    // Steady state: everything cached; one spec edit every 1/EDIT_RATE s, each timed from the
    // PATCH to the status reporting its generation.
    const editLatencies: number[] = [];
    const steadyEnd = Date.now() + STEADY_S * 1000;
    const edits: Promise<void>[] = [];
    for (let i = 0; Date.now() < steadyEnd; i++) {
      const name = `o-${Math.floor(Math.random() * N)}`;
      edits.push(
        (async () => {
          const t = Date.now();
          const patched = await client.mergePatch<StoredOrchestrator>(Orchestrators, "operated", name, {
            spec: { pricePerUnit: String(1000 + i) },
          });
          const generation = patched.metadata?.generation ?? 0;
          await waitFor(
            `${name} to observe generation ${generation}`,
            async () =>
              ((await client.get<StoredOrchestrator>(Orchestrators, "operated", name)).status
                ?.observedGeneration ?? 0) >= generation,
            120_000,
          );
          editLatencies.push((Date.now() - t) / 1000);
        })(),
      );
      await new Promise((r) => setTimeout(r, 1000 / EDIT_RATE));
    }
    await Promise.all(edits);
    const steadyText = await scrape();
    const hwmSteady = hwm();
    const text = steadyText;
    /** Upper bucket bounds holding the q-quantiles of the orchestrator controller's histogram. */
    const buckets = (from: string, metric: string) =>
      from
        .split("\n")
        .filter((l) => l.startsWith(`${metric}_bucket{`) && /(name|controller)="orchestrator"/.test(l))
        .map((l) => {
          const le = /le="([^"]+)"/.exec(l)?.[1] ?? "+Inf";
          return [
            le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le),
            Number(l.split(" ").at(-1)),
          ] as const;
        });
    /** Quantiles of a histogram, or of its growth between two scrapes (`since`). */
    const quantiles = (metric: string, qs: number[], at: string, since?: string) => {
      const before = since ? buckets(since, metric) : [];
      const counts = buckets(at, metric).map(([le, c], i) => [le, c - (before[i]?.[1] ?? 0)] as const);
      const total = counts.at(-1)?.[1] ?? 0;
      return { total, at: qs.map((q) => counts.find(([, c]) => c >= total * q)?.[0]) };
    };
    const wait = quantiles("workqueue_queue_duration_seconds", [0.5, 0.99], burstText);
    const work = quantiles("controller_runtime_reconcile_time_seconds", [0.5, 0.99], burstText);
    const steadyWait = quantiles("workqueue_queue_duration_seconds", [0.5, 0.99], steadyText, burstText);
    const steadyWork = quantiles(
      "controller_runtime_reconcile_time_seconds",
      [0.5, 0.99],
      steadyText,
      burstText,
    );
    /** Enqueues by cause between two scrapes (what kept the controller busy). */
    const causes = (at: string, since: string) => {
      const read = (t: string) =>
        new Map(
          [
            ...t.matchAll(
              /^livepeer_operator_enqueues_total\{controller="orchestrator",cause="([^"]+)"\} (\S+)$/gm,
            ),
          ].map((m) => [m[1]!, Number(m[2])] as const),
        );
      const before = read(since);
      return [...read(at)]
        .map(([cause, n]) => [cause, n - (before.get(cause) ?? 0)] as const)
        .filter(([, n]) => n > 0)
        .sort((a, b) => b[1] - a[1])
        .map(([cause, n]) => `${cause} ${n}`)
        .join(", ");
    };
    const sorted = editLatencies.sort((a, b) => a - b);
    const pct = (q: number) =>
      sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
    const gauge = (name: string) =>
      Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN) / 2 ** 20;
    const gaugeLabelled = (name: string, space: string) =>
      Number(new RegExp(`^${name}\\{space="${space}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN) /
      2 ** 20;
    const smaps = readFileSync(`/proc/${ctl.pid}/smaps_rollup`, "utf8");
    const rss =
      Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${ctl.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
    if (process.env.BENCH_HEAP_SNAPSHOT) {
      // The controller writes Heap.*.heapsnapshot into the working directory on SIGUSR2 when started
      // with NODE_OPTIONS=--heapsnapshot-signal=SIGUSR2 (for finding what holds memory).
      process.kill(ctl.pid, "SIGUSR2");
      await new Promise((r) => setTimeout(r, 20_000));
    }
    await ctl.stop();
    // The controller's own output (its log, and what V8 prints with --node-flags="--trace-gc").
    if (process.env.BENCH_CONTROLLER_LOG) writeFileSync(process.env.BENCH_CONTROLLER_LOG, ctl.log());
    const report: string[] = [];
    report.push(`controller: queue drained after:      ${(drained / 1000).toFixed(1)} s`);
    report.push(`controller peak RSS (VmHWM), burst:   ${hwmBurst.toFixed(0)} MB (until drained)`);
    report.push(`controller peak RSS (VmHWM), steady:  ${hwmSteady.toFixed(0)} MB (goal <= 200 MB at 5,000)`);
    report.push(`controller RSS at the end:            ${rss.toFixed(0)} MB`);
    report.push(
      `controller V8 heap used / total:      ${gauge("nodejs_heap_size_used_bytes").toFixed(0)} / ${gauge("nodejs_heap_size_total_bytes").toFixed(0)} MB`,
    );
    // Where the RSS that is not V8's heap goes: buffers outside the heap, and anonymous memory
    // (malloc arenas, thread stacks) against mapped files (the binary, shared libraries).
    const rollup = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(smaps)?.[1] ?? 0) / 1024;
    report.push(
      `controller external (outside heap):   ${gauge("nodejs_external_memory_bytes").toFixed(0)} MB (${(gaugeLabelled("nodejs_heap_space_size_used_bytes", "code") + gaugeLabelled("nodejs_heap_space_size_used_bytes", "large_object")).toFixed(0)} MB code + large objects in the heap)`,
    );
    report.push(
      `controller RSS anonymous / file:      ${rollup("Anonymous").toFixed(0)} / ${(rollup("Rss") - rollup("Anonymous")).toFixed(0)} MB at the end`,
    );
    const q = (x: { at: (number | undefined)[]; total: number }, what: string) =>
      `<= ${x.at[0]} s / <= ${x.at[1]} s over ${x.total} ${what}`;
    report.push(`burst: reconcile time p50 / p99:       ${q(work, "reconciles")}`);
    report.push(`burst: work-queue wait p50 / p99:      ${q(wait, "adds")} (throughput-bound)`);
    report.push(`burst: enqueues by cause:             ${causes(burstText, "")}`);
    report.push(`steady ${STEADY_S} s, ${EDIT_RATE} edit/s, ${N} cached:`);
    report.push(`  reconcile time p50 / p99:           ${q(steadyWork, "reconciles")}`);
    report.push(`  work-queue wait p50 / p99:          ${q(steadyWait, "adds")} (goal p99 < 1 s)`);
    report.push(`  enqueues by cause:                  ${causes(steadyText, burstText)}`);
    report.push(
      `  edit -> observedGeneration p50 / p99 / max: ${pct(0.5).toFixed(2)} / ${pct(0.99).toFixed(2)} / ${(sorted.at(-1) ?? Number.NaN).toFixed(2)} s over ${sorted.length} edits`,
    );
    return report;
  } finally {
    await c.cp.stop();
  }
}

const report = await lastControllerHalf();
if (!values["skip-bare"] && !lastBareFirst) bareHalves.push(await bareHalf());
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const fmtRequests = (requests: [string, number][]) =>
  requests
    .slice(0, 8)
    .map(([k, n]) => `${k} ${n.toFixed(2)}`)
    .join(", ");
const fmtCpu = (h: Half) =>
  h.cpu
    .filter(([, s]) => s >= 0.5)
    .map(([k, s]) => `${k} ${s.toFixed(0)}`)
    .join(", ");
const total = (requests: [string, number][]) => requests.reduce((n, [, w]) => n + w, 0);
const requestLines = (h: Half) => [
  `    API writes per object:             ${total(h.writes).toFixed(2)} (${fmtRequests(h.writes)})`,
  `    API reads per object:              ${total(h.reads).toFixed(2)} (${fmtRequests(h.reads)})`,
];
console.log(`orchestrators: ${N}, concurrency ${C}, ${Math.ceil((2 * N) / 100) + 1} fake nodes, 2 cores`);
console.log(`controller NODE_OPTIONS:              ${process.env.NODE_OPTIONS}`);
if (NODE_FLAGS.length) console.log(`controller node flags:               ${NODE_FLAGS.join(" ")}`);
console.log("each half on a control plane of its own; rounds alternate which half goes first");
const ratios: number[] = [];
for (let i = 0; i < controllerHalves.length; i++) {
  const ctlHalf = controllerHalves[i]!;
  const bare = bareHalves[i];
  console.log(`round ${i + 1}:`);
  if (bare) {
    console.log(`  bare children + pods Running:        ${bare.seconds.toFixed(1)} s`);
    for (const line of requestLines(bare)) console.log(line);
    console.log(`    CPU seconds:                       ${fmtCpu(bare)}`);
  }
  console.log(`  controller: generation + pods Running: ${ctlHalf.seconds.toFixed(1)} s`);
  for (const line of requestLines(ctlHalf)) console.log(line);
  console.log(`    CPU seconds:                       ${fmtCpu(ctlHalf)}`);
  if (bare) {
    ratios.push(ctlHalf.seconds / bare.seconds);
    console.log(`  ratio controller / bare:             ${ratios.at(-1)!.toFixed(2)}`);
  }
}
if (ratios.length > 0) {
  console.log(
    `ratio controller / bare:              ${median(ratios).toFixed(2)} (goal <= 1.15; median of ${ratios.length} round(s), spread ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`,
  );
}
for (const line of report) console.log(line);
