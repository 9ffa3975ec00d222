import { describe, expect, it } from "vitest";
import { nextRolloutStep, type RolloutInput, type RolloutPod, sessionsIfFresh } from "./rollout-policy.ts";

const NEW = "gw-new";
const OLD = "gw-old";
const T0 = Date.parse("2026-11-28T01:00:00Z");
const HOUR = 3_600_000;

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

/** The step, reduced to what the table compares: kind and the pod (or pods) it names. */
function summary(i: RolloutInput): string {
  const s = nextRolloutStep(i);
  switch (s.kind) {
    case "replace":
      return `${s.inPlace ? "restart in place" : "replace"} ${s.pod.name} (${s.why}, ${s.remaining} left)`;
    case "waitForPod":
      return `wait for ${s.pod || "a pod"} ${s.state}`;
    case "waitForSessions":
      return `wait for sessions ${s.busy.map((b) => `${b.pod}=${b.sessions ?? "?"}`).join(",")}${s.deadline ? ` until +${(s.deadline - T0) / HOUR}h` : ""}`;
    case "manual":
      return `manual ${s.pods.join(",")}`;
    case "waitForGpu":
      return `wait for GPUs: ${s.pod} idle, ${s.waiters.join(",")} pending${s.deadline ? ` until +${(s.deadline - T0) / HOUR}h` : ""}`;
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
