// The doctor's look rate: however many pods it tracks, it starts at most looksPerSecond periodic
// looks a second (each reads a log through the API server), the longest overdue first; a pod that
// just changed is looked at at once.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { KubeClient } from "../../kube/index.ts";
import { NodeDoctor } from "./doctor.ts";
import type { NodeTarget } from "./target.ts";

/** A pod with a log to read; the client below records whose log each look reads. */
const target = (pod: string, restartCount = 0): NodeTarget => ({
  pod,
  uid: `uid-${pod}`,
  ip: undefined,
  cliPort: 7935,
  role: "orchestrator",
  ready: false,
  hasLog: true,
  restartCount,
  aiExpected: false,
});

/** Records the pod of each log read and refuses it (a failed read is said once; the look goes on). */
function recordingClient(read: string[]): KubeClient {
  return {
    server: "https://127.0.0.1:6443",
    send: async (_method: string, path: string) => {
      read.push(/pods\/([^/]+)\/log/.exec(path)?.[1] ?? "?");
      throw new Error("stub: no API server");
    },
  } as unknown as KubeClient;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("node doctor look rate", () => {
  it.each([
    [10, 200],
    [50, 200],
    [5, 40],
  ])("%d periodic looks/s over %d pods", async (rate, pods) => {
    vi.useFakeTimers();
    const periodMs = 30_000;
    const doctor = new NodeDoctor({
      client: recordingClient([]),
      wake: () => {},
      looksPerSecond: rate,
      periodMs,
      tickMs: 100,
    });
    for (let i = 0; i < pods; i++) doctor.observe(`ns/o-${i}`, [target(`o-${i}-0`)], { namespace: "ns" });
    // New pods are news: all looked at now, whatever the rate.
    await vi.advanceTimersByTimeAsync(200);
    expect(doctor.stats().looks).toBe(pods);
    // One period later they are all due again: `rate` a second (a full bucket first).
    await vi.advanceTimersByTimeAsync(periodMs - 200);
    for (let s = 1; s <= 3; s++) {
      await vi.advanceTimersByTimeAsync(1_000);
      const periodic = doctor.stats().looks - pods;
      expect(periodic).toBeGreaterThanOrEqual(rate * s - 1);
      expect(periodic).toBeLessThanOrEqual(rate * (s + 1) + 1);
    }
    // Every pod is looked at again within pods / rate seconds: none skipped.
    await vi.advanceTimersByTimeAsync(Math.ceil(pods / rate) * 1_000);
    expect(doctor.stats().looks).toBeGreaterThanOrEqual(2 * pods);
    doctor.stop();
  });

  it("looks at the longest overdue pods first, and at a pod that changed at once", async () => {
    vi.useFakeTimers();
    const read: string[] = [];
    const doctor = new NodeDoctor({
      client: recordingClient(read),
      wake: () => {},
      looksPerSecond: 1,
      periodMs: 10_000,
      tickMs: 100,
    });
    for (let i = 0; i < 6; i++) doctor.observe(`ns/o-${i}`, [target(`o-${i}-0`)], { namespace: "ns" });
    await vi.advanceTimersByTimeAsync(100);
    expect(read).toEqual(["o-0-0", "o-1-0", "o-2-0", "o-3-0", "o-4-0", "o-5-0"]);
    read.length = 0;
    // o-3's container restarts half a second later: looked at at once (previous log, then the
    // current one), so its next periodic look is due after the others'.
    await vi.advanceTimersByTimeAsync(400);
    doctor.observe("ns/o-3", [target("o-3-0", 1)], { namespace: "ns" });
    await vi.advanceTimersByTimeAsync(200);
    expect(read).toEqual(["o-3-0", "o-3-0"]);
    read.length = 0;
    // The period ends: one look a second, by how long each has been due.
    await vi.advanceTimersByTimeAsync(9_300 + 6_000);
    expect(read).toEqual(["o-0-0", "o-1-0", "o-2-0", "o-4-0", "o-5-0", "o-3-0"]);
    doctor.stop();
  });
});
