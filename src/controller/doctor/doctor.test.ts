// The doctor's look rate: however many pods it tracks, it starts at most looksPerSecond looks a
// second (each reads a log through the API server), the longest overdue first.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { KubeClient } from "../runtime/index.ts";
import { NodeDoctor } from "./doctor.ts";
import type { NodeTarget } from "./target.ts";

/** A pod with nothing to read yet (not Ready, no container started): a look costs no I/O. */
const target = (pod: string): NodeTarget => ({
  pod,
  uid: `uid-${pod}`,
  ip: undefined,
  cliPort: 7935,
  role: "orchestrator",
  ready: false,
  hasLog: false,
  restartCount: 0,
  aiExpected: false,
});

afterEach(() => {
  vi.useRealTimers();
});

describe("node doctor look rate", () => {
  it.each([
    [10, 200, 30_000],
    [50, 200, 30_000],
    [5, 40, 1_000],
  ])("%d looks/s over %d pods with a %d ms period", async (rate, pods, periodMs) => {
    vi.useFakeTimers();
    const doctor = new NodeDoctor({
      client: {} as KubeClient,
      wake: () => {},
      looksPerSecond: rate,
      periodMs,
      tickMs: 100,
    });
    for (let i = 0; i < pods; i++) doctor.observe(`ns/o-${i}`, [target(`o-${i}-0`)], { namespace: "ns" });
    await vi.advanceTimersByTimeAsync(0);
    // A full bucket at first: one second's worth at once, never more.
    expect(doctor.stats().looks).toBe(rate);
    for (let s = 1; s <= 3; s++) {
      await vi.advanceTimersByTimeAsync(1_000);
      expect(doctor.stats().looks).toBeGreaterThanOrEqual(rate * (s + 1) - 1);
      expect(doctor.stats().looks).toBeLessThanOrEqual(
        Math.min(rate * (s + 1) + 1, pods * (1 + (s * 1000) / periodMs)),
      );
    }
    // Every pod is looked at within pods / rate seconds (plus a tick), none skipped.
    await vi.advanceTimersByTimeAsync(Math.ceil(pods / rate) * 1_000);
    expect(doctor.stats().looks).toBeGreaterThanOrEqual(pods);
    doctor.stop();
  });

  it("looks at the longest overdue pods first", async () => {
    vi.useFakeTimers();
    // Each look reads the pod's log; the stub records which pod and refuses (a log read failing
    // is said once and the look goes on).
    const read: string[] = [];
    const client = {
      server: "https://127.0.0.1:6443",
      kc: {
        applySecurityAuthentication: async (ctx: { getUrl(): string }) => {
          read.push(/pods\/([^/]+)\/log/.exec(ctx.getUrl())?.[1] ?? "?");
          throw new Error("stub: no API server");
        },
      },
    } as unknown as KubeClient;
    const doctor = new NodeDoctor({ client, wake: () => {}, looksPerSecond: 1, tickMs: 100 });
    const withLog = (pod: string, restartCount = 0) => ({ ...target(pod), hasLog: true, restartCount });
    // Six new pods, all due now: one look a second, in the order they came.
    for (let i = 0; i < 6; i++) doctor.observe(`ns/o-${i}`, [withLog(`o-${i}-0`)], { namespace: "ns" });
    await vi.advanceTimersByTimeAsync(500);
    // o-3's container restarts: due now, but later than the four still waiting since the start.
    doctor.observe("ns/o-3", [withLog("o-3-0", 1)], { namespace: "ns" });
    await vi.advanceTimersByTimeAsync(5_000);
    const pods = read.filter((p, i) => p !== read[i - 1]); // a restart reads the previous log too
    expect(pods).toEqual(["o-0-0", "o-1-0", "o-2-0", "o-4-0", "o-5-0", "o-3-0"]);
    doctor.stop();
  });
});
