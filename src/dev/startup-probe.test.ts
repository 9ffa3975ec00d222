import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
// The pure parts; playStartupProbe against the real API server: test/integration/startup-probe.test.ts.
import { buildRunner } from "../controller/ai/runner.ts";
import { AiModelSpecSchema } from "../schema/ai.ts";
import { readinessPatch, startupProbeUrl } from "./startup-probe.ts";

/** A runner pod as the operator builds it, running on `ip`. */
function runnerPod(ip: string): V1Pod {
  const { deployment } = buildRunner({
    name: "o-text-to-image-abc123",
    namespace: "ai",
    orchestrator: "o",
    model: AiModelSpecSchema.parse({ pipeline: "text-to-image", model_id: "stabilityai/sd-turbo" }),
  });
  return {
    metadata: { name: "o-text-to-image-abc123-x", namespace: "ai" },
    spec: deployment.spec!.template.spec!,
    status: { phase: "Running", podIP: ip },
  };
}

describe("the runner pod's startupProbe as the fleet plays it", () => {
  it("asks GET /health on the runner's port at the pod's IP", () => {
    expect(startupProbeUrl(runnerPod("127.0.0.9"))).toBe("http://127.0.0.9:8000/health");
  });

  it("resolves a named port and leaves pods without an HTTP startupProbe alone", () => {
    const pod = runnerPod("127.0.0.9");
    const container = pod.spec!.containers[0]!;
    container.startupProbe!.httpGet!.port = "http";
    expect(startupProbeUrl(pod)).toBe("http://127.0.0.9:8000/health");
    container.startupProbe!.httpGet!.scheme = "HTTPS";
    expect(startupProbeUrl(pod)).toBeUndefined();
    delete container.startupProbe;
    expect(startupProbeUrl(pod)).toBeUndefined();
    expect(startupProbeUrl({ ...runnerPod("127.0.0.9"), status: { phase: "Pending" } })).toBeUndefined();
  });

  it("writes Ready and ContainersReady as the kubelet does, clearing the not-ready reason once ready", () => {
    const at = new Date("2026-01-02T03:04:05Z");
    const pod = runnerPod("127.0.0.9");
    expect(readinessPatch(pod, false, at).status.conditions).toEqual(
      ["Ready", "ContainersReady"].map((type) => ({
        type,
        status: "False",
        lastTransitionTime: "2026-01-02T03:04:05.000Z",
        reason: "ContainersNotReady",
        message: `containers with unready status: [${pod.spec!.containers[0]!.name}]`,
      })),
    );
    expect(readinessPatch(pod, true, at).status.conditions).toEqual(
      ["Ready", "ContainersReady"].map((type) => ({
        type,
        status: "True",
        lastTransitionTime: "2026-01-02T03:04:05.000Z",
        reason: null,
        message: null,
      })),
    );
  });
});
