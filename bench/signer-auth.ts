// How long a remote signer waits on the operator's auth webhook (-remoteSignerWebhookUrl): the
// API's hook (JWT check, decision, spend counted and written behind to a real SQLite delivery
// store) against a bare fastify route on the same server that parses the same body and answers
// a fixed {status: 200}, both over keep-alive HTTP. First closed-loop with C calls in flight for
// S seconds, three interleaved rounds each (decisions/s and the ratio hook/bare, median of the
// rounds; goal >= 0.8; also calls per CPU second of this process, which the machine's other load
// does not move), then open-loop at half the hook's peak rate for S seconds, the bare route and
// the hook (p99; goal < 10 ms for the hook, the bare route's p99 is the floor). Calls spread over
// 1,000 live sessions of 10 tenants with budgets, each call a session's next payment.
//
//   node bench/signer-auth.ts [--concurrency 8] [--seconds 5]
//   node --cpu-prof bench/signer-auth.ts --only hook   (one route alone, one round: for a profile)
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Registry } from "prom-client";
import { createBaseApp } from "../src/api/app.ts";
import { mintToken } from "../src/api/auth/mint.ts";
import { TokenVerifier } from "../src/api/auth/verifier.ts";
import { openDeliveryStore } from "../src/api/delivery/store/open-store.ts";
import { sqliteSpendWriterFor } from "../src/api/delivery/store/sqlite-spend-writer.ts";
import { SignerAuthMetrics } from "../src/api/signer-auth/metrics.ts";
import { signerAuthRoutes } from "../src/api/signer-auth/routes.ts";
import { SpendLedger } from "../src/api/signer-auth/spend-ledger.ts";
import { signerPolicy } from "../src/api/signer-auth/tenant-policy.ts";
import { http } from "../src/process/builtin-http.ts";
import { hookTokenDigest, remoteSignerAuthHookPath } from "../src/schema/node-hooks.ts";

const { values } = parseArgs({
  options: {
    concurrency: { type: "string", default: "8" },
    seconds: { type: "string", default: "5" },
    only: { type: "string" },
  },
});
const concurrency = Number(values.concurrency);
const seconds = Number(values.seconds);
const hookToken = "c".repeat(43);
const secret = new TextEncoder().encode("s".repeat(48));
const TENANTS = 10;
const SESSIONS = 1_000;

const dir = mkdtempSync(path.join(os.tmpdir(), "signer-auth-bench-"));
const store = await openDeliveryStore({ backend: "sqlite", file: path.join(dir, "delivery.sqlite") });
// As the API runs it: on SQLite the spend is written from a thread of its own.
const spendWriter = sqliteSpendWriterFor(store);
const ledger = new SpendLedger(store, spendWriter ? { write: (batch) => spendWriter.write(batch) } : {});
await ledger.load();
const registry = new Registry();
const tenants = Array.from({ length: TENANTS }, (_, i) => ({
  name: `tenant-${i}`,
  maxPrice: { live: "5000" },
  budget: { perDay: "1000000000000000000000", perStream: "1000000000000000000" },
}));
const signer = {
  policy: signerPolicy("video", "signer", { authCacheSeconds: 60, tenants }),
  hookTokenDigest: hookTokenDigest(hookToken),
};
const app = createBaseApp({ prefix: "/api", bodyLimit: 64 * 1024, log: { level: "warn" } });
await app.register(signerAuthRoutes, {
  signers: { synced: () => true, get: () => signer },
  verifier: new TokenVerifier({ secret }),
  ledger,
  metrics: new SignerAuthMetrics(registry),
});
app.post("/bare", async (req) => {
  const body = req.body as { headers?: unknown; state?: unknown };
  return { status: body.headers && body.state ? 200 : 400 };
});
await app.listen({ host: "127.0.0.1", port: 0 });
const port = (app.server.address() as AddressInfo).port;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency * 4 });
const tokens = await Promise.all(
  tenants.map((t) => mintToken({ secret, sub: t.name, scope: "sign", ttlSeconds: 3600 })),
);
const seq = new Array<number>(SESSIONS).fill(0);
const started = new Date().toISOString();

/** A session's next payment, as GenerateLivePayment sends it. */
function body(i: number): string {
  const s = i % SESSIONS;
  const n = seq[s]!++;
  return JSON.stringify({
    headers: { "Content-Type": ["application/json"], Authorization: [`Bearer ${tokens[s % TENANTS]}`] },
    state: {
      StateID: `session-${s}`,
      PMSessionID: "pm",
      LastUpdate: n === 0 ? started : new Date().toISOString(),
      OrchestratorAddress: "0x1234567890123456789012345678901234567890",
      App: "",
      AuthExpiry: 0,
      SenderNonce: n,
      Balance: "1500/1",
      InitialPricePerUnit: 1000,
      InitialPixelsPerUnit: 1,
      Type: "live",
      SequenceNumber: n,
      AuthID: n === 0 ? "" : `tenant-${s % TENANTS}`,
    },
  });
}

function post(pathAndQuery: string, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: pathAndQuery,
        method: "POST",
        agent,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          res.statusCode === 200
            ? resolve(Buffer.concat(chunks).toString())
            : reject(new Error(`HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const quantile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;

interface Round {
  rate: number;
  /** CPU time of this process (client, server, the store's threads) per call, in µs. */
  cpuUs: number;
  /** CPU time of the event loop's thread (client and server; not the store's threads) per call, in µs. */
  threadUs: number;
  p99: number;
}

function report(label: string, latencies: number[], elapsedS: number, cpu: Cpu): Round {
  latencies.sort((a, b) => a - b);
  const rate = latencies.length / elapsedS;
  const perCall = cpu.process / Math.max(1, latencies.length);
  const threadUs = cpu.thread / Math.max(1, latencies.length);
  const p99 = quantile(latencies, 0.99);
  console.log(
    `${label}: ${rate.toFixed(0)} calls/s, ${perCall.toFixed(0)} µs CPU a call (${threadUs.toFixed(0)} on the event loop's thread), p50 ${quantile(latencies, 0.5).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, max ${quantile(latencies, 1).toFixed(2)} ms`,
  );
  return { rate, cpuUs: perCall, threadUs, p99 };
}

interface Cpu {
  process: number;
  thread: number;
}
const since = (c: Cpu): Cpu => {
  const now = cpuNow();
  return { process: now.process - c.process, thread: now.thread - c.thread };
};
const cpuNow = (): Cpu => {
  const t = process.threadCpuUsage();
  return { process: processCpu(), thread: t.user + t.system };
};
const processCpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function closedLoop(label: string, target: string): Promise<Round> {
  const latencies: number[] = [];
  let n = 0;
  const t0 = performance.now();
  const cpu0 = cpuNow();
  const until = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const payload = body(n++);
        const t = performance.now();
        const answer = await post(target, payload);
        if (!answer.startsWith('{"status":200')) throw new Error(`${label}: ${answer}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return report(label, latencies, (performance.now() - t0) / 1000, since(cpu0));
}

async function openLoop(label: string, target: string, rate: number): Promise<Round> {
  // How long the event loop was held (this process's own stalls: GC, a store write) vs the tail.
  const stalls = monitorEventLoopDelay({ resolution: 1 });
  stalls.enable();
  const latencies: number[] = [];
  const inFlight: Promise<void>[] = [];
  const t0 = performance.now();
  const cpu0 = cpuNow();
  let sent = 0;
  let n = 0;
  while (performance.now() - t0 < seconds * 1000) {
    const due = Math.floor(((performance.now() - t0) / 1000) * rate);
    for (; sent < due; sent++) {
      const t = performance.now();
      inFlight.push(
        post(target, body(n++)).then((answer) => {
          if (!answer.startsWith('{"status":200')) throw new Error(`${label}: ${answer}`);
          latencies.push(performance.now() - t);
        }),
      );
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(inFlight);
  stalls.disable();
  const round = report(`${label} at ${rate.toFixed(0)}/s (open loop)`, latencies, seconds, since(cpu0));
  console.log(
    `  event loop delay meanwhile: p99 ${(stalls.percentile(99) / 1e6).toFixed(2)} ms, max ${(stalls.max / 1e6).toFixed(2)} ms`,
  );
  return round;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;

const hook = `${remoteSignerAuthHookPath("video", "signer")}?token=${hookToken}`;
// Warm-up: JIT, keep-alive sockets, the verifier's token cache.
if (values.only === "hook" || values.only === "bare") {
  const target = values.only === "hook" ? hook : "/bare";
  await closedLoop(`warm-up ${values.only}`, target);
  await closedLoop(values.only, target);
  await ledger.flushed();
  await app.close();
  agent.destroy();
  await ledger.close();
  await spendWriter?.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}
await closedLoop("warm-up bare", "/bare");
await closedLoop("warm-up hook", hook);
// Interleaved rounds: the machine's drift (other processes on its two cores) hits both alike.
const ROUNDS = 3;
const bareRounds: Round[] = [];
const hookRounds: Round[] = [];
for (let r = 1; r <= ROUNDS; r++) {
  bareRounds.push(await closedLoop(`bare fastify route, round ${r}`, "/bare"));
  hookRounds.push(await closedLoop(`auth hook (decision + spend), round ${r}`, hook));
}
const rates = bareRounds.map((b, i) => hookRounds[i]!.rate / b.rate);
const cpus = bareRounds.map((b, i) => b.cpuUs / hookRounds[i]!.cpuUs);
const threadCpus = bareRounds.map((b, i) => b.threadUs / hookRounds[i]!.threadUs);
const peak = median(hookRounds.map((r) => r.rate));
console.log(
  `ratio hook/bare, decisions/s: ${median(rates).toFixed(2)} (median of ${ROUNDS} rounds, spread ${spread(rates)}; goal >= 0.8)`,
);
console.log(
  `ratio hook/bare, calls per CPU second: ${median(cpus).toFixed(2)} (spread ${spread(cpus)}; the same ratio with the machine's other load taken out)`,
);
console.log(
  `ratio hook/bare, calls per CPU second of the event loop's thread: ${median(threadCpus).toFixed(2)} (spread ${spread(threadCpus)}; the rate the hook can reach against the bare route with a core free for the store's threads)`,
);
const bareOpen = await openLoop("bare fastify route", "/bare", peak / 2);
const hookOpen = await openLoop("auth hook", hook, peak / 2);
console.log(
  `p99 at half the hook's peak rate: hook ${hookOpen.p99.toFixed(2)} ms (goal < 10 ms), bare route ${bareOpen.p99.toFixed(2)} ms (the floor on this machine now)`,
);
await ledger.flushed();
const decisions =
  (await registry.getSingleMetric("livepeer_signer_auth_decisions_total")?.get())?.values ?? [];
console.log(
  `decisions: ${decisions.reduce((a, v) => a + v.value, 0)} (${[...new Set(decisions.map((v) => v.labels.outcome))].join(", ")}); spend rows written behind: ${(await store.loadSignerSpend("2000-01-01", 0)).sessions.length} sessions`,
);
const histogram =
  (await registry.getSingleMetric("livepeer_signer_auth_decision_duration_seconds")?.get())?.values ?? [];
const named = (suffix: string) =>
  histogram.find((v) => (v as { metricName?: string }).metricName?.endsWith(suffix))?.value ?? 0;
const sum = named("_sum");
const count = named("_count");
console.log(
  `in the route (token check to answer): ${((sum / Math.max(1, count)) * 1000).toFixed(3)} ms a decision on average`,
);
await app.close();
agent.destroy();
await ledger.close();
await spendWriter?.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
