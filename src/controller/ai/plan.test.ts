import { describe, expect, it } from "vitest";
import { OrchestratorSchema, type StoredOrchestrator } from "../../schema/orchestrator.ts";
import { runnerName } from "./names.ts";
import { planAi, tokensIn } from "./plan.ts";

const orch = (models: Record<string, unknown>[]): StoredOrchestrator =>
  OrchestratorSchema.parse({
    apiVersion: "livepeer.org/v1alpha1",
    kind: "Orchestrator",
    metadata: { name: "o", namespace: "ai" },
    spec: { ai: { models } },
  }) as StoredOrchestrator;

let drawn = 0;
const newToken = () => `new-${++drawn}`;
const file = (p: ReturnType<typeof planAi>) => JSON.parse(p.secret?.stringData?.["aiModels.json"] ?? "null");

describe("aiModels.json", () => {
  const sd = { pipeline: "text-to-image", model_id: "stabilityai/sd-turbo", warm: true, capacity: 2 };
  const own = {
    pipeline: "llm",
    model_id: "meta-llama/Meta-Llama-3.1-8B-Instruct",
    url: "http://llm:8000",
    token: "theirs",
    capacity: 4,
  };
  const sdRunner = runnerName("o", "text-to-image", "stabilityai/sd-turbo");

  it.each([
    [
      "an operator-run model points at its runner Service with a drawn token and capacity = runner pods",
      [sd],
      {},
      [
        {
          ...sd,
          url: `http://${sdRunner}.ai.svc.cluster.local:8000`,
          token: "new-1",
        },
      ],
    ],
    [
      "a token the Secret holds is kept",
      [sd],
      { [sdRunner]: "kept" },
      [{ ...sd, url: expect.any(String), token: "kept" }],
    ],
    ["a model with its own url is passed through, token and all", [own], {}, [own]],
    [
      "runner settings never reach the node",
      [{ ...sd, runner: { gpus: 2, weights: { hostPath: "/m" } } }],
      { [sdRunner]: "t" },
      [{ ...sd, url: expect.any(String), token: "t" }],
    ],
  ])("%s", (_, models, tokens, expected) => {
    drawn = 0;
    expect(file(planAi({ orch: orch(models), tokens, newToken }))).toEqual(expected);
  });

  it("the Secret holds the file and each runner's token; the pod hash covers the file without tokens", () => {
    const p = planAi({ orch: orch([sd, own]), tokens: { [sdRunner]: "kept" }, newToken });
    expect(Object.keys(p.secret?.stringData ?? {}).sort()).toEqual(["aiModels.json", `${sdRunner}.token`]);
    expect(p.secret?.metadata?.name).toBe("o-ai-models");
    expect(p.podInput).not.toContain("kept");
    expect(p.podInput).not.toContain("theirs");
    expect(p.deployments.map((d) => d.metadata?.name)).toEqual([sdRunner]);
    expect(p.services.map((s) => s.metadata?.name)).toEqual([sdRunner]);
  });

  it("no models: no Secret, no runners, nothing rolls the pod", () => {
    expect(planAi({ orch: orch([]), tokens: {}, newToken })).toEqual({
      models: [],
      deployments: [],
      services: [],
      podInput: "",
    });
  });

  it("reads tokens back from the Secret's base64 data, ignoring the file", () => {
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    expect(tokensIn({ "aiModels.json": b64("[]"), "r1.token": b64("t1") })).toEqual({ r1: "t1" });
    expect(tokensIn(undefined)).toEqual({});
  });
});

describe("runner names", () => {
  it.each([
    ["o", "text-to-image", "stabilityai/sd-turbo"],
    [
      "a-very-long-orchestrator-name-that-fills-most-of-a-dns-label",
      "segment-anything-2",
      "facebook/sam2-hiera-large",
    ],
  ])("%s %s %s: a DNS label, stable, distinct per model", (o, pipeline, model) => {
    const name = runnerName(o, pipeline, model);
    expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(name.length).toBeLessThanOrEqual(63);
    expect(runnerName(o, pipeline, model)).toBe(name);
    expect(runnerName(o, pipeline, `${model}-v2`)).not.toBe(name);
  });
});
