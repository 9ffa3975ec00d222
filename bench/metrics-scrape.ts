// What a /metrics scrape of the controller costs with N Orchestrators' per-object series (9
// conditions, 2 findings, 4 status facts each, as the status writers set them): the runtime's
// registry (ObjectGauge rendered by ObjectGaugeRegistry) against the bare way, the same series in
// prom-client Gauges in a plain Registry. Prints per scrape the time, the longest the event loop
// waited meanwhile (a 1 ms ticker) and the heap the series hold, as ratios ours / bare; the
// largest piece a streamed scrape (the health server's) holds at once; and checks that both
// scrapes say the same. Not a test.
//
//   node --expose-gc bench/metrics-scrape.ts [--orchestrators 5000] [--scrapes 10]
import { parseArgs } from "node:util";
import { Gauge, Registry } from "prom-client";
import { RuntimeMetrics } from "../src/controller/runtime/metrics.ts";
import type { ObjectGaugeRegistry } from "../src/controller/runtime/object-gauge.ts";

const { values } = parseArgs({
  options: {
    orchestrators: { type: "string", default: "5000" },
    scrapes: { type: "string", default: "10" },
  },
});
const N = Number(values.orchestrators);
const SCRAPES = Number(values.scrapes);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) console.error("(run with node --expose-gc for the heap figures)");

const CONDITIONS: [string, string, string][] = [
  ["Ready", "True", "Serving"],
  ["Scheduled", "True", "Placed"],
  ["ChainHealthy", "True", "Healthy"],
  ["Registered", "True", "Active"],
  ["RolloutPending", "False", "UpToDate"],
  ["NodeHealthy", "True", "Answering"],
  ["PricesLive", "True", "Set"],
  ["Degraded", "False", "NoFindings"],
  ["RewardCalled", "True", "ThisRound"],
];

function seriesOf(i: number) {
  return {
    object: { kind: "Orchestrator", namespace: `ns-${i % 20}`, name: `orchestrator-${i}` },
    conditions: CONDITIONS.map(([type, status, reason]) => ({ type, status, reason })),
    findings: [
      { id: "LowDeposit", severity: "warning" },
      { id: i % 3 ? "StaleTicketParams" : "NoRewardCall", severity: "info" },
    ],
    facts: { maxSessions: 10 + (i % 7), deposit: 0.25 + i / 1e4, reserve: 0.1, balance: 1.5 },
  };
}

function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

function ours(): { registry: Registry; heap: number } {
  const before = heapUsed();
  const m = new RuntimeMetrics({ processMetrics: false });
  const f = m.findingsMetrics();
  for (let i = 0; i < N; i++) {
    const s = seriesOf(i);
    f.set(s.object, s.findings);
    f.conditions?.(s.object, s.conditions);
    f.facts?.(s.object, s.facts);
  }
  return { registry: m.registry, heap: heapUsed() - before };
}

function bare(): { registry: Registry; heap: number } {
  const before = heapUsed();
  const registry = new Registry();
  // The runtime's other metrics, so both scrapes render the same text.
  new RuntimeMetrics({ processMetrics: false }).registry.getMetricsAsArray().forEach((metric) => {
    if (
      ![
        "livepeer_operator_findings",
        "livepeer_operator_condition",
        "livepeer_operator_status_fact",
      ].includes(metric.name)
    )
      registry.registerMetric(metric as unknown as Parameters<Registry["registerMetric"]>[0]);
  });
  const obj = ["kind", "namespace", "name"] as const;
  const findings = new Gauge({
    name: "livepeer_operator_findings",
    help: helpOf("livepeer_operator_findings"),
    labelNames: [...obj, "id", "severity"],
    registers: [registry],
  });
  const conditions = new Gauge({
    name: "livepeer_operator_condition",
    help: helpOf("livepeer_operator_condition"),
    labelNames: [...obj, "type", "status", "reason"],
    registers: [registry],
  });
  const facts = new Gauge({
    name: "livepeer_operator_status_fact",
    help: helpOf("livepeer_operator_status_fact"),
    labelNames: [...obj, "fact"],
    registers: [registry],
  });
  for (let i = 0; i < N; i++) {
    const s = seriesOf(i);
    for (const f of s.findings) findings.set({ ...s.object, ...f }, 1);
    for (const c of s.conditions) conditions.set({ ...s.object, ...c }, 1);
    for (const [fact, value] of Object.entries(s.facts)) facts.set({ ...s.object, fact }, value);
  }
  return { registry, heap: heapUsed() - before };
}

const helps = new Map(
  new RuntimeMetrics({ processMetrics: false }).registry
    .getMetricsAsArray()
    .map((m) => [m.name, (m as unknown as { help: string }).help]),
);
function helpOf(name: string): string {
  return helps.get(name) ?? "";
}

async function scrape(registry: Registry): Promise<{ ms: number[]; stallMs: number[]; text: string }> {
  const ms: number[] = [];
  const stallMs: number[] = [];
  let text = "";
  for (let r = 0; r < SCRAPES; r++) {
    // A 1 ms ticker: the longest gap between its ticks is the longest the event loop was held.
    let last = performance.now();
    let longest = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 1);
    const t0 = performance.now();
    text = await registry.metrics();
    ms.push(performance.now() - t0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    clearInterval(tick);
    stallMs.push(longest);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { ms, stallMs, text };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sortedLines = (t: string) => t.split("\n").sort().join("\n");

const a = ours();
const b = bare();
// Alternated, so the machine's drift lands on both.
const oursRuns: Awaited<ReturnType<typeof scrape>>[] = [];
const bareRuns: Awaited<ReturnType<typeof scrape>>[] = [];
for (let round = 0; round < 2; round++) {
  oursRuns.push(await scrape(a.registry));
  bareRuns.push(await scrape(b.registry));
}
const o = {
  ms: oursRuns.flatMap((r) => r.ms),
  stall: oursRuns.flatMap((r) => r.stallMs),
  text: oursRuns[0]!.text,
};
const p = {
  ms: bareRuns.flatMap((r) => r.ms),
  stall: bareRuns.flatMap((r) => r.stallMs),
  text: bareRuns[0]!.text,
};
const lines = o.text.split("\n").length;
const fmt = (x: number) => x.toFixed(1);
console.log(
  `${N} Orchestrators, ${lines} lines (${(o.text.length / 1e6).toFixed(1)} MB) per scrape, ${2 * SCRAPES} scrapes each`,
);
console.log(`same text (lines sorted): ${sortedLines(o.text) === sortedLines(p.text) ? "yes" : "NO"}`);
console.log(
  `scrape time, median: ours ${fmt(median(o.ms))} ms, prom-client ${fmt(median(p.ms))} ms, ratio ${(median(o.ms) / median(p.ms)).toFixed(2)}`,
);
console.log(
  `longest event-loop wait during a scrape, median: ours ${fmt(median(o.stall))} ms, prom-client ${fmt(median(p.stall))} ms, ratio ${(median(o.stall) / median(p.stall)).toFixed(2)}`,
);
// What a streamed scrape (the health server's) holds at once: its largest piece.
let largest = 0;
for await (const piece of (a.registry as ObjectGaugeRegistry).chunks())
  largest = Math.max(largest, piece.length);
console.log(
  `streamed scrape: largest piece ${(largest / 1e6).toFixed(2)} MB of ${(o.text.length / 1e6).toFixed(1)} MB (prom-client holds the whole text)`,
);
if (gc) {
  console.log(
    `heap held by the series: ours ${(a.heap / 1e6).toFixed(1)} MB, prom-client ${(b.heap / 1e6).toFixed(1)} MB, ratio ${(a.heap / b.heap).toFixed(2)}`,
  );
}
