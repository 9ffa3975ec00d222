// Proves the local control plane behaves like a real cluster where the operator depends on it:
// the real scheduler places GPU pods, the controller-manager runs Deployments and garbage
// collection, kwok serves logs, and RBAC denies what it should.
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AppsV1Api, CoreV1Api, KubeConfig, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { attachPodLogs, createNodePool } from "../../src/dev/cluster/fleet.ts";
import { renderKubeconfig } from "../../src/dev/cluster/kubeconfig.ts";
import { criLogLine } from "../../src/dev/cluster/kwok.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { kubeConfig, kubectl, testNamespace } from "./support/cluster.ts";

const kc = kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const apps = kc.makeApiClient(AppsV1Api);
let ns: Awaited<ReturnType<typeof testNamespace>>;

beforeAll(async () => {
  ns = await testNamespace("harness");
});
afterAll(async () => {
  await ns.remove();
});

function gpuPod(name: string, gpus: number): V1Pod {
  return {
    metadata: { name },
    spec: {
      containers: [
        {
          name: "main",
          image: "livepeer/go-livepeer",
          resources: { limits: { "nvidia.com/gpu": String(gpus) } },
        },
      ],
      tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
    },
  };
}

async function podWhen(name: string, ok: (p: V1Pod) => boolean): Promise<V1Pod> {
  let pod: V1Pod | undefined;
  await waitFor(
    `pod ${name}`,
    async () => {
      pod = await core.readNamespacedPod({ name, namespace: ns.name });
      return ok(pod);
    },
    60_000,
    () => JSON.stringify(pod?.status),
  );
  return pod!;
}

describe("local control plane", () => {
  it("reports the pinned Kubernetes version (Helm checks it)", async () => {
    const out = JSON.parse(await kubectl(["version", "-o", "json"]));
    expect(out.serverVersion.gitVersion).toBe("v1.36.3");
  });

  it("has fake GPU nodes labelled like GPU Feature Discovery labels real ones", async () => {
    const out = await kubectl(["get", "nodes", "-L", "nvidia.com/gpu.product", "--no-headers"]);
    expect(out).toMatch(/gpu-rtx3090-a\s+Ready.*NVIDIA-GeForce-RTX-3090/);
    expect(out).toMatch(/gpu-t4\s+Ready.*Tesla-T4/);
    expect(out).toMatch(/gpu-a100\s+Ready.*NVIDIA-A100-SXM4-40GB/);
    expect(out).toMatch(/gpu-t4-shared\s+Ready.*Tesla-T4-SHARED/);
    const node = await core.readNode({ name: "gpu-rtx3090-a" });
    expect(node.status?.allocatable?.["nvidia.com/gpu"]).toBe("2");
    expect(node.spec?.taints).toContainEqual(
      expect.objectContaining({ key: "nvidia.com/gpu", effect: "NoSchedule" }),
    );
    const shared = await core.readNode({ name: "gpu-t4-shared" });
    expect(shared.metadata?.labels?.["nvidia.com/gpu.replicas"]).toBe("4");
    expect(shared.metadata?.labels?.["nvidia.com/gpu.count"]).toBe("1");
  });

  it("binds a pod asking for one GPU to a GPU node, Running with a loopback pod IP", async () => {
    await core.createNamespacedPod({ namespace: ns.name, body: gpuPod("one-gpu", 1) });
    const pod = await podWhen("one-gpu", (p) => p.status?.phase === "Running" && !!p.status.podIP);
    const node = await core.readNode({ name: pod.spec!.nodeName! });
    expect(node.metadata?.labels?.["nvidia.com/gpu.present"]).toBe("true");
    expect(pod.status?.podIP).toMatch(/^127\.\d+\./);
  });

  it("leaves a pod asking for more GPUs than any node has Pending with the scheduler's reason", async () => {
    await core.createNamespacedPod({ namespace: ns.name, body: gpuPod("too-many-gpus", 64) });
    const pod = await podWhen(
      "too-many-gpus",
      (p) =>
        !!p.status?.conditions?.some((c) => c.type === "PodScheduled" && c.status === "False" && c.message),
    );
    expect(pod.status?.phase).toBe("Pending");
    const scheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
    expect(scheduled?.reason).toBe("Unschedulable");
    expect(scheduled?.message).toContain("Insufficient nvidia.com/gpu");
  });

  it("runs Deployments (controller-manager) and garbage-collects children when the owner goes", async () => {
    await apps.createNamespacedDeployment({
      namespace: ns.name,
      body: {
        metadata: { name: "web" },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: { containers: [{ name: "c", image: "nginx" }] },
          },
        },
      },
    });
    await waitFor(
      "deployment pods Running",
      async () => {
        const pods = await core.listNamespacedPod({ namespace: ns.name, labelSelector: "app=web" });
        return pods.items.length === 2 && pods.items.every((p) => p.status?.phase === "Running");
      },
      60_000,
    );
    await apps.deleteNamespacedDeployment({
      name: "web",
      namespace: ns.name,
      propagationPolicy: "Background",
    });
    await waitFor(
      "garbage collection of the ReplicaSet and pods",
      async () => {
        const [rs, pods] = await Promise.all([
          apps.listNamespacedReplicaSet({ namespace: ns.name, labelSelector: "app=web" }),
          core.listNamespacedPod({ namespace: ns.name, labelSelector: "app=web" }),
        ]);
        return rs.items.length === 0 && pods.items.length === 0;
      },
      60_000,
    );
  });

  it("serves `kubectl logs` of a fake pod from a file, including lines appended later", async () => {
    await core.createNamespacedPod({
      namespace: ns.name,
      body: {
        metadata: { name: "logger" },
        spec: { containers: [{ name: "node", image: "livepeer/go-livepeer" }] },
      },
    });
    await podWhen("logger", (p) => p.status?.phase === "Running");
    const file = path.join(os.tmpdir(), `lpo-logs-${ns.name}.log`);
    writeFileSync(
      file,
      criLogLine("I1121 10:00:01.000000 1 starter.go:100] ***Livepeer is running on the offchain network***"),
    );
    try {
      await attachPodLogs(kc, { namespace: ns.name, pod: "logger", file });
      let out = "";
      await waitFor(
        "kubectl logs to return the file's line",
        async () => {
          out = await kubectl(["logs", "-n", ns.name, "logger"]);
          return out.includes("Livepeer is running");
        },
        30_000,
        () => out,
      );
      expect(out.trim()).toBe(
        "I1121 10:00:01.000000 1 starter.go:100] ***Livepeer is running on the offchain network***",
      );
    } finally {
      const { rmSync } = await import("node:fs");
      rmSync(file, { force: true });
    }
  });

  it("denies a service account that has no role", async () => {
    await core.createNamespacedServiceAccount({ namespace: ns.name, body: { metadata: { name: "nobody" } } });
    const token = await core.createNamespacedServiceAccountToken({
      name: "nobody",
      namespace: ns.name,
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    const admin = kubeConfig();
    const cluster = admin.getCurrentCluster()!;
    const saKc = new KubeConfig();
    const caFile = path.join(inject("controlPlaneDir"), "pki", "ca.crt");
    saKc.loadFromString(renderKubeconfig(cluster.server, caFile, { token: token.status!.token }));
    const saCore = saKc.makeApiClient(CoreV1Api);
    await expect(saCore.listNamespacedPod({ namespace: ns.name })).rejects.toMatchObject({ code: 403 });
    // Bound to a role, the same token may list pods: the denial above was RBAC, not authentication.
    await kubectl(["create", "role", "pod-reader", "-n", ns.name, "--verb=list", "--resource=pods"]);
    await kubectl([
      "create",
      "rolebinding",
      "nobody-reads",
      "-n",
      ns.name,
      "--role=pod-reader",
      `--serviceaccount=${ns.name}:nobody`,
    ]);
    await waitFor(
      "RBAC to allow the bound service account",
      async () => {
        await saCore.listNamespacedPod({ namespace: ns.name });
        return true;
      },
      10_000,
    );
    await expect(saCore.listNamespacedSecret({ namespace: ns.name })).rejects.toMatchObject({ code: 403 });
  });

  it("gives a test its own node pool that other pods cannot land on", async () => {
    const pool = await createNodePool(kc, `pool-${ns.name}`.slice(0, 40), [
      {
        name: "t4",
        cpu: "8",
        memory: "32Gi",
        gpu: {
          product: "Tesla-T4",
          count: 1,
          memoryMiB: 15360,
          family: "turing",
          computeMajor: 7,
          computeMinor: 5,
        },
      },
    ]);
    try {
      const body = gpuPod("pooled", 1);
      body.spec!.nodeSelector = pool.nodeSelector;
      body.spec!.tolerations!.push(...pool.tolerations);
      await core.createNamespacedPod({ namespace: ns.name, body });
      const pod = await podWhen("pooled", (p) => p.status?.phase === "Running");
      expect(pool.nodes).toContain(pod.spec?.nodeName);
      const node = await core.readNode({ name: pool.nodes[0]! });
      expect(node.spec?.taints).toContainEqual(
        expect.objectContaining({ key: "livepeer.org/test-pool", effect: "NoSchedule" }),
      );
    } finally {
      await pool.delete();
    }
  });
});
