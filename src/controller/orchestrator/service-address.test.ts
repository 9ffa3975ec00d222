import { describe, expect, it } from "vitest";
import {
  type NodeAddresses,
  nodeAddress,
  type ServiceAddressInput,
  serviceAddressFor,
} from "./service-address.ts";

const CLUSTER = "orch-0.orch-pods.video.svc.cluster.local:8935";
const node = (name: string, ...addresses: [type: string, address: string][]): NodeAddresses => ({
  metadata: { name },
  status: { addresses: addresses.map(([type, address]) => ({ type, address })) },
});
const nodes = [
  node("a", ["InternalIP", "10.0.0.1"], ["ExternalIP", "203.0.113.1"], ["Hostname", "a"]),
  node("b", ["InternalIP", "10.0.0.2"]),
  node("c", ["Hostname", "c"]),
  node("v6", ["ExternalIP", "2001:db8::1"]),
];
const nodePortService = (nodePort?: number) => ({
  spec: { ports: [{ name: "service", port: 8935, ...(nodePort ? { nodePort } : {}) }] },
});
const lbService = (ingress: { ip?: string; hostname?: string }[]) => ({
  spec: { ports: [{ name: "service", port: 443 }] },
  status: { loadBalancer: { ingress } },
});
const base: ServiceAddressInput = {
  type: "ClusterIP",
  port: 8935,
  portName: "service",
  nodes,
  clusterAddress: CLUSTER,
};

describe("serviceAddressFor", () => {
  it.each<[string, Partial<ServiceAddressInput>, Partial<ReturnType<typeof serviceAddressFor>>]>([
    [
      "spec.serviceAddr wins",
      { specServiceAddr: "orch.example.com:8935", type: "LoadBalancer" },
      { address: "orch.example.com:8935", source: "spec", holdRollout: false },
    ],
    [
      "ClusterIP: the pod's in-cluster name",
      {},
      { address: CLUSTER, source: "cluster", holdRollout: false, pending: undefined },
    ],
    [
      "LoadBalancer with an ip",
      { type: "LoadBalancer", port: 443, service: lbService([{ ip: "198.51.100.7" }]) },
      { address: "198.51.100.7:443", source: "loadBalancer", holdRollout: false },
    ],
    [
      "LoadBalancer hostname before ip",
      { type: "LoadBalancer", service: lbService([{ hostname: "lb.example.net", ip: "198.51.100.7" }]) },
      { address: "lb.example.net:8935", source: "loadBalancer" },
    ],
    [
      "LoadBalancer with an IPv6 address",
      { type: "LoadBalancer", service: lbService([{ ip: "2001:db8::7" }]) },
      { address: "[2001:db8::7]:8935" },
    ],
    [
      "LoadBalancer without an address yet: hold the rollout",
      { type: "LoadBalancer", service: lbService([]) },
      { address: undefined, source: "loadBalancer", holdRollout: true },
    ],
    [
      "LoadBalancer not created yet: hold the rollout",
      { type: "LoadBalancer" },
      { address: undefined, holdRollout: true },
    ],
    [
      "NodePort: the pod's node's ExternalIP",
      { type: "NodePort", service: nodePortService(31000), podNode: "a" },
      { address: "203.0.113.1:31000", source: "nodePort", holdRollout: false, pending: undefined },
    ],
    [
      "NodePort: InternalIP when there is no ExternalIP",
      { type: "NodePort", service: nodePortService(31000), podNode: "b" },
      { address: "10.0.0.2:31000", source: "nodePort" },
    ],
    [
      "NodePort on an IPv6 node",
      { type: "NodePort", service: nodePortService(31000), podNode: "v6" },
      { address: "[2001:db8::1]:31000" },
    ],
    [
      "NodePort before the pod is placed: in-cluster meanwhile, not held",
      { type: "NodePort", service: nodePortService(31000) },
      { address: CLUSTER, source: "cluster", holdRollout: false },
    ],
    [
      "NodePort before the node port is assigned",
      { type: "NodePort", service: nodePortService(), podNode: "a" },
      { address: CLUSTER, source: "cluster", holdRollout: false },
    ],
    [
      "NodePort on a node without addresses",
      { type: "NodePort", service: nodePortService(31000), podNode: "c" },
      { address: CLUSTER, source: "cluster" },
    ],
    [
      "NodePort: an advertised address is kept when the pod moves",
      { type: "NodePort", service: nodePortService(31000), podNode: "b", advertised: ["203.0.113.1:31000"] },
      { address: "203.0.113.1:31000", source: "nodePort" },
    ],
    [
      "NodePort: kept while the replacement pod is not placed yet (the ConfigMap's record)",
      { type: "NodePort", service: nodePortService(31000), advertised: ["10.0.0.2:31000", CLUSTER] },
      { address: "10.0.0.2:31000", source: "nodePort", pending: undefined },
    ],
    [
      "NodePort: not kept once its node is gone",
      { type: "NodePort", service: nodePortService(31000), podNode: "b", advertised: ["192.0.2.99:31000"] },
      { address: "10.0.0.2:31000" },
    ],
    [
      "NodePort: not kept when the node port changed",
      { type: "NodePort", service: nodePortService(32000), podNode: "b", advertised: ["203.0.113.1:31000"] },
      { address: "10.0.0.2:32000" },
    ],
    [
      "NodePort: the in-cluster address is never kept",
      { type: "NodePort", service: nodePortService(31000), podNode: "a", advertised: [CLUSTER] },
      { address: "203.0.113.1:31000" },
    ],
  ])("%s", (_name, input, want) => {
    const got = serviceAddressFor({ ...base, ...input }) as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(want)) expect(got[key], key).toEqual(value);
  });

  it.each<[string, Partial<ServiceAddressInput>, RegExp]>([
    [
      "LoadBalancer",
      { type: "LoadBalancer" },
      /waiting for the LoadBalancer Service.*set spec\.serviceAddr, or spec\.service\.type NodePort/,
    ],
    [
      "NodePort, pod not placed",
      { type: "NodePort", service: nodePortService(31000) },
      /waiting for the pod to be placed.*in-cluster address orch-0\.orch-pods.*restarts once/,
    ],
    ["NodePort, no node port", { type: "NodePort", service: nodePortService() }, /assigned a node port/],
    [
      "NodePort, node without addresses",
      { type: "NodePort", service: nodePortService(31000), podNode: "c" },
      /node c reports no ExternalIP or InternalIP \(set spec\.serviceAddr/,
    ],
  ])("until the address is known, says why (%s)", (_name, input, message) => {
    expect(serviceAddressFor({ ...base, ...input }).pending).toMatch(message);
  });
});

describe("nodeAddress", () => {
  it.each([
    ["ExternalIP first", nodes[0], "203.0.113.1"],
    ["else InternalIP", nodes[1], "10.0.0.2"],
    ["never a Hostname", nodes[2], undefined],
    ["no node", undefined, undefined],
  ] as const)("%s", (_n, n, want) => expect(nodeAddress(n)).toBe(want));
});
