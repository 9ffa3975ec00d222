// What status.ai.live says, from pods, the runners' /health and the node's GET /discovery: one
// case per reason a runner is not offered.
import { describe, expect, it } from "vitest";
import { OrchestratorSchema, type StoredOrchestrator } from "../../schema/orchestrator.ts";
import type { NodeReading } from "../doctor/index.ts";
import type { PodFacts } from "../node-status/facts.ts";
import { planLiveAi } from "./plan.ts";
import { liveAiReady, liveStatusOf } from "./status.ts";

const orch = (registration: "static" | "dynamic", replicas = 2): StoredOrchestrator =>
  ({
    ...OrchestratorSchema.parse({
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Orchestrator",
      metadata: { name: "o" },
      spec: {
        ai: {
          only: true,
          live: { registration, apps: [{ id: "sd", gpus: 0, replicas, price: { usd: "1", unit: "fixed" } }] },
        },
      },
    }),
    metadata: { name: "o", namespace: "ns" },
  }) as StoredOrchestrator;
const planOf = (registration: "static" | "dynamic", replicas = 2) =>
  planLiveAi({
    orch: orch(registration, replicas),
    nodes: [],
    orchestratorUrl: "https://o:8935",
    orchSecret: { name: "s", key: "secret" },
  });

const POD = (i: number) => `o-live-sd-${i}`;
type PodState = "ready" | "unscheduled" | "pull" | "warming" | "crash";
function pod(i: number, state: PodState): PodFacts {
  const ready = state === "ready";
  const waiting =
    state === "pull"
      ? { reason: "ImagePullBackOff", message: "Back-off pulling image" }
      : state === "crash"
        ? { reason: "CrashLoopBackOff" }
        : undefined;
  return {
    metadata: { name: POD(i), labels: { "livepeer.org/live-app": "sd" } },
    status: {
      conditions: [
        ...(state === "unscheduled"
          ? [
              {
                type: "PodScheduled",
                status: "False",
                message: "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
              },
            ]
          : []),
        { type: "Ready", status: ready ? "True" : "False" },
      ],
      containerStatuses: [
        {
          name: "runner",
          ready,
          restartCount: 0,
          state: waiting ? { waiting } : { running: {} },
        },
      ],
    },
  } as PodFacts;
}
const reading = (i: number, health: string | undefined, failed?: string): NodeReading => ({
  pod: POD(i),
  at: new Date(0),
  answered: [],
  simulated: false,
  ...(health ? { health } : {}),
  ...(failed
    ? { failed: { endpoint: "/health", url: "u", reason: "connection-refused", message: failed } }
    : {}),
});
const offered = (...used: [number, number][]): NodeReading["live"] => ({
  runners: used.map(([i, u]) => ({ route: POD(i), app: "live-video-to-video/sd", capacity: 1, used: u })),
});

describe("status.ai.live per app", () => {
  it.each<
    [
      string,
      "static" | "dynamic",
      PodState[],
      NodeReading[],
      NodeReading["live"],
      Partial<Record<string, unknown>>,
      RegExp,
    ]
  >([
    [
      "both runners healthy and offered, one in session",
      "static",
      ["ready", "ready"],
      [reading(0, "OK"), reading(1, "IDLE")],
      offered([0, 1], [1, 0]),
      { desired: 2, registered: 2, healthy: 2, inSession: 1, capacity: 2, ready: true },
      /2 of 2 runner\(s\) healthy, 1 in session/,
    ],
    [
      "capacity full: every runner in session",
      "static",
      ["ready", "ready"],
      [reading(0, "OK"), reading(1, "OK")],
      offered([0, 1], [1, 1]),
      { healthy: 2, inSession: 2, ready: true },
      /^capacity full: all 2 runner\(s\) in session/,
    ],
    [
      "capacity full: no GPU left to schedule a runner",
      "static",
      ["ready", "unscheduled"],
      [reading(0, "OK")],
      offered([0, 0]),
      { healthy: 1, ready: false },
      /o-live-sd-1: capacity full, not scheduled \(0\/3 nodes .*Insufficient nvidia.com\/gpu/,
    ],
    [
      "image pull",
      "static",
      ["pull", "ready"],
      [reading(1, "OK")],
      offered([1, 0]),
      { healthy: 1, ready: false },
      /o-live-sd-0: image pull failing \(ImagePullBackOff: Back-off pulling image\)/,
    ],
    [
      "warm-up: the startup probe has not passed",
      "static",
      ["warming", "ready"],
      [reading(1, "LOADING")],
      offered(),
      { healthy: 0, registered: 2, ready: false },
      /o-live-sd-0: warm-up, loading the pipeline .*o-live-sd-1: warm-up, \/health says LOADING/,
    ],
    [
      "health failing: /health refused, or ERROR",
      "static",
      ["ready", "ready"],
      [reading(0, undefined, "connection refused"), reading(1, "ERROR")],
      offered(),
      { healthy: 0, ready: false },
      /o-live-sd-0: health failing, \/health does not answer \(connection refused\); o-live-sd-1: health failing, \/health says ERROR/,
    ],
    [
      "static: the runner answers, the node's health check does not pass",
      "static",
      ["ready", "ready"],
      [reading(0, "IDLE"), reading(1, "IDLE")],
      offered([0, 0]),
      { healthy: 1, registered: 2 },
      /o-live-sd-1: registered but not offered by the node/,
    ],
    [
      "dynamic: a runner that stopped heartbeating is not registered",
      "dynamic",
      ["ready", "ready"],
      [reading(0, "IDLE"), reading(1, "IDLE")],
      offered([0, 0]),
      { healthy: 1, registered: 1 },
      /o-live-sd-1: not registered or heartbeat stale/,
    ],
    [
      "the node runs without live runners (404 on /discovery)",
      "static",
      ["ready", "ready"],
      [reading(0, "IDLE"), reading(1, "IDLE")],
      { notServed: true },
      { healthy: 0, registered: 0 },
      // The node's side said once; no runner blamed for what the node cannot tell yet.
      /^0 of 2 runner\(s\) healthy: the node answers 404 on \/discovery: [^;]*$/,
    ],
    [
      "the node's discovery not read yet",
      "static",
      ["ready", "ready"],
      [reading(0, "IDLE"), reading(1, "IDLE")],
      undefined,
      { healthy: 0, registered: 0 },
      /^0 of 2 runner\(s\) healthy: the node's GET \/discovery not read yet$/,
    ],
  ])("%s", (_, registration, pods, readings, node, want, reason) => {
    const [status] = liveStatusOf({
      plan: planOf(registration),
      runnerPods: pods.map((s, i) => pod(i, s)),
      runnerReadings: readings,
      node,
    })!;
    expect(status).toMatchObject({ id: "sd", app: "live-video-to-video/sd", price: "1 USD/fixed", ...want });
    expect(status!.reason).toMatch(reason);
  });

  it("a runner not created yet, and an app with no runners", () => {
    const [one] = liveStatusOf({
      plan: planOf("static", 1),
      runnerPods: [],
      runnerReadings: [],
      node: offered(),
    })!;
    expect(one!.reason).toMatch(/o-live-sd-0: not created yet/);
    const [none] = liveStatusOf({
      plan: planOf("static", 0),
      runnerPods: [],
      runnerReadings: [],
      node: offered(),
    })!;
    expect(none).toMatchObject({ desired: 0, ready: false });
    expect(liveAiReady([none!])).toMatchObject({ status: "False", reason: "NoRunners" });
  });
});

describe("LiveAIReady", () => {
  const all = (state: NodeReading["live"]) =>
    liveStatusOf({
      plan: planOf("static"),
      runnerPods: [pod(0, "ready"), pod(1, "ready")],
      runnerReadings: [reading(0, "OK"), reading(1, "OK")],
      node: state,
    })!;
  it.each([
    [
      "every runner offered",
      offered([0, 0], [1, 1]),
      "True",
      "RunnersHealthy",
      /live-video-to-video\/sd \(2 runner\(s\), 1 USD\/fixed\)/,
    ],
    [
      "one missing",
      offered([0, 0]),
      "False",
      "RunnersNotHealthy",
      /1 of 1 live app\(s\) not fully offered: live-video-to-video\/sd: 1 of 2/,
    ],
  ])("%s", (_, node, status, reason, message) => {
    const v = liveAiReady(all(node));
    expect(v).toMatchObject({ status, reason });
    expect(v!.message).toMatch(message);
  });

  it("no spec.ai.live: no condition", () => {
    expect(liveAiReady(undefined)).toBeUndefined();
  });
});
