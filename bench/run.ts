// `npm run bench`: every benchmark in turn at a size that finishes in minutes on 2 cores, each in
// its own process, printing its own ratios. `npm run bench -- NAME [ARGS]` runs one, with its own
// arguments (see the header of bench/NAME.ts). Benchmarks are not tests: they print figures and
// never fail on a number.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startControlPlane } from "../src/dev/cluster/control-plane.ts";

const here = path.dirname(fileURLToPath(import.meta.url));

interface Benchmark {
  /** What it measures, one line. */
  what: string;
  /** Arguments of the quick run `npm run bench` makes. */
  quick: string[];
  nodeFlags?: string[];
  /** Measures against the cluster in KUBECONFIG (a local control plane is started when unset). */
  needsCluster?: boolean;
}

const BENCHMARKS: Record<string, Benchmark> = {
  orchestrators: {
    what: "Orchestrator controller vs a bare script applying the same children (ratio, peak RSS, steady queue wait)",
    quick: ["--count", "300", "--concurrency", "4", "--steady", "30"],
  },
  "api-get": {
    what: "webhook API GET vs a bare fastify route, POST vs direct Kubernetes writes",
    quick: ["--requests", "20000", "--creates", "400"],
  },
  "node-doctor": {
    what: "node doctor cost per node pod (requests and CPU per look, heap per pod)",
    quick: ["--pods", "1000"],
    nodeFlags: ["--expose-gc"],
  },
  "orchestrator-info": {
    what: "GetOrchestrator over gRPC/TLS (one kept HTTP/2 connection per node) vs the former JSON read, per node per period (CPU, requests, memory; ratio)",
    quick: ["--nodes", "1000", "--periods", "4"],
    nodeFlags: ["--expose-gc"],
  },
  "metrics-scrape": {
    what: "a /metrics scrape with N Orchestrators' per-object series vs the same series in prom-client Gauges (time, longest event-loop wait, heap; ratios)",
    quick: ["--orchestrators", "5000", "--scrapes", "5"],
    nodeFlags: ["--expose-gc"],
  },
  "chain-reads": {
    what: "chain checks of many Orchestrators on one RPC (requests/s to the RPC, CPU), shared vs not",
    quick: ["--orchestrators", "1000", "--period", "30", "--periods", "1"],
  },
  "chain-controller": {
    what: "the real controller's chain checks of 1,000 Orchestrators on one RPC (requests/s through a counting proxy, controller CPU) vs bare shared reads",
    quick: ["--orchestrators", "1000", "--period", "30", "--periods", "1"],
  },
  delivery: {
    what: "webhook delivery on SQLite and PostgreSQL vs a bare keep-alive POST loop (deliveries/s, ratio, p99 at half rate)",
    quick: ["--n", "5000", "--seconds", "5"],
  },
  "gateway-discovery": {
    what: "Orchestrator Ready -> a running gateway's pool (short refresh; the real node's 60 s is the floor), the discovery hook under 1,000 gateways vs a bare route (CPU/request, p99)",
    quick: ["--orchestrators", "5", "--refresh-ms", "1000", "--gateways", "1000", "--seconds", "30"],
  },
  "signer-auth": {
    what: "remote signers' auth webhook (JWT, decision, spend written behind to SQLite) vs a bare fastify route (decisions/s, ratio, p99 at half the peak rate)",
    quick: ["--concurrency", "8", "--seconds", "5"],
  },
  "remote-signer-signatures": {
    what: "the simulated remote signer's ECDSA signatures per second: bare, over /sign-orchestrator-info, and per live payment (a figure)",
    quick: ["--seconds", "2", "--concurrency", "8"],
  },
  "live-ai": {
    what: "spec.ai.live: apply -> first SDK session accepted at a runner warm-up of 0 and 30 s; the controller's CPU and heap per live runner per period at 1,000 runners vs a bare GET /health",
    quick: ["--warm-ups", "0,30", "--runners", "1000"],
    nodeFlags: ["--expose-gc"],
  },
  transport: {
    what: "the Kubernetes client's transport vs client-node's stock client",
    quick: ["--n", "1000", "--concurrency", "16"],
    needsCluster: true,
  },
};

function run(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const b = BENCHMARKS[name]!;
  const file = path.join(here, `${name}.ts`);
  process.stdout.write(
    `\n== ${name}: ${b.what}\n   node ${path.relative(process.cwd(), file)} ${args.join(" ")}\n`,
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(b.nodeFlags ?? []), file, ...args], { stdio: "inherit", env });
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function runWithCluster(name: string, args: string[]): Promise<number> {
  if (!BENCHMARKS[name]!.needsCluster || process.env.KUBECONFIG) return run(name, args, process.env);
  const cp = await startControlPlane({ progress: (l) => process.stderr.write(`${l}\n`) });
  try {
    return await run(name, args, { ...process.env, KUBECONFIG: cp.kubeconfig });
  } finally {
    await cp.stop();
  }
}

async function main(): Promise<number> {
  const [name, ...args] = process.argv.slice(2);
  if (name === "--help" || name === "-h") {
    process.stdout.write(
      `usage: npm run bench [-- NAME [ARGS]]\n\n${Object.entries(BENCHMARKS)
        .map(([n, b]) => `  ${n.padEnd(14)} ${b.what}\n${" ".repeat(17)}quick: ${b.quick.join(" ")}`)
        .join("\n")}\n`,
    );
    return 0;
  }
  if (name) {
    if (!BENCHMARKS[name]) {
      process.stderr.write(`no benchmark "${name}": choose one of ${Object.keys(BENCHMARKS).join(", ")}\n`);
      return 2;
    }
    return runWithCluster(name, args);
  }
  let failed = 0;
  for (const [n, b] of Object.entries(BENCHMARKS)) if ((await runWithCluster(n, b.quick)) !== 0) failed++;
  if (failed) process.stderr.write(`${failed} benchmark(s) did not finish; see their output above\n`);
  return failed ? 1 : 0;
}

process.exitCode = await main();
