import { describe, expect, it, vi } from "vitest";
import { KeyedLock } from "./keyed-lock.ts";

const tick = () => new Promise((r) => setTimeout(r, 1));

describe("KeyedLock", () => {
  it("runs one key's tasks in order, never overlapping", async () => {
    const lock = new KeyedLock();
    let running = 0;
    let maxRunning = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        lock.run("k", async () => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          await tick();
          order.push(i);
          running--;
        }),
      ),
    );
    expect(maxRunning).toBe(1);
    expect(order).toEqual([...Array(20).keys()]);
    await vi.waitFor(() => expect(lock.size).toBe(0));
  });

  it("keeps going after a failed task and passes its error to the caller", async () => {
    const lock = new KeyedLock();
    const failed = lock.run("k", async () => {
      throw new Error("boom");
    });
    const next = lock.run("k", async () => 7);
    await expect(failed).rejects.toThrow("boom");
    await expect(next).resolves.toBe(7);
  });

  it("runs different keys in parallel", async () => {
    const lock = new KeyedLock();
    let running = 0;
    let maxRunning = 0;
    await Promise.all(
      ["a", "b", "c"].map((k) =>
        lock.run(k, async () => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          await tick();
          running--;
        }),
      ),
    );
    expect(maxRunning).toBe(3);
  });
});
