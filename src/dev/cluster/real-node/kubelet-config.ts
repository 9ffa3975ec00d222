// The kubelet's configuration and flags for a real node beside the fake ones, as pure
// functions. Settings that differ from a production kubelet say why.
import { dump } from "js-yaml";
import type { NodeLayout, NodeNetwork } from "./layout.ts";

export interface KubeletSettings {
  layout: NodeLayout;
  network: NodeNetwork;
  nodeName: string;
  port: number;
  healthzPort: number;
  caCert: string;
  servingCert: string;
  servingKey: string;
  labels: Record<string, string>;
  taints: { key: string; value?: string; effect: string }[];
  /** The cluster DNS address pods are given (with Services: see cluster-dns.ts). */
  clusterDns?: string;
}

export function kubeletConfig(s: KubeletSettings): string {
  return dump({
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    // The API server reaches the kubelet on loopback (it dials the node's Hostname, `localhost`).
    address: "127.0.0.1",
    port: s.port,
    readOnlyPort: 0,
    healthzBindAddress: "127.0.0.1",
    healthzPort: s.healthzPort,
    tlsCertFile: s.servingCert,
    tlsPrivateKeyFile: s.servingKey,
    rotateCertificates: false,
    serverTLSBootstrap: false,
    // Only clients with a certificate from our CA (the API server) or a token the API server
    // accepts get in, and only for what RBAC allows them: no anonymous access.
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true, cacheTTL: "30s" },
      x509: { clientCAFile: s.caCert },
    },
    authorization: { mode: "Webhook", webhook: { cacheAuthorizedTTL: "30s", cacheUnauthorizedTTL: "10s" } },
    containerRuntimeEndpoint: `unix://${s.layout.containerd.socket}`,
    // A cgroup v1 machine without systemd, shared with other work: no QoS cgroup tree, no
    // node-allocatable enforcement, no refusal because of swap or cgroup v1.
    failCgroupV1: false,
    cgroupDriver: "cgroupfs",
    cgroupsPerQOS: false,
    enforceNodeAllocatable: [],
    failSwapOn: false,
    // Never the host's resolv.conf: pods resolve Service names through our cluster DNS (when
    // the node runs Services) and nothing else.
    resolvConf: "",
    clusterDomain: "cluster.local",
    ...(s.clusterDns && { clusterDNS: [s.clusterDns] }),
    podLogsDir: s.layout.kubelet.podLogs,
    volumePluginDir: s.layout.kubelet.volumePlugins,
    registerNode: true,
    registerWithTaints: s.taints,
    // Images come from archives, not a registry: never garbage-collect them, and keep evicting
    // only when the machine is really short.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    evictionHard: {
      "memory.available": "100Mi",
      "nodefs.available": "1%",
      "imagefs.available": "1%",
      "nodefs.inodesFree": "1%",
    },
    // Faster convergence in tests than the production defaults.
    nodeStatusUpdateFrequency: "5s",
    nodeStatusReportFrequency: "30s",
    syncFrequency: "10s",
    fileCheckFrequency: "10s",
    shutdownGracePeriod: "0s",
    maxPods: 50,
  });
}

export function kubeletArgs(s: KubeletSettings, configFile: string, kubeconfig: string): string[] {
  const labels = Object.entries(s.labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  return [
    `--config=${configFile}`,
    `--kubeconfig=${kubeconfig}`,
    `--root-dir=${s.layout.kubelet.root}`,
    `--cert-dir=${s.layout.kubelet.pki}`,
    // The node's name is also its Hostname address: `localhost` resolves to loopback, and the
    // API server prefers Hostname (--kubelet-preferred-address-types=Hostname).
    `--hostname-override=${s.nodeName}`,
    // The kubelet refuses a loopback node IP; the bridge's address is this machine's own.
    `--node-ip=${s.network.gateway}`,
    `--node-labels=${labels}`,
    "--v=1",
  ];
}
