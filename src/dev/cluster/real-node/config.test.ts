// The real node's configuration as pure functions: what containerd, CNI and the kubelet are told.
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { cniConflist, containerdConfig } from "./containerd-config.ts";
import { kubeletArgs, kubeletConfig } from "./kubelet-config.ts";
import { nodeLayout, nodeNetwork } from "./layout.ts";

const layout = nodeLayout("/tmp/cp/real-node", "/tmp/cp/logs");
const net = nodeNetwork(3);

describe("real node layout", () => {
  it("keeps every path containerd and the kubelet write under the node's directory", () => {
    const paths = [
      ...Object.values(layout.containerd),
      ...Object.values(layout.cni),
      ...Object.values(layout.kubelet),
      layout.state,
    ];
    for (const p of paths) expect(p.startsWith("/tmp/cp/real-node/")).toBe(true);
    expect(layout.logs).toBe("/tmp/cp/logs");
  });

  it("derives the machine-wide names from the slot, within Linux's 15-byte interface names", () => {
    expect(net).toMatchObject({
      bridge: "lpo-br3",
      subnet: "10.213.3.0/24",
      gateway: "10.213.3.1",
      networkName: "lpo-real-node-3",
    });
    expect(nodeNetwork(63).bridge.length).toBeLessThanOrEqual(15);
    expect(() => nodeNetwork(64)).toThrow(/slot must be an integer in 0..63/);
    expect(() => nodeNetwork(-1)).toThrow(/slot/);
  });
});

describe("containerd config", () => {
  const toml = containerdConfig(layout, "docker.io/livepeer-operator/pause:dev");

  it("puts root, state, socket, runc state and opt under the node's directory, never /run/containerd or /var/lib/containerd", () => {
    expect(toml).toContain('root = "/tmp/cp/real-node/containerd/root"');
    expect(toml).toContain('state = "/tmp/cp/real-node/containerd/state"');
    expect(toml).toContain('address = "/tmp/cp/real-node/containerd/containerd.sock"');
    expect(toml).toContain('Root = "/tmp/cp/real-node/containerd/runc"');
    expect(toml).toContain('path = "/tmp/cp/real-node/containerd/opt"');
    const settings = toml
      .split("\n")
      .filter((l) => !l.trim().startsWith("#"))
      .join("\n");
    expect(settings).not.toMatch(/\/run\/containerd|\/var\/lib\/containerd|\/opt\/containerd/);
  });

  it("sets what sandboxes need on this machine and the local pause image", () => {
    expect(toml).toContain("restrict_oom_score_adj = true");
    expect(toml).toContain("disable_apparmor = true");
    expect(toml).toContain('sandbox_image = "docker.io/livepeer-operator/pause:dev"');
    expect(toml).toContain('bin_dir = "/usr/lib/cni"');
    expect(toml).toContain('conf_dir = "/tmp/cp/real-node/cni/net.d"');
    expect(toml).toContain('stream_server_address = "127.0.0.1"');
  });
});

describe("CNI network", () => {
  const conf = JSON.parse(cniConflist(layout, net));

  it("routes only the Service range through the host, and only for a node running kube-proxy", () => {
    expect(conf.plugins[0].ipam.routes).toBeUndefined();
    const withProxy = JSON.parse(cniConflist(layout, net, "10.96.0.0/16"));
    expect(withProxy.plugins[0].ipam.routes).toEqual([{ dst: "10.96.0.0/16", gw: "10.213.3.1" }]);
    expect(withProxy.plugins[0].isDefaultGateway).toBe(false);
  });

  it("is a bridge + host-local + loopback chain on the slot's private subnet", () => {
    expect(conf.name).toBe("lpo-real-node-3");
    expect(conf.plugins.map((p: { type: string }) => p.type)).toEqual(["bridge", "loopback"]);
    expect(conf.plugins[0]).toMatchObject({
      bridge: "lpo-br3",
      isGateway: true,
      isDefaultGateway: false,
      ipMasq: false,
      ipam: {
        type: "host-local",
        dataDir: "/tmp/cp/real-node/cni/ipam",
        ranges: [[{ subnet: "10.213.3.0/24" }]],
      },
    });
  });

  it("gives pods no route off their subnet, so nothing they send leaves the machine", () => {
    expect(conf.plugins[0].ipam.routes).toBeUndefined();
    expect(conf.plugins[0].isDefaultGateway).toBe(false);
  });
});

describe("kubelet", () => {
  const settings = {
    layout,
    network: net,
    nodeName: "localhost",
    port: 10250,
    healthzPort: 10248,
    caCert: "/pki/ca.crt",
    servingCert: "/pki/kubelet.crt",
    servingKey: "/pki/kubelet.key",
    labels: { "nvidia.com/gpu.product": "NVIDIA-GeForce-RTX-3090", "livepeer.org/real-node": "true" },
    taints: [{ key: "nvidia.com/gpu", effect: "NoSchedule" }],
  };
  const config = load(kubeletConfig(settings)) as Record<string, unknown>;

  it("runs on a cgroup v1 machine without systemd, swap checks or node-allocatable enforcement", () => {
    expect(config).toMatchObject({
      kind: "KubeletConfiguration",
      failCgroupV1: false,
      cgroupDriver: "cgroupfs",
      cgroupsPerQOS: false,
      enforceNodeAllocatable: [],
      failSwapOn: false,
      resolvConf: "",
      containerRuntimeEndpoint: "unix:///tmp/cp/real-node/containerd/containerd.sock",
      podLogsDir: "/tmp/cp/real-node/pod-logs",
    });
  });

  it("gives pods the cluster DNS only when the node runs Services (never the host's resolv.conf)", () => {
    expect(config).not.toHaveProperty("clusterDNS");
    const withDns = load(kubeletConfig({ ...settings, clusterDns: net.gateway })) as Record<string, unknown>;
    expect(withDns).toMatchObject({
      clusterDNS: [net.gateway],
      clusterDomain: "cluster.local",
      resolvConf: "",
    });
  });

  it("serves on loopback only and authenticates every caller (no anonymous access)", () => {
    expect(config).toMatchObject({
      address: "127.0.0.1",
      readOnlyPort: 0,
      healthzBindAddress: "127.0.0.1",
      authentication: {
        anonymous: { enabled: false },
        webhook: { enabled: true },
        x509: { clientCAFile: "/pki/ca.crt" },
      },
      authorization: { mode: "Webhook" },
    });
  });

  it("registers with the GPU taint, and as `localhost` with the bridge address as its node IP", () => {
    expect(config.registerWithTaints).toEqual([{ key: "nvidia.com/gpu", effect: "NoSchedule" }]);
    const args = kubeletArgs(settings, "/c.yaml", "/k.kubeconfig");
    expect(args).toContain("--hostname-override=localhost");
    expect(args).toContain("--node-ip=10.213.3.1");
    expect(args).toContain("--root-dir=/tmp/cp/real-node/kubelet");
    expect(args).toContain(
      "--node-labels=nvidia.com/gpu.product=NVIDIA-GeForce-RTX-3090,livepeer.org/real-node=true",
    );
  });
});
