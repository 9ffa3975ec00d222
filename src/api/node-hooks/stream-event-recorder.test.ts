import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { NewEvent } from "../delivery/model.ts";
import { StreamEventRecorder } from "./stream-event-recorder.ts";

const event: NewEvent = { userId: "alice", projectId: "default", kind: "stream.started", streamId: "s" };

// A store that answers in `ms` (or never), succeeding or failing: what the auth hook must not wait on.
function recorder(answer: { ms: number | "never"; fails?: boolean }) {
  const registry = new Registry();
  const r = new StreamEventRecorder({
    engine: {
      enqueue: () =>
        new Promise((resolve, reject) => {
          if (answer.ms === "never") return;
          setTimeout(
            () => (answer.fails ? reject(new Error("database is not open")) : resolve({} as never)),
            answer.ms,
          );
        }),
    },
    webhooks: () => [],
    registry,
    budgetMs: 50,
  });
  return { r, registry };
}

describe("recording a stream event within the auth hook's budget", () => {
  it.each([
    ["a store that answers at once", { ms: 0 }, "recorded"],
    ["a store that fails at once", { ms: 0, fails: true }, "unrecorded"],
    ["a store slower than the budget", { ms: 200 }, "pending"],
    ["a store that never answers", { ms: "never" as const }, "pending"],
  ])("%s: %s", async (_, answer, result) => {
    const { r } = recorder(answer);
    const started = performance.now();
    expect(await r.record(event)).toBe(result);
    expect(performance.now() - started).toBeLessThan(150);
  });

  it("a slow record that fails later is still counted as unrecorded", async () => {
    const { r, registry } = recorder({ ms: 100, fails: true });
    expect(await r.record(event)).toBe("pending");
    await expect
      .poll(
        async () =>
          (await registry.getSingleMetric("livepeer_stream_events_total")?.get())?.values.find(
            (v) => v.labels.result === "unrecorded",
          )?.value,
      )
      .toBe(1);
  });
});
