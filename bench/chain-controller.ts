// What the controller's chain checks cost with many Orchestrators on one RPC, measured in one
// run: a real devnet (hardhat, the real protocol contracts, a block a second) behind a counting
// proxy, its deployment ConfigMap pointing at the proxy, a real local control plane and the real
// `livepeer-operator controller` process with N on-chain Orchestrators (the devnet's registered
// ones and unregistered accounts). The chain watch needs no node pod: it checks each resource
// from the flags it plans, so the pods stay Pending (no node pool) and the node doctor reads
// nothing - what the controller spends over the window is the chain watch and what its reports
// wake. First, as a baseline, the same Orchestrators without an account address (nothing read
// on chain: the controller's own cost of holding them); then, once every Orchestrator with its
// address shows ChainHealthy=True, over --periods doctor periods:
//   - HTTP requests and JSON-RPC calls per second to the RPC (counted by the proxy) and per
//     resource per period,
//   - the controller's CPU (/proc/<pid>/stat), per resource per period;
// then the same N checks made bare in this process (one shared ChainReads, spread over the
// period as bench/chain-reads.ts does) through the same proxy, for comparison. Not a test.
//
//   node bench/chain-controller.ts [--orchestrators 1000] [--period 30] [--periods 2] [--skip-baseline]
//                                  [--round-length 50]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { runKubectl, startControlPlane } from "../src/dev/cluster/control-plane.ts";
import { waitFor } from "../src/dev/cluster/process.ts";
import { devnetConfigMapJson } from "../src/dev/devnet-configmap.ts";
import { devnetDown, devnetUp } from "../src/devnet/index.ts";
import { KubeClient, PooledKubeConfig } from "../src/kube/index.ts";
import { ChainReads, checkNodeChain, type NodeChainTarget } from "../src/node/chain/index.ts";
import type { StoredOrchestrator } from "../src/schema/orchestrator.ts";
import { Orchestrators } from "../src/schema/resources.ts";
import { startController } from "../test/integration/support/controller-process.ts";

const { values } = parseArgs({
  options: {
    orchestrators: { type: "string", default: "1000" },
    period: { type: "string", default: "30" },
    periods: { type: "string", default: "2" },
    "skip-baseline": { type: "boolean", default: false },
    // Blocks per round (a block a second): a round that passes in the window writes every
    // Orchestrator once (its reward state is news); longer rounds show the steady state.
    "round-length": { type: "string", default: "50" },
  },
});
const N = Number(values.orchestrators);
const PERIOD_S = Number(values.period);
const PERIODS = Number(values.periods);
const NS = "chain-bench";
/** Linux reports process CPU in clock ticks of 1/100 s. */
const TICKS_PER_SECOND = 100;

/** A loopback JSON-RPC proxy that counts what passes: HTTP requests and the calls in them. */
async function countingProxy(upstream: string) {
  const counts = { requests: 0, calls: 0 };
  const body = (req: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      let text = "";
      req.on("data", (d: Buffer) => {
        text += d.toString();
      });
      req.on("end", () => resolve(text));
      req.on("error", reject);
    });
  const server = createServer(async (req, res) => {
    const text = await body(req);
    counts.requests++;
    try {
      const parsed = JSON.parse(text) as unknown;
      counts.calls += Array.isArray(parsed) ? parsed.length : 1;
    } catch {
      counts.calls++;
    }
    try {
      const answer = await fetch(upstream, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: text,
      });
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(await answer.text());
    } catch (err) {
      res.writeHead(502);
      res.end((err as Error).message);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    counts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The leaf paths whose values differ between two objects ("status.x.y: a -> b"), metadata aside. */
function changedFields(a: unknown, b: unknown, at = ""): string[] {
  if (at === "metadata") return [];
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => changedFields(a[k], b[k], at ? `${at}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b)
    ? []
    : [`${at}: ${JSON.stringify(a)} -> ${JSON.stringify(b)}`];
}

function cpuSecondsOf(pid: number): number {
  // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

const dir = mkdtempSync(path.join(tmpdir(), "chain-controller-bench-"));
const state = await devnetUp({
  dir,
  port: 0,
  detached: false,
  blockIntervalMs: 1000,
  roundLength: Number(values["round-length"]),
});
const proxy = await countingProxy(state.url);
const cp = await startControlPlane({});
let controller: ReturnType<typeof startController> | undefined;
try {
  const kc = new PooledKubeConfig();
  kc.loadFromFile(cp.kubeconfig);
  const client = new KubeClient(kc);
  const kubectl = (args: string[], input?: string) =>
    runKubectl(cp.binaries.kubectl, cp.kubeconfig, args, input);
  await kubectl(["apply", "--server-side", "-f", "deploy/crds/"]);
  await kubectl(["wait", "--for=condition=Established", "crd/orchestrators.livepeer.org"]);
  await kubectl(["create", "namespace", NS]);
  await kubectl(
    ["apply", "--server-side", "-f", "-"],
    devnetConfigMapJson({ dir, name: "dn", namespace: NS, ethUrl: proxy.url }),
  );
  await kubectl(
    ["apply", "--server-side", "-f", "-"],
    JSON.stringify({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "ks", namespace: NS },
      stringData: { "key.json": "{}", password: "dev" },
    }),
  );
  const registered = state.accounts.filter((a) => a.role === "orchestrator");
  const address = (i: number) =>
    registered[i]?.address ?? `0x${(0xbeef0000 + i).toString(16).padStart(40, "0")}`;

  controller = startController("chain-bench", [
    `--kubeconfig=${cp.kubeconfig}`,
    `--namespace=${NS}`,
    "--leader-elect=false",
    `--node-doctor-period=${PERIOD_S}`,
    "--controllers=orchestrator",
  ]);
  const items = (withAccount: boolean) =>
    Array.from({ length: N }, (_, i) => ({
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Orchestrator",
      metadata: { name: `o-${i}`, namespace: NS },
      spec: {
        network: "devnet",
        devnet: "dn",
        keystoreSecret: "ks",
        ...(withAccount ? { ethAcctAddr: address(i) } : {}),
        serviceAddr: `127.0.0.1:${8935 + i}`,
        pricePerUnit: "1000",
      },
    }));
  const apply = async (withAccount: boolean) => {
    const all = items(withAccount);
    for (let i = 0; i < N; i += 500) {
      await kubectl(
        ["apply", "--server-side", "-f", "-"],
        JSON.stringify({ apiVersion: "v1", kind: "List", items: all.slice(i, i + 500) }),
      );
    }
  };
  /** Waits until every Orchestrator's ChainHealthy has `status` (and `reason`, when given). */
  const until = async (status: string, reason?: string) => {
    let count = 0;
    await waitFor(
      `${N} Orchestrators with ChainHealthy=${status}`,
      async () => {
        const list = await client.list<StoredOrchestrator>(Orchestrators, { namespace: NS });
        count = list.items.filter((o) =>
          o.status?.conditions?.some(
            (c) => c.type === "ChainHealthy" && c.status === status && (!reason || c.reason === reason),
          ),
        ).length;
        if (count < N) await new Promise((r) => setTimeout(r, 2_000));
        return count === N;
      },
      1_800_000,
      () => `${count} of ${N}`,
    );
  };
  const windowS = PERIOD_S * PERIODS;
  /** What the controller and the RPC do over the window, one settling period after convergence. */
  const metrics = await controller.metricsUrl();
  const wakes = async () =>
    Number(
      /^livepeer_operator_enqueues_total\{controller="orchestrator",cause="wake"\} (\S+)$/m.exec(
        await (await fetch(`${metrics}/metrics`)).text(),
      )?.[1] ?? 0,
    );
  const snapshot = async () =>
    new Map(
      (await client.list<StoredOrchestrator>(Orchestrators, { namespace: NS })).items.map((o) => [
        o.metadata?.name,
        o,
      ]),
    );
  const measure = async (pid: number) => {
    await new Promise((r) => setTimeout(r, PERIOD_S * 1000));
    const before0 = await snapshot();
    const woken = await wakes();
    const before = { ...proxy.counts, cpu: cpuSecondsOf(pid), at: performance.now() };
    await new Promise((r) => setTimeout(r, windowS * 1000));
    const cpu = cpuSecondsOf(pid) - before.cpu;
    const seconds = (performance.now() - before.at) / 1000;
    const requests = proxy.counts.requests - before.requests;
    const calls = proxy.counts.calls - before.calls;
    const after = await snapshot();
    const written = [...after].filter(
      ([name, o]) => before0.get(name)?.metadata?.resourceVersion !== o.metadata?.resourceVersion,
    );
    return {
      requests,
      calls,
      cpu,
      seconds,
      wakes: (await wakes()) - woken,
      /** Orchestrators whose object (status included) was written in the window. */
      written: written.length,
      /** What changed in the first written Orchestrator: why it was written. */
      example: written[0] ? changedFields(before0.get(written[0][0]), written[0][1]) : [],
    };
  };

  // Baseline: the same N Orchestrators without an account address, so nothing is read on chain
  // (ChainHealthy Unknown, NoAccountAddress): the controller's own cost of holding them.
  let idle: Awaited<ReturnType<typeof measure>> | undefined;
  if (!values["skip-baseline"]) {
    await apply(false);
    await until("Unknown", "NoAccountAddress");
    idle = await measure(controller.pid);
  }
  const t0 = Date.now();
  await apply(true);
  await until("True");
  const converged = (Date.now() - t0) / 1000;
  const measured = await measure(controller.pid);
  const seconds = measured.seconds;
  const checks = N * (seconds / PERIOD_S);
  const ctl = measured;
  await controller.stop();
  controller = undefined;

  // Bare: the same N checks in this process, one shared ChainReads, spread over each period.
  const base = {
    role: "orchestrator" as const,
    network: "devnet",
    ethUrl: proxy.url,
    controller: state.contracts.Controller,
    chainId: state.chainId,
  };
  const targets: NodeChainTarget[] = Array.from({ length: N }, (_, i) => ({
    ...base,
    address: address(i),
    serviceAddr: `127.0.0.1:${8935 + i}`,
  }));
  const reads = new ChainReads();
  // A first pass fills the contract-address cache, as the controller's had been.
  await Promise.all(targets.map((t) => checkNodeChain(reads, t)));
  const bareBefore = { ...proxy.counts, cpu: process.cpuUsage(), at: performance.now() };
  const pending: Promise<unknown>[] = [];
  for (let p = 0; p < PERIODS; p++) {
    for (let i = 0; i < N; i++) {
      const due = bareBefore.at + (p * PERIOD_S * 1000 + (i * PERIOD_S * 1000) / N);
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(checkNodeChain(reads, targets[i]!));
    }
  }
  await Promise.all(pending);
  const bareSeconds = (performance.now() - bareBefore.at) / 1000;
  const bareCpu = process.cpuUsage(bareBefore.cpu);
  const bare = {
    requests: proxy.counts.requests - bareBefore.requests,
    calls: proxy.counts.calls - bareBefore.calls,
    cpu: (bareCpu.user + bareCpu.system) / 1e6,
  };
  const bareChecks = N * PERIODS;

  const line = (
    what: string,
    m: { requests: number; calls: number; cpu: number },
    s: number,
    perPeriod: number,
  ) =>
    [
      `${what} (${s.toFixed(1)} s):`,
      `  HTTP requests to the RPC: ${m.requests} = ${(m.requests / s).toFixed(1)}/s, ${(m.requests / perPeriod).toFixed(3)} per resource per period`,
      `  JSON-RPC calls:           ${m.calls} = ${(m.calls / s).toFixed(1)}/s, ${(m.calls / perPeriod).toFixed(3)} per resource per period`,
      `  CPU:                      ${(m.cpu * 1000).toFixed(0)} ms = ${((m.cpu / s) * 100).toFixed(1)}% of a core, ${((m.cpu * 1000) / perPeriod).toFixed(3)} ms per resource per period`,
    ].join("\n");
  console.log(
    `${N} on-chain Orchestrators on one RPC (devnet, a block a second, ${values["round-length"]} blocks a round), doctor period ${PERIOD_S} s, ${PERIODS} periods; 2 shared cores`,
  );
  console.log(
    `controller: every Orchestrator ChainHealthy=True ${converged.toFixed(1)} s after the apply${idle ? " of their account addresses" : ""}`,
  );
  if (idle) {
    console.log(
      line(
        "the controller process holding the same Orchestrators without chain reads (no account address)",
        idle,
        idle.seconds,
        N * (idle.seconds / PERIOD_S),
      ),
    );
  }
  console.log(
    line("the controller process (chain watch, its wakes, everything else it does)", ctl, seconds, checks),
  );
  for (const [what, m] of [
    ["baseline", idle],
    ["with chain reads", ctl],
  ] as const) {
    if (!m) continue;
    const periods = m.seconds / PERIOD_S;
    console.log(
      `  ${what}: wakes ${m.wakes} = ${(m.wakes / N / periods).toFixed(2)} per resource per period; Orchestrators written in the window: ${m.written} of ${N}`,
    );
    for (const change of m.example) console.log(`    changed in the first one written: ${change}`);
  }
  console.log(
    line("bare checks in one process (shared ChainReads, no Kubernetes)", bare, bareSeconds, bareChecks),
  );
  if (idle) {
    const chainCpu = ctl.cpu / checks - idle.cpu / (N * (idle.seconds / PERIOD_S));
    console.log(
      `controller, chain share (minus the baseline): ${(chainCpu * 1000).toFixed(3)} ms CPU per resource per period = ${(chainCpu / (bare.cpu / bareChecks)).toFixed(2)} x the bare reads`,
    );
  }
  console.log(
    `controller / bare: requests ${(ctl.requests / checks / (bare.requests / bareChecks)).toFixed(2)}, CPU ${(ctl.cpu / checks / (bare.cpu / bareChecks)).toFixed(2)} (per resource per period)`,
  );
} finally {
  await controller?.stop();
  await cp.stop();
  await proxy.close();
  await devnetDown({ dir });
  rmSync(dir, { recursive: true, force: true });
}
