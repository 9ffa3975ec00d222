import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { CoreV1Api, V1Pod } from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import { buildRunner } from "../controller/ai/runner.ts";
import { AiModelSpecSchema } from "../schema/ai.ts";
import { playStartupProbe, readinessPatch, startupProbeUrl } from "./startup-probe.ts";

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

  let server: Server | undefined;
  let stop: AbortController | undefined;
  afterEach(async () => {
    stop?.abort();
    await new Promise<void>((resolve) => (server?.listening ? server.close(() => resolve()) : resolve()));
  });

  it("keeps the pod not Ready while its port is closed and marks it Ready once /health answers", async () => {
    // A free port, closed again: the runner's port while its model loads.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const pod = runnerPod("127.0.0.1");
    pod.spec!.containers[0]!.startupProbe!.httpGet!.port = port;
    const marks: string[] = [];
    const core = {
      patchNamespacedPodStatus: async (o: { body: ReturnType<typeof readinessPatch> }) => {
        marks.push(o.body.status.conditions[0]!.status);
        return {};
      },
    } as unknown as CoreV1Api;
    stop = new AbortController();
    const probing = playStartupProbe(core, pod, stop.signal);
    const deadline = Date.now() + 5_000;
    while (marks.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(marks).toEqual(["False"]);
    let asked = 0;
    server = createServer((req, res) => {
      asked++;
      res.writeHead(req.url === "/health" ? 200 : 404).end('{"status":"OK"}');
    });
    await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", () => resolve()));
    await probing;
    expect(marks).toEqual(["False", "True"]);
    expect(asked).toBeGreaterThan(0);
  });
});
