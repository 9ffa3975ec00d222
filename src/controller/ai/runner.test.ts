import { describe, expect, it } from "vitest";
import { AiModelSpecSchema } from "../../schema/ai.ts";
import { gpuNodeRequirements, labelsMatch } from "../gpu/placement.ts";
import { buildRunner } from "./runner.ts";

const model = (m: Record<string, unknown>) =>
  AiModelSpecSchema.parse({ pipeline: "text-to-image", model_id: "stabilityai/sd-turbo", ...m });
const build = (m: Record<string, unknown>, podTemplate?: Record<string, unknown>) =>
  buildRunner({
    name: "o-text-to-image-abc123",
    namespace: "ai",
    orchestrator: "o",
    model: model(m),
    ...(podTemplate ? { podTemplate } : {}),
  });
const terms = (r: ReturnType<typeof build>) =>
  r.deployment.spec?.template.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
    ?.nodeSelectorTerms[0]?.matchExpressions ?? [];

const A100 = {
  "nvidia.com/gpu.present": "true",
  "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB",
  "nvidia.com/gpu.engines.encoder": "0",
  "nvidia.com/gpu.memory": "40960",
};
const T4 = {
  "nvidia.com/gpu.present": "true",
  "nvidia.com/gpu.product": "Tesla-T4",
  "nvidia.com/gpu.memory": "15360",
};

describe("placement: AI may use encoder-less GPUs, video never", () => {
  it.each([
    ["AI runner", false, A100, true],
    ["video", true, A100, false],
    ["AI runner", false, T4, true],
    ["video", true, T4, true],
  ])("%s on %o: %s", (_, needsEncoder, labels, fits) => {
    expect(labelsMatch(labels, gpuNodeRequirements({ count: 1, needsEncoder }))).toBe(fits);
  });

  it("a runner's node affinity admits the A100 and asks for the model's GPU memory", () => {
    const r = build({ runner: { gpus: 2 } });
    expect(labelsMatch(A100, terms(r))).toBe(true);
    // sd-turbo needs ~6 GiB: a T4 (15 GiB) fits too.
    expect(labelsMatch(T4, terms(r))).toBe(true);
    expect(r.deployment.spec?.template.spec?.containers[0]?.resources?.limits).toEqual({
      "nvidia.com/gpu": "2",
    });
  });

  it.each([
    ["the spec's gpuMemoryMiB", { model_id: "a/b", runner: { gpuMemoryMiB: 20_000 } }, "19999"],
    ["the known model's need", { model_id: "black-forest-labs/FLUX.1-schnell" }, "24575"],
  ])("GPU memory from %s", (_, m, gt) => {
    const r = build(m);
    expect(terms(r)).toContainEqual({ key: "nvidia.com/gpu.memory", operator: "Gt", values: [gt] });
    expect(labelsMatch(T4, terms(r))).toBe(false);
  });

  it("an unknown model without gpuMemoryMiB gets any GPU; gpus 0 gets none", () => {
    expect(terms(build({ model_id: "a/b" })).map((t) => t.key)).not.toContain("nvidia.com/gpu.memory");
    const cpu = build({ runner: { gpus: 0 } });
    expect(cpu.deployment.spec?.template.spec?.affinity).toBeUndefined();
    expect(cpu.deployment.spec?.template.spec?.containers[0]?.resources).toBeUndefined();
  });
});

describe("the runner Deployment", () => {
  it("runs capacity pods, never surging past the GPUs it was given", () => {
    const d = build({ capacity: 3 }).deployment;
    expect(d.spec?.replicas).toBe(3);
    expect(d.spec?.strategy).toEqual({
      type: "RollingUpdate",
      rollingUpdate: { maxSurge: 0, maxUnavailable: 1 },
    });
  });

  it.each([
    [undefined, 36],
    [120, 24],
    [45, 9],
  ])("coldStartSeconds %s: the startup probe waits %i x 5 s for /health", (seconds, failures) => {
    const c = build({ runner: seconds ? { coldStartSeconds: seconds } : {} }).deployment.spec?.template.spec
      ?.containers[0];
    expect(c?.startupProbe).toEqual({
      httpGet: { path: "/health", port: 8000 },
      periodSeconds: 5,
      failureThreshold: failures,
    });
    expect(c?.readinessProbe?.httpGet?.path).toBe("/health");
  });

  it.each([
    [
      { persistentVolumeClaim: "models" },
      { persistentVolumeClaim: { claimName: "models", readOnly: true } },
      true,
    ],
    [
      { hostPath: "/var/lib/models", readOnly: false },
      { hostPath: { path: "/var/lib/models", type: "Directory" } },
      false,
    ],
    [undefined, { emptyDir: {} }, false],
  ])("weights %o mounted at /models", (weights, volume, readOnly) => {
    const spec = build({ runner: weights ? { weights } : {} }).deployment.spec?.template.spec;
    expect(spec?.volumes).toEqual([{ name: "weights", ...volume }]);
    expect(spec?.containers[0]?.volumeMounts).toEqual([{ name: "weights", mountPath: "/models", readOnly }]);
  });

  it("tells the runner its pipeline, model, optimisation flags and token (from the AI Secret, never inline)", () => {
    const env = build({ optimization_flags: { SFAST: true } }).deployment.spec?.template.spec?.containers[0]
      ?.env;
    expect(env).toEqual([
      { name: "PIPELINE", value: "text-to-image" },
      { name: "MODEL_ID", value: "stabilityai/sd-turbo" },
      {
        name: "AUTH_TOKEN",
        valueFrom: { secretKeyRef: { name: "o-ai-models", key: "o-text-to-image-abc123.token" } },
      },
      { name: "SFAST", value: "true" },
    ]);
  });

  it.each([
    ["text-to-image", undefined, "livepeer/ai-runner:latest"],
    ["llm", undefined, "livepeer/ai-runner:llm"],
    ["llm", "my/runner:1", "my/runner:1"],
  ])("%s with image %s runs %s", (pipeline, image, expected) => {
    const c = build({ pipeline, runner: image ? { image } : {} }).deployment.spec?.template.spec
      ?.containers[0];
    expect(c?.image).toBe(expected);
  });

  it("shares the Orchestrator's node pool (nodeSelector, tolerations) and is selected by its own label", () => {
    const r = build({}, { nodeSelector: { pool: "ai" }, tolerations: [{ key: "pool", operator: "Exists" }] });
    const spec = r.deployment.spec?.template.spec;
    expect(spec?.nodeSelector).toEqual({ pool: "ai" });
    expect(spec?.tolerations).toEqual([
      { key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" },
      { key: "pool", operator: "Exists" },
    ]);
    expect(r.service.spec?.selector).toEqual(r.deployment.spec?.selector?.matchLabels);
    expect(r.service.spec?.selector?.["livepeer.org/ai-runner"]).toBe("o-text-to-image-abc123");
    expect(r.service.spec?.selector?.["app.kubernetes.io/component"]).toBe("ai-runner");
  });
});
