import { describe, expect, it } from "vitest";
import { AiModelSpecSchema } from "../../schema/ai.ts";
import type { NodeReading } from "../doctor/index.ts";
import type { PodFacts } from "../node-status/facts.ts";
import type { ModelRunner } from "./models-file.ts";
import { aiModelStatus, aiReady, aiStatusOf } from "./status.ts";

const model: ModelRunner = {
  model: AiModelSpecSchema.parse({
    pipeline: "text-to-image",
    model_id: "stabilityai/sd-turbo",
    capacity: 2,
  }),
  runner: "o-tti-1",
  url: "http://o-tti-1.ai.svc.cluster.local:8000",
};
const pod = (
  name: string,
  o: { ready?: boolean; unscheduled?: string; waiting?: string } = {},
): PodFacts => ({
  metadata: { name, labels: { "livepeer.org/ai-runner": "o-tti-1" } },
  status: {
    conditions: [
      { type: "Ready", status: o.ready === false || o.unscheduled ? "False" : "True" },
      ...(o.unscheduled ? [{ type: "PodScheduled", status: "False", message: o.unscheduled }] : []),
    ],
    ...(o.waiting
      ? {
          containerStatuses: [
            { name: "runner", ready: false, restartCount: 0, state: { waiting: { reason: o.waiting } } },
          ],
        }
      : {}),
  },
});
const read = (p: string, health: string): NodeReading => ({
  pod: p,
  at: new Date(),
  answered: ["/health"],
  simulated: false,
  health,
});
const failed = (p: string): NodeReading => ({
  pod: p,
  at: new Date(),
  answered: [],
  simulated: false,
  failed: { endpoint: "/health", url: "u", reason: "connection-refused", message: "connection refused" },
});

describe("a model's status from its runner pods and their /health", () => {
  it.each<[string, PodFacts[], NodeReading[], { ready: boolean; runners: number; reason: RegExp }]>([
    [
      "no pod yet",
      [],
      [],
      { ready: false, runners: 0, reason: /no runner pod yet \(Deployment o-tti-1, 2 wanted\)/ },
    ],
    [
      "both serve (OK, IDLE)",
      [pod("r-a"), pod("r-b")],
      [read("r-a", "OK"), read("r-b", "IDLE")],
      { ready: true, runners: 2, reason: /^2 of 2 runner\(s\) serve/ },
    ],
    [
      "one loading the model: a Ready pod is not enough",
      [pod("r-a"), pod("r-b")],
      [read("r-a", "OK"), read("r-b", "LOADING")],
      { ready: false, runners: 1, reason: /1 of 2 .*r-b loading the model \(cold start\)/ },
    ],
    [
      "one not scheduled (no GPU fits)",
      [pod("r-a"), pod("r-b", { unscheduled: "0/3 nodes: Insufficient nvidia.com/gpu" })],
      [read("r-a", "OK")],
      { ready: false, runners: 1, reason: /r-b not scheduled: 0\/3 nodes: Insufficient nvidia.com\/gpu/ },
    ],
    [
      "one starting, one not answering",
      [pod("r-a", { ready: false, waiting: "ContainerCreating" }), pod("r-b")],
      [failed("r-b")],
      {
        ready: false,
        runners: 0,
        reason: /r-a starting \(ContainerCreating\); r-b does not answer \/health/,
      },
    ],
    [
      "one reports ERROR",
      [pod("r-a"), pod("r-b")],
      [read("r-a", "OK"), read("r-b", "ERROR")],
      { ready: false, runners: 1, reason: /r-b reports ERROR/ },
    ],
  ])("%s", (_, pods, readings, want) => {
    const s = aiModelStatus(model, { models: [model], runnerPods: pods, readings });
    expect(s).toMatchObject({
      pipeline: "text-to-image",
      modelId: "stabilityai/sd-turbo",
      runner: "o-tti-1",
      capacity: 2,
      ready: want.ready,
      runners: want.runners,
    });
    expect(s.reason).toMatch(want.reason);
  });

  it("a model with its own url is the user's runner: ready, not checked", () => {
    const own: ModelRunner = {
      model: AiModelSpecSchema.parse({
        pipeline: "llm",
        model_id: "a/b",
        url: "http://mine:8000",
        capacity: 4,
      }),
      url: "http://mine:8000",
    };
    expect(aiModelStatus(own, { models: [own], runnerPods: [], readings: [] })).toEqual({
      pipeline: "llm",
      modelId: "a/b",
      runner: "http://mine:8000",
      ready: true,
      runners: 0,
      capacity: 4,
      reason: "a runner you run at http://mine:8000: not checked by the operator",
    });
  });
});

describe("AIReady", () => {
  it("absent without models", () => {
    expect(aiReady(aiStatusOf({ models: [], runnerPods: [], readings: [] }))).toBeUndefined();
  });

  it("False names each model not served and why; True once all are", () => {
    const cold = aiStatusOf({
      models: [model],
      runnerPods: [pod("r-a")],
      readings: [read("r-a", "LOADING")],
    });
    expect(aiReady(cold)).toEqual({
      status: "False",
      reason: "RunnersNotReady",
      message: expect.stringMatching(
        /^1 of 1 model\(s\) not served yet: text-to-image stabilityai\/sd-turbo: 0 of 2/,
      ),
    });
    const warm = aiStatusOf({
      models: [model],
      runnerPods: [pod("r-a"), pod("r-b")],
      readings: [read("r-a", "OK"), read("r-b", "OK")],
    });
    expect(aiReady(warm)).toEqual({
      status: "True",
      reason: "RunnersServing",
      message: "1 model(s) served: text-to-image stabilityai/sd-turbo (capacity 2)",
    });
  });
});
