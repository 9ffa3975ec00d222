// kube-proxy's flags and the API server's endpoint as the real node writes them (pure).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { nodeNetwork } from "./layout.ts";
import { apiServerEndpointSlice, KUBE_PROXY_CHAIN, kubeProxyArgs, SERVICE_CIDR } from "./service-proxy.ts";

const net = nodeNetwork(2);
const args = kubeProxyArgs({
  kubeconfig: "/n/kube-proxy.kubeconfig",
  nodeName: "localhost",
  network: net,
  healthzPort: 1001,
  metricsPort: 1002,
});

describe("kube-proxy flags", () => {
  it.each([
    ["--proxy-mode=iptables", "iptables mode"],
    ["--hostname-override=localhost", "the real node's name"],
    ["--cluster-cidr=10.213.2.0/24", "the node's pod subnet"],
    ["--nodeport-addresses=10.213.2.1/32", "NodePorts on the bridge address only"],
    ["--iptables-localhost-nodeports=false", "no route_localnet"],
    ["--conntrack-max-per-core=0", "conntrack table left as it is"],
    ["--conntrack-tcp-timeout-established=0", "conntrack timeouts left as they are"],
    ["--healthz-bind-address=127.0.0.1:1001", "health on loopback"],
    ["--metrics-bind-address=127.0.0.1:1002", "metrics on loopback"],
  ])("has %s (%s)", (flag) => {
    expect(args).toContain(flag);
  });

  it("binds nothing beyond loopback", () => {
    for (const a of args.filter((x) => x.includes("bind-address"))) expect(a).toMatch(/=127\.0\.0\.1:/);
  });
});

describe("the kubernetes Service's endpoint", () => {
  it("names the gateway address and port, for the Service's https port", () => {
    expect(apiServerEndpointSlice("10.213.2.1", 4242)).toMatchObject({
      metadata: {
        name: "kubernetes",
        namespace: "default",
        labels: { "kubernetes.io/service-name": "kubernetes" },
      },
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.213.2.1"], conditions: { ready: true } }],
      ports: [{ name: "https", port: 4242, protocol: "TCP" }],
    });
  });

  it("routes the control plane's service range (kept in step with control-plane.ts)", () => {
    const controlPlane = readFileSync(new URL("../control-plane.ts", import.meta.url), "utf8");
    expect(controlPlane).toContain(`"--service-cluster-ip-range=${SERVICE_CIDR}"`);
  });
});

describe("kube-proxy's chains", () => {
  it.each([
    ["KUBE-SERVICES", true],
    ["KUBE-SVC-NPX46M4PTMTKRN6Y", true],
    ["KUBE-SEP-PN3A52QXLWKZVUN5", true],
    ["KUBE-POSTROUTING", true],
    ["KUBE-PROXY-CANARY", true],
    ["KUBE-KUBELET-CANARY", false],
    ["KUBE-FIREWALL", false],
    ["KUBE-IPTABLES-HINT", false],
  ])("%s is kube-proxy's: %s", (chain, ours) => {
    expect(KUBE_PROXY_CHAIN.test(chain)).toBe(ours);
  });
});
