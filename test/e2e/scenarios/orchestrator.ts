// An Orchestrator asking for one GPU lands on a GPU node, gets a device from the device plugin
// (the kubelet's own device manager allocates it) and goes Ready and Simulated; its ports answer
// at its pod IP from inside the cluster; the controller, in its pod, reads the node's log and
// status without being refused.
import { describe, expect, it } from "vitest";
import { waitFor } from "../../../src/dev/cluster/process.ts";
import { APP_NS, core, ctx, fetchInCluster, kubectl, nodeIn, podsReport } from "../support/cluster.ts";
import { condition, ORCH, POOL, type Resource } from "../support/resources.ts";

describe("an Orchestrator on a GPU node", () => {
  it("lands on a GPU node, gets a device-plugin GPU and goes Ready, Simulated", async () => {
    const body = {
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Orchestrator",
      metadata: { name: ORCH, namespace: APP_NS, labels: POOL },
      spec: { pricePerUnit: "1000", gpu: { count: 1 }, podTemplate: ctx.placement },
    };
    await kubectl(["apply", "--server-side", "--field-manager=e2e", "-f", "-"], JSON.stringify(body));
    let last: Resource | undefined;
    await waitFor(
      "the Orchestrator Ready and Simulated",
      async () => {
        last = JSON.parse(
          await kubectl(["get", "orchestrators.livepeer.org", ORCH, "-n", APP_NS, "-o", "json"]),
        );
        return condition(last, "Ready")?.status === "True" && condition(last, "Simulated")?.status === "True";
      },
      240_000,
      () => JSON.stringify(last?.status, null, 1),
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await podsReport()}`);
    });

    // The node's StatefulSet has one pod, <name>-0.
    const pod = await core.readNamespacedPod({ name: `${ORCH}-0`, namespace: APP_NS });
    expect(last?.status?.node).toBe(pod.spec?.nodeName);
    const node = await core.readNode({ name: pod.spec!.nodeName! });
    for (const [k, v] of Object.entries(ctx.placement.nodeSelector))
      expect(node.metadata?.labels?.[k]).toBe(v);
    expect(Number(node.status?.allocatable?.["nvidia.com/gpu"])).toBeGreaterThanOrEqual(1);
    expect(pod.status?.phase).toBe("Running");
    expect(pod.spec?.containers[0]?.image).toBe(ctx.simulatorImage);
    expect(pod.spec?.containers[0]?.resources?.limits?.["nvidia.com/gpu"]).toBe("1");
    // The device plugin's Allocate answer, as NVIDIA's plugin gives it.
    const visible = await nodeIn(
      pod.metadata!.name!,
      APP_NS,
      "console.log(process.env.NVIDIA_VISIBLE_DEVICES)",
    );
    expect(visible).toMatch(/^GPU-[0-9a-f-]+$/);

    const ip = pod.status!.podIP!;
    const status = await fetchInCluster(`http://${ip}:7935/status`);
    expect(status.status, status.text).toBe(200);
    expect(JSON.parse(status.text)).toMatchObject({ Simulated: true });
    const controllerLogs = await kubectl([
      "logs",
      "-n",
      ctx.namespace,
      "-l",
      "app.kubernetes.io/component=controller",
      "--tail=-1",
    ]);
    expect(controllerLogs).not.toMatch(/Unauthorized|forbidden/i);
  }, 300_000);
});
