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
    expect(facts.spec).toEqual({
      type: "LoadBalancer",
      clusterIP: "10.0.0.7",
      externalIPs: undefined,
      ports: [{ name: "http", port: 8935, nodePort: 31000 }],
    });
  });
});
