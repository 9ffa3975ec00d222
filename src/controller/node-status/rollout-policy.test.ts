import { describe, expect, it } from "vitest";
import type { GpuSlot } from "../gpu/capacity.ts";
import { nextRolloutStep, type RolloutInput, type RolloutPod, sessionsIfFresh } from "./rollout-policy.ts";

const NEW = "gw-new";
const OLD = "gw-old";
const T0 = Date.parse("2026-11-28T01:00:00Z");
const HOUR = 3_600_000;
const MINUTE = 60_000;

const pod = (name: string, o: Partial<RolloutPod> = {}): RolloutPod => ({
  name,
  uid: `${name}-uid`,
  revision: OLD,
  ready: true,
  going: false,
  sessions: 0,
  ...o,
});

const input = (o: Partial<RolloutInput>): RolloutInput => ({
  strategy: "whenIdle",
  updateRevision: NEW,
  replicas: 2,
  pods: [],
  now: T0,
  pendingSince: T0,
  maxWaitMs: undefined,
  ...o,
});

/** A slot verdict as gpu/capacity.ts gives it: `free` GPUs on the best node its template may use. */
const slot = (need: number, free: number): GpuSlot => ({
  fits: free >= need,
  need,
  candidates: [{ node: "gpu-a", free, allocatable: 2 }],
  ownSlot: false,
});
const best = (s: GpuSlot) =>
  s.candidates[0] ? `${s.candidates[0].free} on ${s.candidates[0].node}` : "none";

/** The step, reduced to what the table compares: kind and the pod (or pods) it names. */
function summary(i: RolloutInput): string {
  const s = nextRolloutStep(i);
  switch (s.kind) {
    case "replace":
      return `${s.restartTimedOut ? "restart timed out: " : ""}${s.inPlace ? "restart in place" : "replace"} ${s.pod.name} (${s.why}, ${s.remaining} left)${s.noSlot ? ` without a GPU slot (best ${best(s.noSlot)})` : ""}`;
    case "waitForPod":
      return `wait for ${s.pod || "a pod"} ${s.state}${s.until !== undefined ? ` until +${(s.until - T0) / MINUTE}m` : ""}`;
    case "waitForSessions":
      return `${s.restartTimedOut ? "restart timed out: " : ""}wait for sessions ${s.busy.map((b) => `${b.pod}=${b.sessions ?? "?"}`).join(",")}${s.deadline ? ` until +${(s.deadline - T0) / HOUR}h` : ""}`;
    case "manual":
      return `manual ${s.pods.join(",")}`;
    case "waitForGpu":
      return `wait for GPUs: ${s.pod} idle, ${s.waiters.join(",")} pending${s.deadline ? ` until +${(s.deadline - T0) / HOUR}h` : ""}`;
    case "waitForGpuSlot":
      return `${s.restartTimedOut ? "restart timed out: " : ""}wait for a GPU slot: ${s.pod} needs ${s.slot.need}, best ${best(s.slot)}${s.deadline ? ` until +${(s.deadline - T0) / HOUR}h` : ""}`;
    default:
      return s.kind;
  }
}

describe("nextRolloutStep: which pod goes next", () => {
  it.each<[string, Partial<RolloutInput>, string]>([
    [
      "every pod on the update revision",
      { pods: [pod("g-0", { revision: NEW }), pod("g-1", { revision: NEW })] },
      "upToDate",
    ],
    [
      "the StatefulSet has not recorded the revision yet",
      { updateRevision: undefined, pods: [pod("g-0")] },
      "unknownRevision",
    ],
    [
      "whenIdle: the idle pod goes first, the busy one waits",
      { pods: [pod("g-0", { sessions: 2 }), pod("g-1", { sessions: 0 })] },
      "replace g-1 (idle, 1 left)",
    ],
    [
      "whenIdle: ties go highest ordinal first, as the StatefulSet would",
      { pods: [pod("g-0"), pod("g-1")] },
      "replace g-1 (idle, 1 left)",
    ],
    [
      "whenIdle: every old pod busy, no deadline",
      { pods: [pod("g-0", { sessions: 3 }), pod("g-1", { sessions: 1 })] },
      "wait for sessions g-1=1,g-0=3",
    ],
    [
      "whenIdle: sessions not read count as busy (never replaced on a guess)",
      { replicas: 1, pods: [pod("g-0", { sessions: undefined })] },
      "wait for sessions g-0=?",
    ],
    [
      "whenIdle: busy before the deadline",
      { replicas: 1, pods: [pod("g-0", { sessions: 1 })], maxWaitMs: 2 * HOUR, now: T0 + HOUR },
      "wait for sessions g-0=1 until +2h",
    ],
    [
      "whenIdle: the deadline passed: the least busy goes anyway",
      {
        pods: [pod("g-0", { sessions: 3 }), pod("g-1", { sessions: 1 })],
        maxWaitMs: 2 * HOUR,
        now: T0 + 2 * HOUR,
      },
      "replace g-1 (deadline, 1 left)",
    ],
    [
      "one at a time: the replacement is not Ready yet",
      { pods: [pod("g-0"), pod("g-1", { revision: NEW, ready: false })] },
      "wait for g-1 not Ready",
    ],
    [
      "one at a time: a pod is still going",
      { pods: [pod("g-0"), pod("g-1", { going: true })] },
      "wait for g-1 going",
    ],
    [
      "one at a time: the replacement has not been created",
      { pods: [pod("g-0")] },
      "wait for a pod not created yet",
    ],
    [
      "an old pod that is not Ready waits for the stuck-rollout recovery",
      { replicas: 1, pods: [pod("g-0", { ready: false, sessions: undefined })] },
      "wait for g-0 not Ready",
    ],
    [
      "immediate: the busy pod goes at once",
      { strategy: "immediate", replicas: 1, pods: [pod("g-0", { sessions: 4 })] },
      "replace g-0 (immediate, 0 left)",
    ],
    [
      "immediate: still one at a time",
      {
        strategy: "immediate",
        pods: [pod("g-0", { sessions: 4 }), pod("g-1", { revision: NEW, ready: false })],
      },
      "wait for g-1 not Ready",
    ],
    [
      "whenIdle, a GPU pod idle while another pod waits for GPUs: not freed for it",
      { replicas: 1, usesGpu: true, gpuWaiters: () => ["other-0"], pods: [pod("g-0")], maxWaitMs: HOUR },
      "wait for GPUs: g-0 idle, other-0 pending until +1h",
    ],
    [
      "whenIdle, GPUs contested past the deadline: replaced anyway",
      {
        replicas: 1,
        usesGpu: true,
        gpuWaiters: () => ["other-0"],
        pods: [pod("g-0")],
        maxWaitMs: HOUR,
        now: T0 + HOUR,
      },
      "replace g-0 (deadline, 0 left)",
    ],
    [
      "whenIdle, a CPU pod is not held back by pods waiting for GPUs",
      { replicas: 1, usesGpu: false, gpuWaiters: () => ["other-0"], pods: [pod("g-0")] },
      "replace g-0 (idle, 0 left)",
    ],
    [
      "immediate does not wait for a GPU slot",
      {
        strategy: "immediate",
        replicas: 1,
        usesGpu: true,
        gpuWaiters: () => ["other-0"],
        pods: [pod("g-0")],
      },
      "replace g-0 (immediate, 0 left)",
    ],
    [
      "onDelete: never by itself, whatever the sessions",
      { strategy: "onDelete", pods: [pod("g-1", { sessions: 0 }), pod("g-0", { sessions: 0 })] },
      "manual g-0,g-1",
    ],
    [
      "onDelete: past any deadline too",
      { strategy: "onDelete", replicas: 1, pods: [pod("g-0")], maxWaitMs: 0, now: T0 + HOUR },
      "manual g-0",
    ],
  ])("%s", (_what, i, expected) => {
    expect(summary(input(i))).toBe(expected);
  });
});

describe("nextRolloutStep: a config-only change restarts the node in place", () => {
  const cur = (name: string, o: Partial<RolloutPod> = {}) =>
    pod(name, { revision: NEW, config: "current", ...o });
  it.each<[string, Partial<RolloutInput>, string]>([
    ["every pod runs the current config", { pods: [cur("g-0"), cur("g-1")] }, "upToDate"],
    [
      "a pod never stamped counts as current",
      { pods: [cur("g-0", { config: "unknown" }), cur("g-1")] },
      "upToDate",
    ],
    [
      "whenIdle: the idle pod with an older config restarts in place",
      { pods: [cur("g-0"), cur("g-1", { config: "stale" })] },
      "restart in place g-1 (idle, 0 left)",
    ],
    [
      "whenIdle: a busy pod with an older config waits for its sessions",
      { replicas: 1, pods: [cur("g-0", { config: "stale", sessions: 2 })] },
      "wait for sessions g-0=2",
    ],
    [
      "whenIdle: past maxWait, the busy pod restarts in place anyway",
      {
        replicas: 1,
        now: T0 + 2 * HOUR,
        maxWaitMs: HOUR,
        pods: [cur("g-0", { config: "stale", sessions: 2 })],
      },
      "restart in place g-0 (deadline, 0 left)",
    ],
    [
      "immediate: restarts in place with sessions open",
      { strategy: "immediate", replicas: 1, pods: [cur("g-0", { config: "stale", sessions: 2 })] },
      "restart in place g-0 (immediate, 0 left)",
    ],
    [
      "onDelete: left to the user",
      { strategy: "onDelete", replicas: 1, pods: [cur("g-0", { config: "stale" })] },
      "manual g-0",
    ],
    [
      "one at a time: a pod restarting in place holds the next",
      { pods: [cur("g-0", { config: "restarting" }), cur("g-1", { config: "stale" })] },
      "wait for g-0 restarting in place",
    ],
    [
      "the GPUs stay with the pod: a pod waiting for GPUs does not hold an in-place restart",
      { replicas: 1, usesGpu: true, gpuWaiters: () => ["other-0"], pods: [cur("g-0", { config: "stale" })] },
      "restart in place g-0 (idle, 0 left)",
    ],
    [
      "a new revision goes first as a new pod (it reads the new config anyway)",
      { pods: [cur("g-0", { config: "stale", sessions: 1 }), pod("g-1", { config: "stale" })] },
      "replace g-1 (idle, 1 left)",
    ],
  ])("%s", (_, o, expected) => expect(summary(input(o))).toBe(expected));
});

describe("nextRolloutStep: a new GPU pod needs a free slot", () => {
  const full = () => slot(2, 1);
  const gpuPod = (o: Partial<RolloutInput>): Partial<RolloutInput> => ({ replicas: 1, usesGpu: true, ...o });
  it.each<[string, Partial<RolloutInput>, string]>([
    [
      "whenIdle: no node has the GPUs the new template asks for: the idle pod stays",
      gpuPod({ gpuSlot: full, pods: [pod("o-0")], maxWaitMs: HOUR }),
      "wait for a GPU slot: o-0 needs 2, best 1 on gpu-a until +1h",
    ],
    [
      "whenIdle: a busy pod with no slot says so first (the sessions would not be the last wait)",
      gpuPod({ gpuSlot: full, pods: [pod("o-0", { sessions: 3 })] }),
      "wait for a GPU slot: o-0 needs 2, best 1 on gpu-a",
    ],
    [
      "whenIdle: a slot is free: replaced as usual",
      gpuPod({ gpuSlot: () => slot(2, 2), pods: [pod("o-0")] }),
      "replace o-0 (idle, 0 left)",
    ],
    [
      "whenIdle, past the deadline: replaced anyway, without a slot",
      gpuPod({ gpuSlot: full, pods: [pod("o-0")], maxWaitMs: HOUR, now: T0 + HOUR }),
      "replace o-0 (deadline, 0 left) without a GPU slot (best 1 on gpu-a)",
    ],
    [
      "whenIdle, busy past the deadline: replaced anyway, without a slot",
      gpuPod({ gpuSlot: full, pods: [pod("o-0", { sessions: 2 })], maxWaitMs: HOUR, now: T0 + HOUR }),
      "replace o-0 (deadline, 0 left) without a GPU slot (best 1 on gpu-a)",
    ],
    [
      "immediate: replaced at once, without a slot",
      gpuPod({ strategy: "immediate", gpuSlot: full, pods: [pod("o-0", { sessions: 2 })] }),
      "replace o-0 (immediate, 0 left) without a GPU slot (best 1 on gpu-a)",
    ],
    [
      "onDelete: left to the user whatever the slots",
      gpuPod({ strategy: "onDelete", gpuSlot: full, pods: [pod("o-0")] }),
      "manual o-0",
    ],
    [
      "a CPU pod is never asked about GPU slots",
      { replicas: 1, usesGpu: false, gpuSlot: full, pods: [pod("o-0")] },
      "replace o-0 (idle, 0 left)",
    ],
    [
      "an in-place restart keeps its GPUs: no slot needed",
      gpuPod({ gpuSlot: full, pods: [pod("o-0", { revision: NEW, config: "stale" })] }),
      "restart in place o-0 (idle, 0 left)",
    ],
    [
      "a slot is free but another pod waits for GPUs: the existing contest rule still holds",
      gpuPod({ gpuSlot: () => slot(1, 1), gpuWaiters: () => ["other-0"], pods: [pod("o-0")] }),
      "wait for GPUs: o-0 idle, other-0 pending",
    ],
  ])("%s", (_, o, expected) => expect(summary(input(o))).toBe(expected));

  it("asks about the slot of the pod it would replace, once, and not while one at a time holds it", () => {
    const asked: string[] = [];
    const gpuSlot = (p: RolloutPod) => {
      asked.push(p.name);
      return slot(1, 1);
    };
    nextRolloutStep(input({ usesGpu: true, gpuSlot, pods: [pod("o-0", { sessions: 1 }), pod("o-1")] }));
    expect(asked).toEqual(["o-1"]);
    nextRolloutStep(input({ usesGpu: true, gpuSlot, pods: [pod("o-0"), pod("o-1", { going: true })] }));
    expect(asked).toEqual(["o-1"]);
  });
});

describe("nextRolloutStep: an in-place restart that does not come is given up for a new pod", () => {
  const asked = (name: string, at: number, o: Partial<RolloutPod> = {}) =>
    pod(name, { revision: NEW, config: "restarting", restartAskedAt: at, ...o });
  it.each<[string, Partial<RolloutInput>, string]>([
    [
      "within the timeout: waits for the restart, saying until when",
      { replicas: 1, now: T0 + 4 * MINUTE, pods: [asked("g-0", T0)] },
      "wait for g-0 restarting in place until +5m",
    ],
    [
      "asked by an operator that did not record when: waits (no time to count from)",
      { replicas: 1, now: T0 + HOUR, pods: [asked("g-0", T0, { restartAskedAt: undefined })] },
      "wait for g-0 restarting in place",
    ],
    [
      "the timeout passed, idle: the pod is replaced instead",
      { replicas: 1, now: T0 + 5 * MINUTE, pods: [asked("g-0", T0)] },
      "restart timed out: replace g-0 (idle, 0 left)",
    ],
    [
      "a custom timeout",
      { replicas: 1, inPlaceTimeoutMs: MINUTE, now: T0 + MINUTE, pods: [asked("g-0", T0)] },
      "restart timed out: replace g-0 (idle, 0 left)",
    ],
    [
      "the timeout passed, busy: whenIdle waits for its sessions as for any replacement",
      { replicas: 1, now: T0 + 6 * MINUTE, pods: [asked("g-0", T0, { sessions: 2 })] },
      "restart timed out: wait for sessions g-0=2",
    ],
    [
      "the timeout passed, not Ready (restarting in a loop): it serves nothing, replaced",
      { replicas: 1, now: T0 + 6 * MINUTE, pods: [asked("g-0", T0, { ready: false, sessions: undefined })] },
      "restart timed out: replace g-0 (idle, 0 left)",
    ],
    [
      "the timeout passed, immediate: replaced at once",
      { strategy: "immediate", replicas: 1, now: T0 + 6 * MINUTE, pods: [asked("g-0", T0, { sessions: 2 })] },
      "restart timed out: replace g-0 (immediate, 0 left)",
    ],
    [
      "the timeout passed, a GPU pod with no slot for its replacement: waits for one",
      {
        replicas: 1,
        usesGpu: true,
        gpuSlot: () => slot(1, 0),
        now: T0 + 6 * MINUTE,
        pods: [asked("g-0", T0)],
      },
      "restart timed out: wait for a GPU slot: g-0 needs 1, best 0 on gpu-a",
    ],
    [
      "one at a time: a restart still within its timeout holds the timed-out one's replacement",
      { now: T0 + 6 * MINUTE, pods: [asked("g-0", T0), asked("g-1", T0 + 3 * MINUTE)] },
      "wait for g-1 restarting in place until +8m",
    ],
  ])("%s", (_, o, expected) => expect(summary(input(o))).toBe(expected));
});

describe("sessionsIfFresh", () => {
  const at = new Date(T0);
  it.each<[string, { at: Date; sessions?: number } | undefined, number, number | undefined]>([
    ["a fresh reading tells", { at, sessions: 2 }, T0 + 1_000, 2],
    ["a fresh idle reading tells 0", { at, sessions: 0 }, T0 + 1_000, 0],
    ["a stale reading tells nothing", { at, sessions: 0 }, T0 + 61_000, undefined],
    ["no reading tells nothing", undefined, T0, undefined],
    ["a reading without sessions tells nothing", { at }, T0, undefined],
  ])("%s", (_what, reading, now, expected) => {
    expect(sessionsIfFresh(reading, now, 60_000)).toBe(expected);
  });
});
