import { describe, expect, it } from "vitest";
import { GroupCommit } from "./group-commit.ts";

describe("GroupCommit", () => {
  it("writes items that arrive while a batch is written as one next batch, answering each caller", async () => {
    const batches: number[][] = [];
    let release: () => void = () => {};
    const gc = new GroupCommit<number, string>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await new Promise<void>((r) => (release = r));
      return items.map((i) => `ok ${i}`);
    });
    const first = gc.add(1);
    await new Promise((resolve) => setImmediate(resolve));
    const rest = [gc.add(2), gc.add(3), gc.add(4)];
    release();
    expect(await Promise.all([first, ...rest])).toEqual(["ok 1", "ok 2", "ok 3", "ok 4"]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it("splits at the batch limit", async () => {
    const sizes: number[] = [];
    const gc = new GroupCommit<number, number>(
      async (items) => {
        sizes.push(items.length);
        return items;
      },
      { maxBatch: 2 },
    );
    await Promise.all([1, 2, 3, 4, 5].map((i) => gc.add(i)));
    expect(sizes).toEqual([2, 2, 1]);
  });

  it("with a linger, waits for company before writing after a quiet spell", async () => {
    const batches: number[][] = [];
    const gc = new GroupCommit<number, number>(
      async (items) => {
        batches.push(items);
        return items;
      },
      { lingerMs: 300 },
    );
    const first = gc.add(1);
    // timing-check: the second item must come within the linger, after the first has waited a while.
    await new Promise((r) => setTimeout(r, 10));
    await Promise.all([first, gc.add(2)]);
    expect(batches).toEqual([[1, 2]]);
  });

  it("fails every item of a failed batch and keeps working for the next", async () => {
    let fail = true;
    const gc = new GroupCommit<number, number>(async (items) => {
      if (fail) throw new Error("database is down");
      return items;
    });
    const a = gc.add(1);
    const b = gc.add(2);
    await expect(a).rejects.toThrow("database is down");
    await expect(b).rejects.toThrow("database is down");
    fail = false;
    await expect(gc.add(3)).resolves.toBe(3);
    await gc.flushed();
    expect(gc.pending).toBe(0);
  });
});
