import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { describeReport, findFixedWaits, lintRepository, waitHelpers } from "./fixed-waits.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const lines = (...l: string[]) => l.join("\n");
const flagged = (source: string) => findFixedWaits("x.test.ts", source).map((o) => [o.line, o.assertionLine]);

describe("the fixed-wait lint", () => {
  it.each([
    ["a negative after a sleep", lines("  await sleep(1000);", "  expect(got).toHaveLength(0);"), [[1, 2]]],
    [
      "a positive after a setTimeout promise, a statement between",
      lines(
        "  await new Promise((r) => setTimeout(r, 500)); // long enough",
        "  const s = await status();",
        "",
        "  // the status",
        "  expect(s.ready).toBe(true);",
      ),
      [[1, 5]],
    ],
    [
      "a wait wrapped over lines",
      lines("  await new Promise((r) =>", "    setTimeout(r, 50),", "  );", "  expect(x).toBe(1);"),
      [[1, 4]],
    ],
    ["node:timers/promises", lines("  await setTimeout(20);", "  expect(x).toBe(1);"), [[1, 2]]],
    [
      "a helper the file defines as a sleep",
      lines(
        "const tick = () => new Promise((r) => setTimeout(r, 1));",
        "  await tick();",
        "  expect(x).toBe(1);",
      ),
      [[2, 3]],
    ],
  ])("flags %s", (_, source, expected) => {
    expect(flagged(source)).toEqual(expected);
  });

  it.each([
    [
      "a poll loop's pause (the block ends after it)",
      lines("  for (;;) {", "    if (done()) break;", "    await sleep(50);", "  }", "  expect(x).toBe(1);"),
    ],
    [
      "a pause before waiting for a condition",
      lines("  await sleep(50);", "  await until(() => got.length === 1);", "  expect(got[0]).toBe(1);"),
    ],
    ["a wait with no assertion after it", lines("  await sleep(50);", "  server.close();")],
    ["a timer that is not awaited", lines("  setTimeout(() => ac.abort(), 50);", "  expect(x).toBe(1);")],
    [
      "a wait opted out on its line",
      lines("  await sleep(300); // timing-check: measures the debounce", "  expect(calls).toBe(1);"),
    ],
    [
      "a wait opted out above",
      lines(
        "  // timing-check: the limiter's rate is the point",
        "  // over 300 ms",
        "  await sleep(300);",
        "  expect(calls).toBe(3);",
      ),
    ],
  ])("passes %s", (_, source) => {
    expect(flagged(source)).toEqual([]);
  });

  it("an opt-out needs a reason", () => {
    expect(flagged(lines("  await sleep(300); // timing-check:", "  expect(calls).toBe(1);"))).toEqual([
      [1, 2],
    ]);
  });

  it("knows sleep, delay and the file's own sleep helpers", () => {
    expect(
      waitHelpers(
        lines(
          "const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));",
          "function settle() { return new Promise((r) => setTimeout(r, 10)); }",
        ),
      ).sort(),
    ).toEqual(["delay", "pause", "settle", "sleep"]);
  });

  it("an allow-list entry covers one wait and goes stale when the wait goes", () => {
    const r = lintRepository(root, [{ file: "nowhere.test.ts", wait: "await sleep(1);", todo: "gone" }]);
    expect(r.stale).toEqual([{ file: "nowhere.test.ts", wait: "await sleep(1);", todo: "gone" }]);
    expect(describeReport(r)).toMatch(/nowhere\.test\.ts .* matches nothing any more: remove it/);
  });

  it("no test in this repository asserts after a fixed wait (bar the allow-list)", () => {
    const r = lintRepository(root);
    expect(describeReport(r)).toBe("");
  });
});
