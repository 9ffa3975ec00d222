import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../kube/index.ts";
import { nodeFacts, podFacts } from "./facts.ts";

describe("podFacts", () => {
  it("keeps what PodFacts declares and drops the rest of a pod's status", () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "o-0", namespace: "ns", uid: "u", resourceVersion: "7", labels: { a: "b" } },
      spec: { nodeName: "gpu-0", containers: [{ name: "livepeer", image: "livepeer/go-livepeer:0.8.8" }] },
      status: {
        phase: "Running",
        podIP: "127.1.0.5",
        podIPs: [{ ip: "127.1.0.5" }],
        hostIP: "127.0.0.9",
        qosClass: "Burstable",
        startTime: "2026-11-23T10:00:00Z",
        conditions: [
          { type: "Initialized", status: "True", lastTransitionTime: "2026-11-23T10:00:00Z" },
          {
            type: "Ready",
            status: "False",
            reason: "ContainersNotReady",
            lastProbeTime: null,
            lastTransitionTime: "2026-11-23T10:00:01Z",
          },
          { type: "ContainersReady", status: "False", reason: "ContainersNotReady" },
          { type: "PodScheduled", status: "True", lastTransitionTime: "2026-11-23T10:00:00Z" },
        ],
        containerStatuses: [
          {
            name: "livepeer",
            ready: false,
            restartCount: 2,
            started: false,
            image: "livepeer/go-livepeer:0.8.8",
            imageID: "sha256:abc",
            containerID: "containerd://x",
            lastState: { terminated: { exitCode: 1 } },
            volumeMounts: [{ name: "config", mountPath: "/etc/livepeer" }],
            state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 20s" } },
          },
        ],
      },
    } as unknown as KubeObject;
    expect((podFacts(pod) as unknown as { status: unknown }).status).toEqual({
      phase: "Running",
      podIP: "127.1.0.5",
      conditions: [
        {
          type: "Ready",
          status: "False",
          reason: "ContainersNotReady",
          lastTransitionTime: "2026-11-23T10:00:01Z",
        },
        // Only the conditions something reads (Ready, PodScheduled).
        { type: "PodScheduled", status: "True", lastTransitionTime: "2026-11-23T10:00:00Z" },
      ],
      containerStatuses: [
        {
          name: "livepeer",
          ready: false,
          restartCount: 2,
          state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 20s" } },
        },
      ],
    });
    expect(podFacts(pod).spec).toEqual({ nodeName: "gpu-0" });
  });

  it("keeps the GPUs a pod requests (summed), and nothing else of its containers", () => {
    const pod = {
      metadata: { name: "o-0" },
      spec: {
        nodeName: "gpu-0",
        containers: [
          { name: "livepeer", resources: { limits: { "nvidia.com/gpu": "2", cpu: "2" } } },
          { name: "sidecar", resources: { limits: { "nvidia.com/gpu": "1" } } },
        ],
      },
    };
    expect(podFacts(pod).spec).toEqual({
      nodeName: "gpu-0",
      containers: [{ resources: { limits: { "nvidia.com/gpu": "3" } } }],
    });
  });

  it("keeps a pod without a status as it is", () => {
    expect(
      (podFacts({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" } }) as { status?: unknown }).status,
    ).toBeUndefined();
  });
});

describe("nodeFacts", () => {
  it("keeps labels, addresses, taints, cordon and allocatable GPUs; drops the rest", () => {
    const node = {
      metadata: { name: "gpu-a", labels: { "nvidia.com/gpu.present": "true" }, annotations: { x: "y" } },
      spec: {
        taints: [{ key: "nvidia.com/gpu", effect: "NoSchedule", timeAdded: "2026-11-28T01:00:00Z" }],
        unschedulable: true,
        podCIDR: "10.0.0.0/24",
      },
      status: {
        addresses: [
          { type: "InternalIP", address: "127.0.0.9" },
          { type: "Hostname", address: "gpu-a" },
        ],
        allocatable: { cpu: "32", "nvidia.com/gpu": "2" },
        capacity: { cpu: "32", "nvidia.com/gpu": "2" },
      },
    };
    expect(nodeFacts(node)).toEqual({
      metadata: { name: "gpu-a", labels: { "nvidia.com/gpu.present": "true" } },
      spec: { taints: [{ key: "nvidia.com/gpu", effect: "NoSchedule" }], unschedulable: true },
      status: {
        addresses: [{ type: "InternalIP", address: "127.0.0.9" }],
        allocatable: { "nvidia.com/gpu": "2" },
      },
    });
  });

  it("a CPU node keeps no spec and no allocatable", () => {
    expect(nodeFacts({ metadata: { name: "cpu" }, status: { allocatable: { cpu: "4" } } })).toEqual({
      metadata: { name: "cpu" },
      status: { addresses: [] },
    });
  });
});
