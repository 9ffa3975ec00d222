// The controller's worker loop against a real work queue, with an in-memory cache (the
// Kubernetes side is covered by the integration tests on the local control plane).
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Informer, InformerHandlers } from "../../kube/informer.ts";
import type { KubeObject } from "../../kube/objects.ts";
import { ConfigMaps, Secrets, StatefulSets } from "../../kube/resources.ts";
import { silentLogger } from "../../process/log.ts";
import { Controller, DEFAULT_COALESCE_MS } from "./controller.ts";
import { RuntimeMetrics } from "./metrics.ts";
import type { CacheReader, ControllerDefinition, ReconcileResult, Reconciler } from "./reconciler.ts";

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

/** One turn of the event loop: every microtask of what ran before it has settled. */
const turn = () => new Promise<void>((r) => setImmediate(r));
/** A promise the test opens: a reconcile's work that lasts until the test says. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => {
    open = r;
  });
  return { wait, open };
}

describe("controller", () => {
  it("never reconciles one key in two workers at once, and reconciles again what changed meanwhile", async () => {
    let running = 0;
    let overlaps = 0;
    let finished = 0;
    const seen: string[] = [];
    // The first reconcile holds until the test has enqueued the key again.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { c } = controllerWith(async (key) => {
      if (++running > 1) overlaps++;
      seen.push(key);
      if (seen.length === 1) await held;
      else await turn();
      running--;
      finished++;
      return { done: true };
    });
    c.start();
    c.enqueue("ns/a");
    await vi.waitFor(() => expect(running).toBe(1));
    c.enqueue("ns/a"); // changed while being reconciled
    c.enqueue("ns/a");
    expect(running).toBe(1);
    release();
    // Both reconciles over and the queue idle: a third one would be queued or running by now.
    await vi.waitFor(() => {
      expect(finished).toBe(2);
      expect(c.queue?.len()).toBe(0);
      expect(c.queue?.processing()).toEqual([]);
    });
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
    const text = await metrics.registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_total{controller="test",result="requeue_after"} 1');
    // Counted when the key comes back, by what asked for it.
    expect(text).toContain('livepeer_operator_enqueues_total{controller="test",cause="wake"} 1');
    expect(text).toContain('livepeer_operator_enqueues_total{controller="test",cause="requeue"} 1');
    await c.stop();
  });

  it("on stop takes no new work and waits for the reconcile in flight", async () => {
    let finished = false;
    const started: string[] = [];
    const work = gate();
    const { c } = controllerWith(async (key) => {
      started.push(key);
      await work.wait;
      finished = true;
      return { done: true };
    }, 1);
    c.start();
    c.enqueue("ns/a");
    c.enqueue("ns/b");
    await vi.waitFor(() => expect(started).toEqual(["ns/a"]));
    let stoppedBeforeTheWorkEnded = false;
    const stopping = c.stop().then((left) => {
      stoppedBeforeTheWorkEnded = !finished;
      return left;
    });
    // A turn of the event loop: a stop that did not wait would have resolved by now.
    await turn();
    expect(stoppedBeforeTheWorkEnded).toBe(false);
    work.open();
    expect(await stopping).toEqual([]);
    expect(stoppedBeforeTheWorkEnded).toBe(false);
    expect(finished).toBe(true);
    expect(started).toEqual(["ns/a"]);
  });

  it("gives up waiting after the bound and aborts the reconcile's signal", async () => {
    let aborted = false;
    let started = false;
    const { c } = controllerWith(
      async (_key, ctx) => {
        started = true;
        ctx.signal.addEventListener("abort", () => {
          aborted = true;
        });
        await gate().wait; // never opened: the stop's bound ends the wait
        return { done: true };
      },
      1,
      50,
    );
    c.start();
    c.enqueue("ns/slow");
    await vi.waitFor(() => expect(started).toBe(true));
    expect(await c.stop()).toEqual(["ns/slow"]);
    expect(aborted).toBe(true);
  });

  describe("resync", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it("visits every key once per period, spread in one-second slices rather than in one burst", async () => {
      vi.useFakeTimers();
      const keys = Array.from({ length: 10 }, (_, i) => `ns/o-${i}`);
      const cache = { list: () => keys.map((k) => ({ metadata: { namespace: "ns", name: k.slice(3) } })) };
      const at = new Map<string, number[]>();
      const reconcile = async (key: string) => {
        at.set(key, [...(at.get(key) ?? []), Date.now()]);
        return { done: true } as const;
      };
      const def: ControllerDefinition = { name: "test", resource: ConfigMaps, setup: () => ({ reconcile }) };
      const c = new Controller(
        def,
        { reconcile },
        cache as unknown as CacheReader,
        new RuntimeMetrics({ processMetrics: false }),
        silentLogger,
        { workers: 2, resyncPeriodMs: 5_000, stopTimeoutMs: 1_000 },
      );
      const t0 = Date.now();
      c.start(); // a term starts with every cached key
      await vi.advanceTimersByTimeAsync(100);
      expect(at.size).toBe(10);
      at.clear();
      await vi.advanceTimersByTimeAsync(11_000);
      expect([...at.keys()].sort()).toEqual([...keys].sort());
      const firstVisits = [...at.values()].map((t) => t[0]! - t0);
      // The first round starts one period (+-10%) after the term began: no visit before that.
      expect(Math.min(...firstVisits)).toBeGreaterThanOrEqual(4_500);
      // 10 keys over 5 s: 2 a second, never all at once.
      const perSecond = new Map<number, number>();
      for (const t of firstVisits)
        perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
      expect(Math.max(...perSecond.values())).toBe(2);
      expect(Math.max(...firstVisits) - Math.min(...firstVisits)).toBeGreaterThanOrEqual(4_000);
      await vi.advanceTimersByTimeAsync(6_000);
      expect(Math.min(...[...at.values()].map((t) => t.length))).toBe(2); // the next round
      await c.stop();
    });
  });

  it.each([
    ["primary: the status alone (its own write)", ConfigMaps, { status: { phase: "b" } }, []],
    ["primary: the spec", ConfigMaps, { spec: { x: 2 } }, ["ns/a"]],
    ["primary: a label", ConfigMaps, { metadata: { labels: { l: "2" } } }, ["ns/a"]],
    [
      "primary: being deleted",
      ConfigMaps,
      { metadata: { deletionTimestamp: "2026-11-23T00:00:00Z" } },
      ["ns/a"],
    ],
    ["owned: the resourceVersion alone", Secrets, {}, []],
    ["owned: its status", Secrets, { status: { phase: "b" } }, ["ns/owner"]],
    ["watched: the resourceVersion alone (a Node heartbeat, reduced to facts)", StatefulSets, {}, []],
    ["watched: a label", StatefulSets, { metadata: { labels: { l: "2" } } }, ["ns/mapped"]],
  ] as const)("an update changing %s enqueues what it should", (_what, resource, change, expected) => {
    const handlers = new Map<unknown, InformerHandlers<KubeObject>>();
    const informer = (t: unknown) =>
      ({ addHandlers: (h: InformerHandlers<KubeObject>) => handlers.set(t, h) }) as unknown as Informer;
    const def: ControllerDefinition = {
      name: "test",
      resource: ConfigMaps,
      owns: [Secrets],
      watches: [{ resource: StatefulSets, map: () => ["ns/mapped"] }],
      setup: () => ({ reconcile: async () => ({ done: true }) }),
    };
    const c = new Controller(
      def,
      { reconcile: async () => ({ done: true }) },
      emptyCache,
      new RuntimeMetrics({ processMetrics: false }),
      silentLogger,
      {
        workers: 1,
        resyncPeriodMs: 0,
        stopTimeoutMs: 100,
      },
    );
    c.attach(informer as never);
    const enqueued: string[] = [];
    const windows = new Set<number>();
    c.enqueue = (key, _cause, coalesceMs = 0) => {
      enqueued.push(key);
      windows.add(coalesceMs);
    };
    const old = {
      apiVersion: "v1",
      kind: "Thing",
      metadata: {
        name: "a",
        namespace: "ns",
        resourceVersion: "1",
        labels: { l: "1" },
        managedFields: [{ manager: "x" }],
        ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "u", controller: true }],
      },
      spec: { x: 1 },
      status: { phase: "a" },
    } as KubeObject;
    const next = {
      ...old,
      ...change,
      metadata: {
        ...old.metadata,
        resourceVersion: "2",
        managedFields: [{ manager: "y" }],
        ...("metadata" in change ? change.metadata : {}),
      },
    } as KubeObject;
    handlers.get(resource)?.onUpdate?.(old, next);
    expect([...new Set(enqueued)]).toEqual(expected);
    // The primary's own change wakes it at once; a child's or a watched object's waits for the
    // other events of its key (one reconcile for a pod's created, scheduled, started).
    if (expected.length) expect([...windows]).toEqual([resource === ConfigMaps ? 0 : DEFAULT_COALESCE_MS]);
  });
});
