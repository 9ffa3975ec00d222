import { load } from "js-yaml";
// The kind cluster's shape and the fake device plugin's DaemonSet.
import { describe, expect, it } from "vitest";
import { rtx3090 } from "../cluster/nodes.ts";
import { kindClusterConfig, kindWorkerName } from "./cluster-config.ts";
import { devicePluginDaemonSet } from "./device-plugin-daemonset.ts";

describe("the kind cluster", () => {
  it("has one control-plane node and two workers labelled with their GPUs as GFD does", () => {
    const config = kindClusterConfig({ name: "lpo-e2e", workers: 2, gpu: rtx3090 });
    expect(config.nodes.map((n) => n.role)).toEqual(["control-plane", "worker", "worker"]);
    expect(config.nodes[0]).not.toHaveProperty("labels");
    for (const worker of config.nodes.slice(1)) {
      expect(worker).toMatchObject({
        labels: {
          "nvidia.com/gpu.present": "true",
          "nvidia.com/gpu.product": "NVIDIA-GeForce-RTX-3090",
          "nvidia.com/gpu.count": "2",
        },
      });
    }
  });

  it.each([
    [{ name: "Bad_Name", workers: 2 }, /kind cluster name 'Bad_Name'/],
    [{ name: "lpo", workers: 0 }, /workers: 0: give at least 1 worker/],
    [
      { name: "lpo", workers: 2, workerMounts: [{ hostPath: "store", containerPath: "/store" }] },
      /workerMounts: store -> \/store: give absolute paths/,
    ],
  ])("refuses %j, naming the field", (o, message) => {
    expect(() => kindClusterConfig({ ...o, gpu: rtx3090 })).toThrow(message);
  });

  it("mounts the host directories asked for into every worker, not the control plane", () => {
    const workerMounts = [
      { hostPath: "/tmp/lpo-kind-1/deliveries", containerPath: "/var/lib/lpo-e2e/deliveries" },
    ];
    const config = kindClusterConfig({ name: "lpo-e2e", workers: 2, gpu: rtx3090, workerMounts });
    expect(config.nodes.map((n) => ("extraMounts" in n ? n.extraMounts : undefined))).toEqual([
      undefined,
      workerMounts,
      workerMounts,
    ]);
    const plain = kindClusterConfig({ name: "lpo-e2e", workers: 2, gpu: rtx3090 });
    for (const node of plain.nodes) expect(node).not.toHaveProperty("extraMounts");
  });

  it("names the workers as kind does", () => {
    expect([1, 2].map((n) => kindWorkerName("lpo-e2e-7", n))).toEqual([
      "lpo-e2e-7-worker",
      "lpo-e2e-7-worker2",
    ]);
  });

  it("lets every node's kubelet run on a cgroup v1 host (refused by default since 1.35)", () => {
    const config = kindClusterConfig({ name: "lpo-e2e", workers: 2, gpu: rtx3090 });
    const patch = load(config.kubeadmConfigPatches[0]!) as Record<string, unknown>;
    expect(patch).toEqual({
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      failCgroupV1: false,
    });
  });

  it("runs the fake device plugin on GPU workers only, as root, with the kubelet's plugin dir", () => {
    const ds = devicePluginDaemonSet({
      namespace: "kube-system",
      image: "livepeer-operator:0.1.0",
      gpusPerNode: 2,
    });
    const pod = ds.spec.template.spec;
    expect(pod.nodeSelector).toEqual({ "nvidia.com/gpu.present": "true" });
    expect(pod.containers[0]?.command).toContain("--gpus=2");
    expect(pod.containers[0]?.securityContext).toEqual({ runAsUser: 0, runAsGroup: 0 });
    expect(pod.volumes[0]?.hostPath.path).toBe("/var/lib/kubelet/device-plugins");
  });
});
