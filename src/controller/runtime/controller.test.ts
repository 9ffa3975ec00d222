// The controller's worker loop against a real work queue, with an in-memory cache (the
// Kubernetes side is covered by the integration tests on the local control plane).
import { describe, expect, it, vi } from "vitest";
import { Controller } from "./controller.ts";
import { silentLogger } from "./log.ts";
import { RuntimeMetrics } from "./metrics.ts";
import type { CacheReader, ControllerDefinition, ReconcileResult, Reconciler } from "./reconciler.ts";
import { ConfigMaps } from "./resources.ts";

const emptyCache = { list: () => [] } as unknown as CacheReader;

function controllerWith(reconcile: Reconciler["reconcile"], workers = 4, stopTimeoutMs = 1000) {
  const def: ControllerDefinition = { name: "test", resource: ConfigMaps, setup: () => ({ reconcile }) };
  const metrics = new RuntimeMetrics({ processMetrics: false });
  const c = new Controller(def, { reconcile }, emptyCache, metrics, silentLogger, {
    workers,
    resyncPeriodMs: 0,
    stopTimeoutMs,
  });
  return { c, metrics };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("controller", () => {
  it("never reconciles one key in two workers at once, and reconciles again what changed meanwhile", async () => {
    let running = 0;
    let overlaps = 0;
    const seen: string[] = [];
    const { c } = controllerWith(async (key) => {
      if (++running > 1) overlaps++;
      seen.push(key);
      await sleep(20);
      running--;
      return { done: true };
    });
    c.start();
    c.enqueue("ns/a");
    await sleep(5);
    c.enqueue("ns/a"); // changed while being reconciled
    c.enqueue("ns/a");
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    await sleep(40);
    expect(seen).toEqual(["ns/a", "ns/a"]);
    expect(overlaps).toBe(0);
    await c.stop();
  });

  it("retries a failing key with growing backoff and counts errors; success resets it", async () => {
    const at: number[] = [];
    const { c, metrics } = controllerWith(async () => {
      at.push(performance.now());
      if (at.length < 5) throw new Error("API server said no");
      return { done: true };
    });
    c.start();
    c.enqueue("ns/a");
    await vi.waitFor(() => expect(at).toHaveLength(5), { timeout: 2000 });
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    // 5, 10, 20, 40 ms (timers are at least that late, never earlier)
    expect(gaps[0]).toBeGreaterThanOrEqual(4);
    expect(gaps[3]).toBeGreaterThanOrEqual(39);
    expect(gaps[3]!).toBeGreaterThan(gaps[0]!);
    expect(c.queue?.numRequeues("ns/a")).toBe(0);
    const text = await metrics.registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="test"} 4');
    expect(text).toContain('controller_runtime_reconcile_total{controller="test",result="success"} 1');
    expect(text).toContain('workqueue_retries_total{name="test"} 4');
    await c.stop();
  });

  it("reconciles again after requeueAfter", async () => {
    const at: number[] = [];
    const { c, metrics } = controllerWith(async (): Promise<ReconcileResult> => {
      at.push(performance.now());
      return at.length === 1 ? { requeueAfter: 100 } : { done: true };
    });
    c.start();
    c.enqueue("ns/a");
    await vi.waitFor(() => expect(at).toHaveLength(2), { timeout: 2000 });
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(99);
    expect(await metrics.registry.metrics()).toContain(
      'controller_runtime_reconcile_total{controller="test",result="requeue_after"} 1',
    );
    await c.stop();
  });

  it("on stop takes no new work and waits for the reconcile in flight", async () => {
    let finished = false;
    const started: string[] = [];
    const { c } = controllerWith(async (key) => {
      started.push(key);
      await sleep(100);
      finished = true;
      return { done: true };
    }, 1);
    c.start();
    c.enqueue("ns/a");
    c.enqueue("ns/b");
    await vi.waitFor(() => expect(started).toEqual(["ns/a"]));
    expect(await c.stop()).toEqual([]);
    expect(finished).toBe(true);
    expect(started).toEqual(["ns/a"]);
  });

  it("gives up waiting after the bound and aborts the reconcile's signal", async () => {
    let aborted = false;
    const { c } = controllerWith(
      async (_key, ctx) => {
        ctx.signal.addEventListener("abort", () => {
          aborted = true;
        });
        await sleep(1000);
        return { done: true };
      },
      1,
      50,
    );
    c.start();
    c.enqueue("ns/slow");
    await sleep(10);
    expect(await c.stop()).toEqual(["ns/slow"]);
    expect(aborted).toBe(true);
  });
});
