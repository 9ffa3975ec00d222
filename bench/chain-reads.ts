// What the chain checks cost with many nodes on one RPC, measured in one run against a real dev
// chain (hardhat, the real protocol contracts, the round ticker at a block a second). N
// Orchestrators - the devnet's registered ones and unregistered accounts, which read the same
// per-node calls plus the pool - are each checked once per period, spread evenly over it, as the
// node doctor spreads its looks, through one shared ChainReads with the production defaults.
// Prints HTTP requests and JSON-RPC calls per second to the RPC and per resource per period,
// and this process's CPU (the chain and the ticker run in their own processes); then the same
// checks each with a fresh ChainReads (nothing shared) for comparison. Not a test.
//
//   node bench/chain-reads.ts [--orchestrators 1000] [--period 30] [--periods 2]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { devnetDown, devnetUp } from "../src/devnet/index.ts";
import { ChainReads, checkNodeChain, type NodeChainTarget } from "../src/node/chain/index.ts";

const { values } = parseArgs({
  options: {
    orchestrators: { type: "string", default: "1000" },
    period: { type: "string", default: "30" },
    periods: { type: "string", default: "2" },
    unshared: { type: "string", default: "50" },
  },
});
const N = Number(values.orchestrators);
const PERIOD_MS = Number(values.period) * 1000;
const PERIODS = Number(values.periods);

const dir = mkdtempSync(path.join(tmpdir(), "chain-bench-"));
const state = await devnetUp({ dir, port: 0, detached: false, blockIntervalMs: 1000 });
try {
  const base = {
    role: "orchestrator" as const,
    network: "devnet",
    ethUrl: state.url,
    controller: state.contracts.Controller,
    chainId: state.chainId,
    secondsPerRoundBlock: 1,
  };
  const registered = state.accounts.filter((a) => a.role === "orchestrator");
  const targets: NodeChainTarget[] = Array.from({ length: N }, (_, i) => ({
    ...base,
    address: registered[i]?.address ?? `0x${(0xbeef0000 + i).toString(16).padStart(40, "0")}`,
    serviceAddr: `127.0.0.1:${8935 + i}`,
  }));

  // Shared: one ChainReads, N checks spread over each period.
  const reads = new ChainReads();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const pending: Promise<unknown>[] = [];
  let errors = 0;
  for (let p = 0; p < PERIODS; p++) {
    for (let i = 0; i < N; i++) {
      const due = t0 + p * PERIOD_MS + (i * PERIOD_MS) / N;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(
        checkNodeChain(reads, targets[i]!).then((c) => {
          if (c.conditions[0]?.status !== "True") errors++;
        }),
      );
    }
  }
  await Promise.all(pending);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const [stats] = reads.stats();
  const checks = N * PERIODS;
  process.stdout.write(
    [
      `shared ChainReads, ${N} orchestrators on one RPC, each checked every ${PERIOD_MS / 1000} s, ${PERIODS} periods (${seconds.toFixed(1)} s):`,
      `  HTTP requests to the RPC: ${stats!.httpRequests} = ${(stats!.httpRequests / seconds).toFixed(1)}/s, ${(stats!.httpRequests / checks).toFixed(3)} per resource per period`,
      `  JSON-RPC calls:           ${stats!.calls} = ${(stats!.calls / seconds).toFixed(1)}/s, ${(stats!.calls / checks).toFixed(2)} per resource per period (cache hits ${stats!.cacheHits})`,
      `  CPU of this process:      ${cpuMs.toFixed(0)} ms = ${((cpuMs / 1000 / seconds) * 100).toFixed(1)}% of a core, ${(cpuMs / checks).toFixed(2)} ms per check`,
      `  checks whose ChainHealthy was not True: ${errors}`,
    ].join("\n") + "\n",
  );

  // Unshared: a fresh ChainReads per check, one at a time.
  const M = Math.min(N, Number(values.unshared));
  let requests = 0;
  let calls = 0;
  const cpu1 = process.cpuUsage();
  for (let i = 0; i < M; i++) {
    const own = new ChainReads();
    await checkNodeChain(own, targets[i]!);
    requests += own.stats()[0]!.httpRequests;
    calls += own.stats()[0]!.calls;
  }
  const cpuOwn = process.cpuUsage(cpu1);
  process.stdout.write(
    [
      `unshared (a fresh ChainReads per check), ${M} checks:`,
      `  ${(requests / M).toFixed(2)} HTTP requests and ${(calls / M).toFixed(2)} calls per check, ${((cpuOwn.user + cpuOwn.system) / 1000 / M).toFixed(2)} ms CPU per check`,
      `  sharing saves ${((1 - stats!.calls / checks / (calls / M)) * 100).toFixed(0)}% of the calls and ${((1 - stats!.httpRequests / checks / (requests / M)) * 100).toFixed(0)}% of the requests`,
    ].join("\n") + "\n",
  );
} finally {
  await devnetDown({ dir });
  rmSync(dir, { recursive: true, force: true });
}
