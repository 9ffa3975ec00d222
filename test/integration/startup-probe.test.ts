// The fleet's startupProbe for runner pods (src/dev/startup-probe.ts) against the real API server:
// the pod's Ready and ContainersReady conditions are False while the runner's port is closed and
// True once /health answers, written through the pod's status subresource as the kubelet does.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CoreV1Api, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRunner } from "../../src/controller/ai/runner.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { playStartupProbe } from "../../src/dev/startup-probe.ts";
import { AiModelSpecSchema } from "../../src/schema/ai.ts";
import { kubeConfig, testNamespace } from "./support/cluster.ts";

const core = kubeConfig().makeApiClient(CoreV1Api);
let ns: Awaited<ReturnType<typeof testNamespace>>;
let server: Server | undefined;
const stop = new AbortController();

beforeAll(async () => {
  ns = await testNamespace("startup-probe");
});
afterAll(async () => {
  stop.abort();
  await new Promise<void>((resolve) => (server?.listening ? server.close(() => resolve()) : resolve()));
  await ns?.remove();
});

/** A free port, closed again: the runner's port while its model loads. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const readiness = async (name: string) => {
  const pod = await core.readNamespacedPodStatus({ name, namespace: ns.name });
  return (pod.status?.conditions ?? [])
    .filter((c) => c.type === "Ready" || c.type === "ContainersReady")
    .map((c) => `${c.type}=${c.status}`)
    .sort();
};

describe("the runner pod's startupProbe as the fleet plays it", () => {
  it("keeps the pod not Ready while its port is closed and marks it Ready once /health answers", async () => {
    const { deployment } = buildRunner({
      name: "o-text-to-image-abc123",
      namespace: ns.name,
      orchestrator: "o",
      model: AiModelSpecSchema.parse({ pipeline: "text-to-image", model_id: "stabilityai/sd-turbo" }),
    });
    const port = await closedPort();
    const spec = structuredClone(deployment.spec!.template.spec!);
    // Never scheduled (no node matches): the status is the fleet's alone to write.
    spec.nodeSelector = { "livepeer.org/test": "no-such-node" };
    spec.containers[0]!.startupProbe!.httpGet!.port = port;
    const created = await core.createNamespacedPod({
      namespace: ns.name,
      body: { metadata: { name: "runner-x" }, spec },
    });
    const pod: V1Pod = { ...created, status: { ...created.status, phase: "Running", podIP: "127.0.0.1" } };

    const probing = playStartupProbe(core, pod, stop.signal);
    await waitFor("the pod marked not Ready", async () => (await readiness("runner-x")).length === 2, 10_000);
    expect(await readiness("runner-x")).toEqual(["ContainersReady=False", "Ready=False"]);
    const notReady = await core.readNamespacedPodStatus({ name: "runner-x", namespace: ns.name });
    expect(notReady.status?.conditions?.find((c) => c.type === "Ready")?.reason).toBe("ContainersNotReady");

    let asked = 0;
    server = createServer((req, res) => {
      asked++;
      res.writeHead(req.url === "/health" ? 200 : 404).end('{"status":"OK"}');
    });
    await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", () => resolve()));
    await probing;
    expect(await readiness("runner-x")).toEqual(["ContainersReady=True", "Ready=True"]);
    const ready = await core.readNamespacedPodStatus({ name: "runner-x", namespace: ns.name });
    expect(ready.status?.conditions?.find((c) => c.type === "Ready")?.reason).toBeUndefined();
    expect(asked).toBeGreaterThan(0);
  });
});
