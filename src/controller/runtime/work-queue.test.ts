import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ExponentialFailureRateLimiter,
  MaxOfRateLimiter,
} from "./rate-limiter.ts";
import { WorkQueue } from "./work-queue.ts";

const neverLimited = () => new ExponentialFailureRateLimiter(5, 1_000_000);

describe("work queue", () => {
  it("never hands one key to two workers at once, and reprocesses a key added while it was processing", async () => {
    const q = new WorkQueue({ rateLimiter: neverLimited() });
    q.add("a");
    const first = await q.get();
    expect(first).toBe("a");
    q.add("a"); // arrives while a worker holds "a"
    q.add("b");
    // A second worker gets "b", not "a" again.
    expect(await q.get()).toBe("b");
    let third: string | undefined;
    void q.get().then((k) => {
      third = k;
    });
    await Promise.resolve();
    expect(third).toBeUndefined(); // "a" waits for done()
    q.done("a");
    await vi.waitFor(() => expect(third).toBe("a"));
  });

  it("coalesces adds of a key that is waiting: processed once", async () => {
    const q = new WorkQueue({ rateLimiter: neverLimited() });
    for (let i = 0; i < 5; i++) q.add("a");
    q.add("b");
    expect(q.len()).toBe(2);
    expect(await q.get()).toBe("a");
    expect(await q.get()).toBe("b");
    expect(q.len()).toBe(0);
  });

  it("coalesces many adds during processing into exactly one more run", async () => {
    const q = new WorkQueue({ rateLimiter: neverLimited() });
    q.add("a");
    await q.get();
    for (let i = 0; i < 10; i++) q.add("a");
    q.done("a");
    expect(q.len()).toBe(1);
    expect(await q.get()).toBe("a");
    q.done("a");
    expect(q.len()).toBe(0);
  });

  it("runs many workers with no key ever held twice", async () => {
    const q = new WorkQueue({ rateLimiter: neverLimited() });
    const holding = new Set<string>();
    let overlaps = 0;
    let processed = 0;
    const worker = async () => {
      for (;;) {
        const key = await q.get();
        if (key === undefined) return;
        if (holding.has(key)) overlaps++;
        holding.add(key);
        // Hold the key over a random number of event-loop turns, so workers interleave.
        for (let i = Math.floor(Math.random() * 3); i > 0; i--) await new Promise((r) => setImmediate(r));
        holding.delete(key);
        processed++;
        q.done(key);
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    for (let round = 0; round < 50; round++) {
      for (const k of ["a", "b", "c"]) q.add(k);
      await new Promise((r) => setImmediate(r));
    }
    await vi.waitFor(() => expect(q.len() + q.processing().length).toBe(0));
    q.shutDown();
    await Promise.all(workers);
    expect(overlaps).toBe(0);
    expect(processed).toBeGreaterThanOrEqual(3);
    expect(processed).toBeLessThanOrEqual(150);
  });

  describe("with fake timers", () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it("delays a key by addAfter and keeps the earliest time when delayed twice", async () => {
      const q = new WorkQueue({ rateLimiter: neverLimited() });
      const t0 = Date.now();
      q.addAfter("a", 1000);
      q.addAfter("a", 300);
      q.addAfter("a", 5000);
      // When the key is handed out (fake time): the earliest delay, not before it.
      const handedOut = q.get().then((key) => ({ key, after: Date.now() - t0 }));
      await vi.runAllTimersAsync();
      expect(await handedOut).toEqual({ key: "a", after: 300 });
      // Every timer has run: the later delays did not add it again.
      expect(vi.getTimerCount()).toBe(0);
      expect(q.len()).toBe(0);
    });

    it("coalesces a key's events within the window into one add, counted once by cause", async () => {
      const added: { cause: string; after: number }[] = [];
      const t0 = Date.now();
      const q = new WorkQueue({
        rateLimiter: neverLimited(),
        metrics: {
          depth() {},
          added: (cause) => added.push({ cause, after: Date.now() - t0 }),
          queued() {},
          worked() {},
          retried() {},
        },
      });
      q.addCoalesced("a", 1000, "Pod");
      await vi.advanceTimersByTimeAsync(400);
      q.addCoalesced("a", 1000, "StatefulSet");
      q.addCoalesced("a", 1000, "Pod");
      // Every timer runs (none left pending): one add, when the first event's window closed.
      await vi.runAllTimersAsync();
      expect(vi.getTimerCount()).toBe(0);
      expect(added).toEqual([{ cause: "Pod", after: 1000 }]);
      expect(q.len()).toBe(1);
    });

    it("drops a coalescing window when the key is handed out first (that reconcile reads the change)", async () => {
      const q = new WorkQueue({ rateLimiter: neverLimited() });
      q.addCoalesced("a", 1000);
      q.add("a");
      expect(await q.get()).toBe("a");
      q.done("a");
      await vi.runAllTimersAsync();
      expect(vi.getTimerCount()).toBe(0);
      expect(q.len()).toBe(0);
    });

    it("adds nothing for a key already waiting for a worker, and holds one being processed", async () => {
      const q = new WorkQueue({ rateLimiter: neverLimited() });
      q.add("a");
      q.addCoalesced("a", 1000);
      await vi.runAllTimersAsync();
      expect(vi.getTimerCount()).toBe(0);
      expect(q.len()).toBe(1);
      expect(await q.get()).toBe("a");
      // An event while "a" is processed: the reconcile in flight may have missed it.
      q.addCoalesced("a", 1000);
      await vi.runAllTimersAsync();
      q.done("a");
      expect(q.len()).toBe(1);
      expect(await q.get()).toBe("a");
    });

    it.each<[string, boolean[], boolean, number]>([
      ["one event that turned out to be no news: nothing added", [false], false, 0],
      ["one event still news when the window ends: added", [true], false, 1],
      ["an echo and a real event in one window: added", [false, true], false, 1],
      ["only echoes in the window: nothing added", [false, false], false, 0],
      ["an echo and an event without a check: added", [false], true, 1],
    ])("asks whether an event is still news when its window ends: %s", async (_, checks, plain, want) => {
      const q = new WorkQueue({ rateLimiter: neverLimited() });
      const asked: number[] = [];
      for (const [i, news] of checks.entries()) {
        q.addCoalesced("a", 1000, "ConfigMap", () => {
          asked.push(i);
          return news;
        });
      }
      if (plain) q.addCoalesced("a", 1000, "Pod");
      // Not asked before the window ends (the answer that tells may not have been read yet).
      expect(asked).toEqual([]);
      expect(q.holding).toBe(1);
      await vi.runAllTimersAsync();
      expect(q.holding).toBe(0);
      expect(q.len()).toBe(want);
    });

    it("adds at once with a window of 0, and nothing after shutDown", async () => {
      const q = new WorkQueue({ rateLimiter: neverLimited() });
      q.addCoalesced("a", 0);
      expect(q.len()).toBe(1);
      q.addCoalesced("b", 1000);
      q.shutDown();
      await vi.runAllTimersAsync();
      expect(vi.getTimerCount()).toBe(0);
      expect(q.len()).toBe(1);
    });

    it("retries a failing key after 5 ms, 10 ms, 20 ms ... and forgets the backoff on success", async () => {
      const q = new WorkQueue({ rateLimiter: defaultControllerRateLimiter() });
      const delays = [1, 2, 3, 4, 5].map(() => q.addRateLimited("a"));
      expect(delays).toEqual([5, 10, 20, 40, 80]);
      expect(q.numRequeues("a")).toBe(5);
      q.forget("a");
      expect(q.numRequeues("a")).toBe(0);
      expect(q.addRateLimited("a")).toBe(5);
    });

    it("re-adds a rate-limited key when its delay has passed", async () => {
      const q = new WorkQueue({ rateLimiter: neverLimited() });
      q.addRateLimited("a");
      q.addRateLimited("a");
      expect(q.len()).toBe(0);
      await vi.advanceTimersByTimeAsync(5);
      expect(q.len()).toBe(1);
    });

    it("hands out nothing after shutDown and reports when the keys in flight are done", async () => {
      const q = new WorkQueue({ rateLimiter: neverLimited() });
      q.add("a");
      q.add("b");
      expect(await q.get()).toBe("a");
      q.addAfter("c", 100);
      q.shutDown();
      expect(await q.get()).toBeUndefined();
      let drained = false;
      void q.drained().then(() => {
        drained = true;
      });
      await vi.advanceTimersByTimeAsync(200);
      expect(drained).toBe(false);
      q.done("a");
      await vi.advanceTimersByTimeAsync(0);
      expect(drained).toBe(true);
      q.add("d");
      expect(q.len()).toBe(1); // "b" stays, "c" and "d" were never added
    });
  });
});

describe("rate limiters", () => {
  it("doubles per-key backoff from 5 ms up to the 1000 s cap, independently per key", () => {
    const l = new ExponentialFailureRateLimiter(5, 1_000_000);
    const a = Array.from({ length: 30 }, () => l.when("a"));
    expect(a.slice(0, 4)).toEqual([5, 10, 20, 40]);
    expect(a[17]).toBe(5 * 2 ** 17); // 655.36 s
    expect(a[18]).toBe(1_000_000);
    expect(a.at(-1)).toBe(1_000_000);
    expect(l.when("b")).toBe(5);
    for (let i = 0; i < 2000; i++) l.when("c");
    expect(l.when("c")).toBe(1_000_000); // no overflow past the cap
  });

  it("lets a burst of retries through, then paces them at qps", () => {
    let now = 0;
    const l = new BucketRateLimiter(10, 100, () => now);
    const burst = Array.from({ length: 100 }, (_, i) => l.when(`k${i}`));
    expect(burst.every((d) => d === 0)).toBe(true);
    expect(l.when("x")).toBeCloseTo(100); // 1 token short at 10/s
    expect(l.when("y")).toBeCloseTo(200);
    now += 1000; // 10 tokens regained, 2 already reserved
    expect(l.when("z")).toBeCloseTo(0);
  });

  it("waits for the larger of per-key backoff and the overall bucket", () => {
    const now = 0;
    const l = new MaxOfRateLimiter(
      new ExponentialFailureRateLimiter(5, 1_000_000),
      new BucketRateLimiter(1, 1, () => now),
    );
    expect(l.when("a")).toBe(5); // the bucket had a token: per-key backoff decides
    expect(l.when("a")).toBe(1000); // no token left: the bucket decides
    expect(l.numRequeues("a")).toBe(2);
    l.forget("a");
    expect(l.numRequeues("a")).toBe(0);
  });
});
