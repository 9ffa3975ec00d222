// Delivery across processes: a worker killed with SIGKILL while a retry is in flight leaves the
// delivery to the restarted worker once its lease runs out (both stores: at-least-once across
// kill -9), likewise the fresh deliveries a PostgreSQL worker took leased at enqueue (in flight
// or waiting in memory), and two worker processes on one PostgreSQL database send each delivery once.

import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { RetrySchedule } from "../../src/api/delivery/retry-policy.ts";
import type { StoreConfig } from "../../src/api/delivery/store/open-store.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { isAlive, stopPid } from "../../src/process/pids.ts";
import { BACKENDS, storeFixture } from "./support/delivery-stores.ts";
import type { ChildConfig } from "./support/delivery-worker-child.ts";
import { type Receiver, startReceiver } from "./support/receiver.ts";

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), "support", "delivery-worker-child.ts");
const fixture = storeFixture();
afterAll(() => fixture.cleanup());

const SCHEDULE: RetrySchedule = {
  firstDelayMs: 100,
  multiplier: 2,
  maxDelayMs: 500,
  giveUpAfterMs: 60_000,
  jitter: 0,
  maxRetryAfterMs: 5_000,
};
const LEASE_MS = 2_500;

interface Worker {
  child: ChildProcess;
  pid: number;
  output: string[];
  exited: Promise<void>;
}

const workers: Worker[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.allSettled(workers.splice(0).map((w) => stopPid(w.pid)));
  await Promise.allSettled(receivers.splice(0).map((r) => r.close()));
});

async function startWorker(config: ChildConfig): Promise<Worker> {
  const child = spawn(process.execPath, [CHILD], {
    env: { ...process.env, DELIVERY_CHILD: JSON.stringify(config) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const w: Worker = { child, pid: child.pid!, output, exited };
  workers.push(w);
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (c: Buffer) => {
      output.push(...c.toString().split("\n").filter(Boolean));
      if (output.includes("READY")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`the worker exited (${code}) before READY:\n${stderr}`)));
  });
  return w;
}

function childConfig(store: StoreConfig, receiver: Receiver, over: Partial<ChildConfig> = {}): ChildConfig {
  return {
    store,
    targets: {
      w1: { url: `${receiver.url}?w1`, sharedSecret: "s", revision: "1" },
      w2: { url: `${receiver.url}?w2`, sharedSecret: "s", revision: "1" },
    },
    timeoutMs: 1_000,
    leaseMs: LEASE_MS,
    pollMs: 100,
    schedule: SCHEDULE,
    ...over,
  };
}

describe.each(BACKENDS)("delivery worker processes on %s", (backend) => {
  it("a worker killed with SIGKILL mid-retry leaves the delivery to the restarted worker after its lease", async () => {
    // 1st attempt: 500; 2nd: no answer (the worker dies meanwhile); then 200.
    const r = await startReceiver((_, i) =>
      i === 0 ? { status: 500 } : i === 1 ? { hang: true } : { status: 200 },
    );
    receivers.push(r);
    const storeConfig = await fixture.newConfig(backend);
    const first = await startWorker(
      childConfig(storeConfig, r, { enqueue: { ids: ["evt-1"], webhookIds: ["w1"] } }),
    );
    await r.waitFor(2);
    const killedAt = Date.now();
    process.kill(first.pid, "SIGKILL");
    await first.exited;
    expect(isAlive(first.pid)).toBe(false);

    await startWorker(childConfig(storeConfig, r));
    await r.waitFor(3, 15_000);
    const [a, b, c] = r.forEvent("evt-1");
    expect([a, b, c].every(Boolean)).toBe(true);
    // Not before the dead worker's lease ran out (it was taken just before the kill).
    expect(c!.at - b!.at).toBeGreaterThanOrEqual(LEASE_MS - 100);
    expect(c!.at - killedAt).toBeLessThan(LEASE_MS + 3_000);

    const store = await fixture.open(storeConfig);
    await waitFor("every delivery settled", async () => (await store.queueStats()).pending === 0, 10_000);
    // The killed attempt was never recorded: the log has the 500 and the 200.
    const log = (await store.listLog("w1", 10)).items;
    expect(log.map((e) => e.response?.status)).toEqual([200, 500]);
    expect(r.received).toHaveLength(3);
  });
});

describe("a delivery worker process on postgres holding fresh deliveries leased at enqueue", () => {
  it("killed with SIGKILL, leaves the ones it held (in flight and waiting in memory) to another worker after their lease, and the unleased one at once", async () => {
    // e0 hangs (in flight at the kill); e1 waits in memory for the one slot; e2 was not leased.
    const r = await startReceiver((q) =>
      q.json.id === "e0" && r.forEvent("e0").length === 1 ? { hang: true } : { status: 200 },
    );
    receivers.push(r);
    const storeConfig = await fixture.newConfig("postgres");
    // The leases are taken at enqueue, inside the child: after this instant, whatever the load.
    const beforeEnqueue = Date.now();
    const first = await startWorker(
      childConfig(storeConfig, r, {
        maxInFlight: 1,
        enqueue: { ids: ["e0", "e1", "e2"], webhookIds: ["w1"] },
      }),
    );
    await r.waitFor(1);
    process.kill(first.pid, "SIGKILL");
    await first.exited;

    const startedAt = Date.now();
    await startWorker(childConfig(storeConfig, r));
    await r.waitFor(4, 15_000);
    const at = (id: string) => r.forEvent(id).map((q) => q.at);
    expect(at("e2")).toHaveLength(1);
    expect(at("e2")[0]! - startedAt).toBeLessThan(LEASE_MS - 500);
    expect(at("e1")).toHaveLength(1);
    // Not before its lease ran out: the lease ends at least LEASE_MS after beforeEnqueue. Had the
    // second worker ignored it, e1 would go out with e2, well under LEASE_MS after the spawn.
    expect(at("e1")[0]! - beforeEnqueue).toBeGreaterThanOrEqual(LEASE_MS);
    expect(at("e0")).toHaveLength(2);

    const store = await fixture.open(storeConfig);
    await waitFor("every delivery settled", async () => (await store.queueStats()).pending === 0, 10_000);
  });
});

describe("two delivery worker processes on postgres", () => {
  it("send each delivery once and share the work", async () => {
    const r = await startReceiver(() => ({ status: 200, delayMs: 2 }));
    receivers.push(r);
    const storeConfig = await fixture.newConfig("postgres");
    const ids = (prefix: string) => Array.from({ length: 150 }, (_, i) => `${prefix}-${i}`);
    const both = ["w1", "w2"];
    const [a, b] = await Promise.all([
      startWorker(childConfig(storeConfig, r, { enqueue: { ids: ids("a"), webhookIds: both } })),
      startWorker(childConfig(storeConfig, r, { enqueue: { ids: ids("b"), webhookIds: both } })),
    ]);
    await r.waitFor(600, 30_000);
    // Every delivery settled (none left to send again), then both workers gone: what the
    // receiver holds then is all that was ever sent.
    const store = await fixture.open(storeConfig);
    await waitFor("every delivery settled", async () => (await store.queueStats()).pending === 0, 15_000);
    const attempts = await Promise.all(
      [a!, b!].map(async (w) => {
        process.kill(w.pid, "SIGTERM");
        await w.exited;
        const line = w.output.find((l) => l.startsWith("ATTEMPTS "));
        return Number(line?.slice("ATTEMPTS ".length));
      }),
    );
    const pairs = r.received.map((q) => `${q.json.id}->${q.json.webhookId}`);
    expect(pairs).toHaveLength(600);
    expect(new Set(pairs).size).toBe(600);
    expect(attempts[0]! + attempts[1]!).toBe(600);
    expect(Math.min(...attempts)).toBeGreaterThan(0);
  });
});
