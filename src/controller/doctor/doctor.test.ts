// The node doctor over node logs held in memory (its PodLogSource port; the Kubernetes API behind
// it in the controller is test/integration/orchestrator-doctor.test.ts): how often it looks, what
// it reads, and what the lines it reads become.
import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../process/log.ts";
import { NodeDoctor } from "./doctor.ts";
import type { PodLogChunk, PodLogRead, PodLogSource } from "./pod-log-source.ts";
import type { NodeTarget } from "./target.ts";

/** A pod with a log to read (not Ready: no endpoint is dialled). */
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

/**
 * Containers' logs as lines in memory, read as the Kubernetes API reads them: the last N lines or
 * those stamped from a second on, at most limitBytes, "<RFC 3339> <text>". Records every read.
 */
class MemoryPodLogs implements PodLogSource {
  readonly reads: PodLogRead[] = [];
  readonly #logs = new Map<string, { at: Date; text: string }[]>();

  write(pod: string, text: string, opts: { at?: Date; previous?: boolean } = {}): void {
    const key = `${pod}${opts.previous ? "/previous" : ""}`;
    this.#logs.set(key, [...(this.#logs.get(key) ?? []), { at: opts.at ?? new Date(), text }]);
  }

  async read(r: PodLogRead): Promise<PodLogChunk | undefined> {
    this.reads.push(r);
    const log = this.#logs.get(`${r.pod}${r.previous ? "/previous" : ""}`);
    if (!log) return undefined;
    const from = r.from;
    const picked = "tailLines" in from ? log.slice(-from.tailLines) : log.filter((l) => l.at >= from.since);
    const lines: string[] = [];
    let bytes = 0;
    for (const l of picked) {
      const line = `${l.at.toISOString()} ${l.text}`;
      bytes += Buffer.byteLength(line) + 1;
      if (bytes > r.limitBytes) return { lines, truncated: true };
      lines.push(line);
    }
    return { lines, truncated: false };
  }
}

const readPods = (logs: MemoryPodLogs) => logs.reads.map((r) => `${r.pod}${r.previous ? " (previous)" : ""}`);

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
      logs: new MemoryPodLogs(),
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

  it("lookIntervalMs: the period, or pods / rate once the rate cannot look at every pod each period", () => {
    const doctor = new NodeDoctor({
      logs: new MemoryPodLogs(),
      wake: () => {},
      looksPerSecond: 2,
      periodMs: 1_000,
    });
    expect(doctor.lookIntervalMs()).toBe(1_000);
    doctor.observe("ns/a", [target("a-0")], { namespace: "ns" });
    expect(doctor.lookIntervalMs()).toBe(1_000);
    doctor.observe("ns/b", [target("b-0"), target("b-1"), target("b-2"), target("b-3")], { namespace: "ns" });
    expect(doctor.lookIntervalMs()).toBe(2_500);
    doctor.stop();
  });

  it("looks at the longest overdue pods first, and at a pod that changed at once", async () => {
    vi.useFakeTimers();
    const logs = new MemoryPodLogs();
    const doctor = new NodeDoctor({ logs, wake: () => {}, looksPerSecond: 1, periodMs: 10_000, tickMs: 100 });
    for (let i = 0; i < 6; i++) doctor.observe(`ns/o-${i}`, [target(`o-${i}-0`)], { namespace: "ns" });
    await vi.advanceTimersByTimeAsync(100);
    expect(readPods(logs)).toEqual(["o-0-0", "o-1-0", "o-2-0", "o-3-0", "o-4-0", "o-5-0"]);
    logs.reads.length = 0;
    // o-3's container restarts half a second later: looked at at once (previous log, then the
    // current one), so its next periodic look is due after the others'.
    await vi.advanceTimersByTimeAsync(400);
    doctor.observe("ns/o-3", [target("o-3-0", 1)], { namespace: "ns" });
    await vi.advanceTimersByTimeAsync(200);
    expect(readPods(logs)).toEqual(["o-3-0 (previous)", "o-3-0"]);
    logs.reads.length = 0;
    // The period ends: one look a second, by how long each has been due.
    await vi.advanceTimersByTimeAsync(9_300 + 6_000);
    expect(readPods(logs)).toEqual(["o-0-0", "o-1-0", "o-2-0", "o-4-0", "o-5-0", "o-3-0"]);
    doctor.stop();
  });
});

describe("node doctor log reading", () => {
  const reward = 'Error calling reward err="insufficient funds for gas * price + value"';

  it("a catalog line in a node's log becomes a finding since that line, and wakes the resource", async () => {
    vi.useFakeTimers({ now: new Date("2026-03-01T12:00:00.000Z") });
    const logs = new MemoryPodLogs();
    const woken: string[] = [];
    const doctor = new NodeDoctor({ logs, wake: (k) => woken.push(k), periodMs: 5_000, tickMs: 100 });
    logs.write("o-0", "Livepeer is running", { at: new Date("2026-03-01T11:59:58.100Z") });
    logs.write("o-0", reward, { at: new Date("2026-03-01T11:59:59.250Z") });
    expect(doctor.observe("ns/o", [target("o-0")], { namespace: "ns" }).findings).toEqual([]);
    await vi.advanceTimersByTimeAsync(100);
    expect(woken).toEqual(["ns/o"]);
    const { findings } = doctor.observe("ns/o", [target("o-0")], { namespace: "ns" });
    expect(findings).toEqual([
      expect.objectContaining({
        id: "InsufficientGasFunds",
        severity: "error",
        since: "2026-03-01T11:59:59Z",
      }),
    ]);
    expect(findings[0]!.message).toContain(`pod o-0 logged ${JSON.stringify(reward)}`);
    doctor.stop();
  });

  it("reads the tail first, then from the last line's second on; a finding wakes the resource once", async () => {
    vi.useFakeTimers({ now: new Date("2026-03-01T12:00:00.000Z") });
    const logs = new MemoryPodLogs();
    const woken: string[] = [];
    const doctor = new NodeDoctor({
      logs,
      wake: (k) => woken.push(k),
      periodMs: 5_000,
      tickMs: 100,
      firstReadTailLines: 50,
    });
    logs.write("o-0", "started", { at: new Date("2026-03-01T11:59:59.400Z") });
    doctor.observe("ns/o", [target("o-0")], { namespace: "ns" });
    await vi.advanceTimersByTimeAsync(100);
    logs.write("o-0", reward, { at: new Date("2026-03-01T12:00:03.500Z") });
    await vi.advanceTimersByTimeAsync(5_000);
    // Read again a period later, starting at the second of the line read last.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(logs.reads.map((r) => r.from)).toEqual([
      { tailLines: 50 },
      { since: new Date("2026-03-01T11:59:59Z") },
      { since: new Date("2026-03-01T12:00:03Z") },
    ]);
    // The read that found the line woke the resource; the one that read its second again did not.
    expect(woken).toEqual(["ns/o"]);
    doctor.stop();
  });

  it("after a restart, a fatal line of the previous container is a finding", async () => {
    vi.useFakeTimers({ now: new Date("2026-03-01T12:00:00.000Z") });
    const logs = new MemoryPodLogs();
    const doctor = new NodeDoctor({ logs, wake: () => {}, periodMs: 5_000, tickMs: 100 });
    logs.write("o-0", "listen tcp 0.0.0.0:8935: bind: address already in use", {
      at: new Date("2026-03-01T11:59:50Z"),
      previous: true,
    });
    logs.write("o-0", "starting again", { at: new Date("2026-03-01T11:59:55Z") });
    doctor.observe("ns/o", [target("o-0", 1)], { namespace: "ns" });
    await vi.advanceTimersByTimeAsync(100);
    expect(readPods(logs)).toEqual(["o-0 (previous)", "o-0"]);
    const { findings } = doctor.observe("ns/o", [target("o-0", 1)], { namespace: "ns" });
    expect(findings.map((f) => [f.id, f.severity])).toEqual([["PortInUse", "error"]]);
    doctor.stop();
  });

  it("a read cut at its byte limit is continued at once, not a period later", async () => {
    vi.useFakeTimers({ now: new Date("2026-03-01T12:00:00.000Z") });
    const logs = new MemoryPodLogs();
    const doctor = new NodeDoctor({
      logs,
      wake: () => {},
      periodMs: 30_000,
      tickMs: 100,
      logLimitBytes: 200,
    });
    const start = Date.parse("2026-03-01T11:59:40Z");
    for (let s = 0; s < 9; s++)
      logs.write("o-0", `line ${s} ${"x".repeat(60)}`, { at: new Date(start + s * 1_000) });
    logs.write("o-0", reward, { at: new Date(start + 9_000) });
    doctor.observe("ns/o", [target("o-0")], { namespace: "ns" });
    // 10 lines of about 90 bytes, 2 a read: the last one is read within a second, not a period.
    await vi.advanceTimersByTimeAsync(1_000);
    const { findings } = doctor.observe("ns/o", [target("o-0")], { namespace: "ns" });
    expect(findings.map((f) => f.id)).toEqual(["InsufficientGasFunds"]);
    // Caught up: the next read waits for the period.
    const reads = logs.reads.length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(logs.reads.length).toBe(reads);
    doctor.stop();
  });
});

describe("node doctor patients", () => {
  it("keeps nothing for a resource with no pods and no seed (an Orchestrator without AI runners)", () => {
    const doctor = new NodeDoctor({ logs: new MemoryPodLogs(), wake: () => {} });
    expect(doctor.observe("ns/o", [], { namespace: "ns" })).toEqual({ readings: [], findings: [] });
    expect(doctor.tracking("ns/o")).toBe(false);
    expect(doctor.stats()).toMatchObject({ resources: 0, pods: 0 });
    // Its pods come: it is looked after; they go: it is let go again.
    doctor.observe("ns/o", [target("o-0")], { namespace: "ns" });
    expect(doctor.stats()).toMatchObject({ resources: 1, pods: 1 });
    doctor.observe("ns/o", [], { namespace: "ns" });
    expect(doctor.tracking("ns/o")).toBe(false);
    doctor.stop();
  });

  it("with a seed, keeps a resource with no pods: the status's findings are read once, when first seen", () => {
    const doctor = new NodeDoctor({ logs: new MemoryPodLogs(), wake: () => {} });
    const portInUse = {
      id: "PortInUse",
      severity: "error" as const,
      message: "carried over",
      since: "2026-03-01T11:00:00Z",
    };
    expect(doctor.observe("ns/o", [], { namespace: "ns", seed: [] }).findings).toEqual([]);
    expect(doctor.tracking("ns/o")).toBe(true);
    // Seen already: a finding the status gained since (from elsewhere) is not taken as its own.
    expect(doctor.observe("ns/o", [], { namespace: "ns", seed: [portInUse] }).findings).toEqual([]);
    // First seen with it: carried until its pods restart.
    expect(doctor.observe("ns/p", [], { namespace: "ns", seed: [portInUse] }).findings).toEqual([
      expect.objectContaining({ id: "PortInUse", message: "carried over", since: "2026-03-01T11:00:00Z" }),
    ]);
    doctor.stop();
  });

  it("a pod that goes while its look is in flight: the read is aborted and wakes no one", async () => {
    const signals: AbortSignal[] = [];
    const logs: PodLogSource = {
      read: (r) =>
        new Promise((_, reject) => {
          signals.push(r.signal!);
          r.signal!.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        }),
    };
    const woken: string[] = [];
    const doctor = new NodeDoctor({ logs, wake: (k) => woken.push(k) });
    doctor.observe("ns/o", [target("o-0")], { namespace: "ns", seed: [] });
    await vi.waitFor(() => expect(signals).toHaveLength(1));
    expect(doctor.stats().inFlight).toBe(1);
    doctor.observe("ns/o", [], { namespace: "ns", seed: [] });
    expect(signals[0]!.aborted).toBe(true);
    await vi.waitFor(() => expect(doctor.stats().inFlight).toBe(0));
    expect(woken).toEqual([]);
    doctor.stop();
  });

  it("a log that cannot be read is said once, until a read succeeds again", async () => {
    vi.useFakeTimers({ now: new Date("2026-03-01T12:00:00.000Z") });
    const warnings: string[] = [];
    const log = {
      ...silentLogger,
      warn: (_m: string, f?: Record<string, unknown>) => warnings.push(`${f?.error}`),
    };
    let failWith: string | undefined = "pods/log is forbidden";
    const memory = new MemoryPodLogs();
    memory.write("o-0", "Livepeer is running", { at: new Date("2026-03-01T11:59:59Z") });
    const logs: PodLogSource = {
      read: (r) => (failWith ? Promise.reject(new Error(failWith)) : memory.read(r)),
    };
    const doctor = new NodeDoctor({ logs, wake: () => {}, log, periodMs: 1_000, tickMs: 100 });
    doctor.observe("ns/o", [target("o-0")], { namespace: "ns" });
    await vi.advanceTimersByTimeAsync(3_100);
    expect(warnings).toEqual(["pods/log is forbidden"]);
    failWith = "the kubelet is not answering";
    await vi.advanceTimersByTimeAsync(2_000);
    expect(warnings).toEqual(["pods/log is forbidden", "the kubelet is not answering"]);
    failWith = undefined;
    await vi.advanceTimersByTimeAsync(1_000);
    failWith = "the kubelet is not answering";
    await vi.advanceTimersByTimeAsync(2_000);
    expect(warnings).toEqual([
      "pods/log is forbidden",
      "the kubelet is not answering",
      "the kubelet is not answering",
    ]);
    doctor.stop();
  });

  it("a Ready pod whose endpoints fail is looked at again sooner, backing off to the period", async () => {
    vi.useFakeTimers({ now: new Date("2026-03-01T12:00:00.000Z") });
    const t0 = Date.now();
    const doctor = new NodeDoctor({
      logs: new MemoryPodLogs(),
      wake: () => {},
      periodMs: 8_000,
      retryMs: 1_000,
      tickMs: 100,
    });
    // No pod IP yet: the endpoints fail at once, without a dial.
    const ready = { ...target("o-0"), ready: true };
    doctor.observe("ns/o", [ready], { namespace: "ns" });
    await vi.advanceTimersByTimeAsync(24_000);
    const after = doctor.recentLooks().map((l) => Math.round((l.at - t0) / 100) * 100);
    expect(after).toEqual([0, 1_000, 3_000, 7_000, 15_000, 23_000]);
    expect(doctor.observe("ns/o", [ready], { namespace: "ns" }).readings).toEqual([
      expect.objectContaining({ pod: "o-0", failed: expect.objectContaining({ reason: "unreachable" }) }),
    ]);
    doctor.stop();
  });
});
