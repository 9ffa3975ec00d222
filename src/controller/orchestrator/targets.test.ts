import { describe, expect, it } from "vitest";
import { OrchestratorSpecSchema, type StoredOrchestrator } from "../../schema/orchestrator.ts";
import type { PodFacts } from "../node-status/facts.ts";
import { orchestratorTargets } from "./targets.ts";

const orch = (ai = false): StoredOrchestrator => ({
  metadata: { name: "o", namespace: "video" },
  spec: OrchestratorSpecSchema.parse(
    ai ? { ai: { models: [{ pipeline: "text-to-image", model_id: "a/b" }] } } : {},
  ),
});

function pod(name: string, component: string, over: Partial<NonNullable<PodFacts["status"]>> = {}): PodFacts {
  return {
    metadata: { name, uid: `uid-${name}`, labels: { "app.kubernetes.io/component": component } },
    status: {
      phase: "Running",
      podIP: "127.1.0.7",
      conditions: [{ type: "Ready", status: "True" }],
      containerStatuses: [
        {
          name: "livepeer",
          ready: true,
          restartCount: 2,
          state: { running: { startedAt: "2026-01-02T10:00:00Z" } },
        },
      ],
      ...over,
    },
  };
}

describe("orchestratorTargets", () => {
  it("an orchestrator pod: CLI 7935, service 8935, its container's start and restarts", () => {
    expect(orchestratorTargets(orch(true), [pod("o-0", "orchestrator")])).toEqual([
      {
        pod: "o-0",
        uid: "uid-o-0",
        ip: "127.1.0.7",
        cliPort: 7935,
        servicePort: 8935,
        role: "orchestrator",
        ready: true,
        hasLog: true,
        restartCount: 2,
        startedAt: new Date("2026-01-02T10:00:00Z"),
        aiExpected: true,
      },
    ]);
  });

  it("a transcoder pod: CLI 6935, no service port, never asked for AI", () => {
    const [t] = orchestratorTargets(orch(true), [pod("o-transcoder-0", "transcoder")]);
    expect(t).toMatchObject({ cliPort: 6935, servicePort: undefined, role: "transcoder", aiExpected: false });
  });

  it.each([
    [
      "pending: no IP, no log, not Ready",
      {
        podIP: undefined,
        conditions: [],
        containerStatuses: [
          {
            name: "livepeer",
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: "ContainerCreating" } },
          },
        ],
      },
      { ip: undefined, ready: false, hasLog: false, startedAt: undefined },
    ],
    [
      "crash-looping: not Ready, the last container's log is there",
      {
        conditions: [{ type: "Ready", status: "False" }],
        containerStatuses: [
          {
            name: "livepeer",
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: "CrashLoopBackOff" } },
          },
        ],
      },
      { ready: false, hasLog: true, restartCount: 3, startedAt: undefined },
    ],
  ] as const)("%s", (_, status, expected) => {
    const [t] = orchestratorTargets(orch(), [pod("o-0", "orchestrator", status as never)]);
    expect(t).toMatchObject(expected);
  });
});
