import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../kube/index.ts";
import { serviceFacts } from "./child-facts.ts";

const service = (status: unknown) =>
  ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "o", namespace: "ns", uid: "u", resourceVersion: "3", annotations: { a: "b" } },
    spec: {
      type: "LoadBalancer",
      clusterIP: "10.0.0.7",
      clusterIPs: ["10.0.0.7"],
      ports: [{ name: "http", port: 8935, nodePort: 31000 }],
      sessionAffinity: "None",
    },
    status,
  }) as unknown as KubeObject;

describe("serviceFacts", () => {
  it.each([
    ["an empty load balancer (every ClusterIP Service has one)", { loadBalancer: {} }, undefined],
    ["no ingress yet", { loadBalancer: { ingress: [] } }, undefined],
    ["no status at all", undefined, undefined],
    [
      "an address",
      { loadBalancer: { ingress: [{ ip: "198.51.100.7" }] }, conditions: [] },
      { loadBalancer: { ingress: [{ ip: "198.51.100.7" }] } },
    ],
  ])("keeps the status only when the load balancer has an address: %s", (_what, status, kept) => {
    const facts = serviceFacts(service(status)) as KubeObject & { status?: unknown };
    expect(facts.status).toEqual(kept);
    expect("status" in facts).toBe(kept !== undefined);
    expect(facts.spec).toEqual({ type: "LoadBalancer", ports: [{ name: "http", nodePort: 31000 }] });
  });

  it.each([
    ["a ClusterIP Service's ports (no node port)", [{ name: "http", port: 8935 }], { type: "ClusterIP" }],
    [
      "a NodePort Service's node ports, by name",
      [
        { name: "http", port: 8935, nodePort: 31000 },
        { name: "metrics", port: 7935 },
      ],
      { type: "ClusterIP", ports: [{ name: "http", nodePort: 31000 }] },
    ],
  ])("keeps only node ports: %s", (_what, ports, spec) => {
    const svc = service(undefined) as KubeObject & { spec: { type: string; ports: unknown } };
    svc.spec.type = "ClusterIP";
    svc.spec.ports = ports;
    expect(serviceFacts(svc).spec).toEqual(spec);
  });
});
