// Webhook delivery throughput and latency, on each store, against a bare keep-alive POST loop to
// the same receiver in the same run:
//   bare      C and C/2 requests in flight over node:http keep-alive, the same body, nothing else
//             (one thread); the faster of the two is the baseline (each side at its best: the
//             bare loop is often faster with fewer in flight)
//   delivery  the engine as the API runs it: durable enqueue (group commit; on PostgreSQL fresh
//             work comes leased), claim, sign, record on this thread; the requests sent from the
//             engine's sender thread; C in flight (default 128, the engine's default)
// Warm-up: N deliveries (as the bare loop runs N requests before its first measured run). Peak: N
// events enqueued at once, until all are delivered and recorded (deliveries/s), R rounds between
// bare loops (bare, peak, bare, ... bare): each round's ratio is to the mean of the bare loops
// either side, the median round is reported and every round's ratio printed. Latency: events
// enqueued at half the peak rate for S seconds, enqueue call to arrival at the receiver
// (p50/p99). The receiver runs in its own process (answers 200 at once). CPU ms per delivery:
// this process (both threads), the receiver and PostgreSQL together (the machine is shared, so
// rates swing between runs; CPU per delivery is the steadier figure).
// SQLite in a temp file; PostgreSQL a throwaway server from Debian's package (fsync on).
//
// CPU by part too: this process's API thread (the bare loop's only thread), its sender thread,
// its other threads (V8's collector and compiler helpers, SQLite's checkpointer), the receiver,
// PostgreSQL.
// The floor (--floor, or the stores memory and memory-pg): the same engine on a store that keeps
// everything in memory and nothing durable (bench/support/memory-delivery-store.ts, never used by
// the API), with the engine's settings for SQLite (memory: claims, no batching delay) and for
// PostgreSQL (memory-pg: fresh work leased at enqueue, 2 ms batches). Its ratio is what the
// engine's pipeline (API thread -> sender thread -> receiver) reaches on this machine with no
// database: the ceiling of any store here.
//
//   node bench/delivery.ts [--n 5000] [--concurrency 128] [--seconds 5] [--rounds 3]
//                          [--stores sqlite,postgres,memory,memory-pg] [--floor] [--help]
import { fork } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { LOOPBACK_ALLOWED } from "../src/api/delivery/address-policy.ts";
import { DeliveryEngine } from "../src/api/delivery/engine.ts";
import { signedRequest } from "../src/api/delivery/signing.ts";
import { openDeliveryStore } from "../src/api/delivery/store/open-store.ts";
import type { DeliveryStore } from "../src/api/delivery/store/types.ts";
import { startPostgres } from "../src/dev/postgres.ts";
import { http } from "../src/process/builtin-http.ts";
import { MemoryDeliveryStore } from "./support/memory-delivery-store.ts";

const self = fileURLToPath(import.meta.url);

// --- the receiver (child process) -------------------------------------------------------------

/** Arrival times (ms, epoch with sub-ms precision) by event id, sent to the parent on request. */
function runReceiver(): void {
  const arrivals = new Map<string, number>();
  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.timeOrigin + performance.now();
      const id = req.headers["webhook-id"];
      if (typeof id === "string" && !arrivals.has(id)) arrivals.set(id, at);
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => {
    process.send?.({ port: (server.address() as AddressInfo).port });
  });
  process.on("message", (m: { ask: "cpu" | "arrivals" | "reset" | "exit" }) => {
    if (m.ask === "cpu") {
      const u = process.cpuUsage();
      process.send?.({ cpuMs: (u.user + u.system) / 1000 });
    } else if (m.ask === "arrivals") process.send?.({ arrivals: [...arrivals] });
    else if (m.ask === "reset") {
      arrivals.clear();
      process.send?.({ reset: true });
    } else process.exit(0);
  });
}

// --- the parent -------------------------------------------------------------------------------

interface ReceiverHandle {
  url: string;
  ask<T>(what: "cpu" | "arrivals" | "reset"): Promise<T>;
  stop(): void;
}

async function startReceiverProcess(): Promise<ReceiverHandle> {
  const child = fork(self, ["--receiver"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const port = await new Promise<number>((resolve) =>
    child.once("message", (m: { port: number }) => resolve(m.port)),
  );
  return {
    url: `http://127.0.0.1:${port}/hook`,
    ask: <T>(what: string) =>
      new Promise<T>((resolve) => {
        child.once("message", (m) => resolve(m as T));
        child.send({ ask: what });
      }),
    stop: () => child.send({ ask: "exit" }),
  };
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** The bare loop: `n` POSTs of a signed body, `concurrency` in flight, one keep-alive agent. */
async function bareLoop(url: string, n: number, concurrency: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  // The same body and headers as a delivery, built once: the loop does nothing but POST.
  const event = { id: "bare", userId: "u", projectId: "p", kind: "stream.started", createdAt: Date.now() };
  const { body, headers } = signedRequest(event, "w1", "secret", Date.now());
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        target,
        { method: "POST", agent, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } },
        (res) => {
          res.resume();
          res.on("end", resolve);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) await post();
    }),
  );
  const perSecond = n / ((performance.now() - t0) / 1000);
  agent.destroy();
  return perSecond;
}

/** CPU ms used so far, by part: this process's threads, the receiver, the PostgreSQL server. */
interface Cpu {
  /** This process's main thread: the API thread of the engine, the bare loop's only thread. */
  api: number;
  /** The engine's sender thread (threaded-sender.ts names it delivery-sender). */
  sender: number;
  /** This process's other threads: V8's garbage collector and compiler helpers, libuv's pool, SQLite's checkpointer. */
  other: number;
  receiver: number;
  /** All the server's processes. */
  pg: number;
}

const CPU_PARTS = ["api", "sender", "other", "receiver", "pg"] as const;

function cpuSum(a: Cpu, b: Cpu): Cpu {
  const out = {} as Cpu;
  for (const k of CPU_PARTS) out[k] = a[k] + b[k];
  return out;
}

function cpuTotal(c: Cpu): number {
  return c.api + c.sender + c.other + c.receiver + c.pg;
}

/** (b - a) / n, part by part. */
function cpuPer(a: Cpu, b: Cpu, n: number): Cpu {
  const out = {} as Cpu;
  for (const k of CPU_PARTS) out[k] = (b[k] - a[k]) / n;
  return out;
}

/** utime + stime of a /proc stat line, in ms (clock ticks of 10 ms), and its ppid. */
function procStat(file: string): { ms: number; ppid: number } {
  const stat = readFileSync(file, "utf8");
  // Fields after the command name: state ppid ... utime(14) stime(15).
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { ms: (Number(f[11]) + Number(f[12])) * 10, ppid: Number(f[1]) };
}

async function cpuMs(receiver: ReceiverHandle, pgPid: number | undefined): Promise<Cpu> {
  const c: Cpu = { api: 0, sender: 0, other: 0, receiver: 0, pg: 0 };
  // The process as a whole (threads ended since included) less the two named threads.
  const all = procStat("/proc/self/stat").ms;
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const { ms } = procStat(`/proc/self/task/${tid}/stat`);
      if (Number(tid) === process.pid) c.api += ms;
      else if (readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim() === "delivery-sender")
        c.sender += ms;
    } catch {}
  }
  c.other = all - c.api - c.sender;
  c.receiver = (await receiver.ask<{ cpuMs: number }>("cpu")).cpuMs;
  if (pgPid !== undefined) {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const { ms, ppid } = procStat(`/proc/${entry}/stat`);
        if (Number(entry) === pgPid || ppid === pgPid) c.pg += ms;
      } catch {}
    }
  }
  return c;
}

interface StoreFigures {
  store: string;
  /** Every round's ratio, lowest first. */
  ratios: number[];
  bare: number;
  bareCpuMs: number;
  cpuMsPerDelivery: number;
  rateCpuMsPerDelivery: number;
  /** The median peak's CPU per delivery and the bare loops' per request, by part. */
  cpu: Cpu;
  bareCpu: Cpu;
  perSecond: number;
  halfRate: number;
  p50: number;
  p99: number;
  sent: number;
  delivered: number;
}

async function measureStore(
  name: string,
  store: DeliveryStore,
  receiver: ReceiverHandle,
  pgPid: number | undefined,
  n: number,
  concurrency: number,
  seconds: number,
  rounds: number,
): Promise<StoreFigures> {
  // Recorded outcomes, counted as the worker reports them (polling the store would cost CPU here).
  let recorded = 0;
  const engine = new DeliveryEngine({
    onAttempt: (r) => {
      if (r.result === "delivered") recorded++;
    },
    store,
    resolveTarget: () => ({ url: receiver.url, sharedSecret: "secret", revision: "1" }),
    allow: LOOPBACK_ALLOWED,
    maxInFlight: concurrency,
    maxInFlightPerWebhook: concurrency,
  });
  engine.start();
  const webhooks = [{ id: "w1", userId: "u", projectId: "p" }];
  const enqueue = (id: string) =>
    engine.enqueue({ id, userId: "u", projectId: "p", kind: "stream.started" }, webhooks);
  let expected = 0;
  const settled = async () => recorded >= expected;
  try {
    // Warm-up (JIT in both threads, connections, caches), not measured: as many deliveries as the
    // peak, in batches, as the bare loop gets n requests before its measured run.
    for (let done = 0; done < n; done += 1_000) {
      const batch = Math.min(1_000, n - done);
      expected += batch;
      await Promise.all(Array.from({ length: batch }, (_, i) => enqueue(`${name}-warm-${done + i}`)));
      await until(settled, 60_000);
    }

    // Peaks between bare loops (the machine's load drifts): bare, peak, bare, peak, ... bare. Each
    // peak's ratio is to the mean of the bare loops either side; the median round is reported.
    const bareRates: number[] = [];
    const bareCpus: Cpu[] = [];
    const measureBare = async () => {
      const cpu0 = await cpuMs(receiver, undefined);
      const atFull = await bareLoop(receiver.url, n, concurrency);
      const atHalf = await bareLoop(receiver.url, n, Math.max(1, Math.floor(concurrency / 2)));
      bareRates.push(Math.max(atFull, atHalf));
      bareCpus.push(cpuPer(cpu0, await cpuMs(receiver, undefined), 2 * n));
    };
    const peaks: { perSecond: number; cpu: Cpu; bare: number }[] = [];
    await measureBare();
    for (let round = 0; round < rounds; round++) {
      // Peak: everything at once, until delivered and recorded.
      expected += n;
      const cpu0 = await cpuMs(receiver, pgPid);
      const t0 = performance.now();
      await Promise.all(Array.from({ length: n }, (_, i) => enqueue(`${name}-peak-${round}-${i}`)));
      await until(settled, 300_000);
      const perSecond = n / ((performance.now() - t0) / 1000);
      const cpu = cpuPer(cpu0, await cpuMs(receiver, pgPid), n);
      await measureBare();
      peaks.push({ perSecond, cpu, bare: (bareRates[round]! + bareRates[round + 1]!) / 2 });
    }
    const bareCpu = cpuPer(
      { api: 0, sender: 0, other: 0, receiver: 0, pg: 0 },
      bareCpus.reduce(cpuSum),
      bareCpus.length,
    );
    const ratios = peaks.map((p) => p.perSecond / p.bare).sort((a, b) => a - b);
    const median = peaks.find((p) => p.perSecond / p.bare === ratios[Math.floor(ratios.length / 2)])!;
    const { perSecond, bare, cpu } = median;

    // Latency at half the peak rate: open loop, enqueue call to arrival.
    await receiver.ask("reset");
    const halfRate = perSecond / 2;
    const total = Math.round(halfRate * seconds);
    expected += total;
    const started = new Map<string, number>();
    const rateCpu0 = await cpuMs(receiver, pgPid);
    const start = performance.now();
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / halfRate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const id = `${name}-rate-${i}`;
      started.set(id, performance.timeOrigin + performance.now());
      pending.push(enqueue(id));
    }
    await Promise.all(pending);
    await until(settled, 120_000);
    const rateCpuMsPerDelivery = cpuTotal(cpuPer(rateCpu0, await cpuMs(receiver, pgPid), total));
    if ((await store.queueStats()).pending !== 0) throw new Error("deliveries left pending after the run");
    const { arrivals } = await receiver.ask<{ arrivals: [string, number][] }>("arrivals");
    const latencies = arrivals
      .filter(([id]) => started.has(id))
      .map(([id, at]) => at - started.get(id)!)
      .sort((a, b) => a - b);
    return {
      store: name,
      ratios,
      bare,
      bareCpuMs: cpuTotal(bareCpu),
      cpuMsPerDelivery: cpuTotal(cpu),
      rateCpuMsPerDelivery,
      cpu,
      bareCpu,
      perSecond,
      halfRate,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      sent: total,
      delivered: latencies.length,
    };
  } finally {
    await engine.stop();
    await store.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      n: { type: "string", default: "5000" },
      concurrency: { type: "string", default: "128" },
      seconds: { type: "string", default: "5" },
      rounds: { type: "string", default: "3" },
      stores: { type: "string", default: "sqlite,postgres" },
      floor: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    // The file's opening comment is its manual.
    const manual = readFileSync(self, "utf8").split("\nimport ")[0]!;
    process.stdout.write(`${manual.replace(/^\/\/ ?/gm, "")}\n`);
    return;
  }
  const n = Number(values.n);
  const concurrency = Number(values.concurrency);
  const seconds = Number(values.seconds);
  const rounds = Math.max(1, Number(values.rounds));
  const stores = [...(values.floor ? ["memory", "memory-pg"] : []), ...values.stores.split(",")].filter(
    (s, i, all) => s !== "" && all.indexOf(s) === i,
  );
  const unknown = stores.filter((s) => !["sqlite", "postgres", "memory", "memory-pg"].includes(s));
  if (unknown.length > 0)
    throw new Error(`unknown store ${unknown.join(", ")}: sqlite, postgres, memory, memory-pg`);
  const receiver = await startReceiverProcess();
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-delivery-"));
  const pg = stores.includes("postgres") ? await startPostgres() : undefined;
  try {
    await bareLoop(receiver.url, 1_000, concurrency); // warm-up
    const rows: StoreFigures[] = [];
    for (const name of stores) {
      const store =
        name === "memory" || name === "memory-pg"
          ? new MemoryDeliveryStore(name === "memory" ? "sqlite" : "postgres")
          : await openDeliveryStore(
              name === "sqlite"
                ? { backend: "sqlite", file: path.join(dir, "bench.sqlite") }
                : { backend: "postgres", connectionString: await pg!.createDatabase(`bench_${process.pid}`) },
            );
      rows.push(await measureStore(name, store, receiver, pg?.pid, n, concurrency, seconds, rounds));
    }
    const f = (x: number, d = 0) => x.toFixed(d);
    console.log(
      `${n} deliveries at peak, ${concurrency} in flight, median of ${rounds} rounds; bare = keep-alive POST loop, same receiver, same body, the faster of ${concurrency} and ${Math.max(1, Math.floor(concurrency / 2))} in flight`,
    );
    console.log(
      "store     deliveries/s  bare req/s  ratio (rounds)     CPU ms/delivery (bare)  at half rate  CPU ms  p50 ms  p99 ms  delivered",
    );
    for (const r of rows) {
      console.log(
        [
          r.store.padEnd(9),
          f(r.perSecond).padStart(12),
          f(r.bare).padStart(10),
          `${f(r.perSecond / r.bare, 2)} (${r.ratios.map((x) => f(x, 2)).join(" ")})`.padEnd(17),
          `${f(r.cpuMsPerDelivery, 3)} (${f(r.bareCpuMs, 3)})`.padStart(23),
          `${f(r.halfRate)}/s`.padStart(12),
          f(r.rateCpuMsPerDelivery, 3).padStart(6),
          f(r.p50, 1).padStart(6),
          f(r.p99, 1).padStart(6),
          ` ${r.delivered}/${r.sent}`,
        ].join("  "),
      );
    }
    console.log(
      "CPU us per delivery by part (the median peak), and per request of the bare loops (its thread is the API thread's column):",
    );
    console.log("store      API thread  sender thread  other threads  receiver  PostgreSQL    all");
    const us = (x: number) => f(x * 1000).padStart(6);
    const cpuRow = (label: string, c: Cpu) =>
      console.log(
        [
          label.padEnd(9),
          us(c.api).padStart(11),
          us(c.sender).padStart(13),
          us(c.other).padStart(13),
          us(c.receiver).padStart(8),
          us(c.pg).padStart(10),
          us(cpuTotal(c)),
        ].join("  "),
      );
    for (const r of rows) {
      cpuRow(r.store, r.cpu);
      cpuRow("  bare", r.bareCpu);
    }
    for (const r of rows) {
      const ratio = r.perSecond / r.bare;
      const p99ok = r.p99 < 50;
      console.log(
        `${r.store}: ratio ${f(ratio, 2)} (goal >= 0.8: ${ratio >= 0.8 ? "met" : "not met"}), p99 ${f(r.p99, 1)} ms at half rate (goal < 50 ms: ${p99ok ? "met" : "not met"}); ` +
          `with every core busy the CPU per delivery bounds the ratio at ${f(r.bareCpuMs / r.cpuMsPerDelivery, 2)} (bare ${f(r.bareCpuMs, 3)} / ours ${f(r.cpuMsPerDelivery, 3)} ms, all processes)`,
      );
    }
    console.log(
      `goals (issue 34): ratio >= 0.8 on both stores, p99 < 50 ms at half the peak rate (${os.cpus().length} cores)`,
    );
  } finally {
    receiver.stop();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes("--receiver")) runReceiver();
else await main();
