// containerd's config and the CNI network of a real node, as pure functions of its layout.
// Everything containerd can be told to put elsewhere lives under the node's directory, so it
// never meets /var/lib/containerd or Docker's containerd, network namespaces included. (containerd
// 1.6 still puts shim sockets in /run/containerd/s: teardown removes ours.)
import type { NodeLayout, NodeNetwork } from "./layout.ts";

export const CNI_BIN_DIR = "/usr/lib/cni";

const q = (s: string) => JSON.stringify(s); // TOML basic strings share JSON's escaping

export function containerdConfig(layout: NodeLayout, sandboxImage: string): string {
  const c = layout.containerd;
  const cri = '[plugins."io.containerd.grpc.v1.cri"';
  return `version = 2
root = ${q(c.root)}
state = ${q(c.state)}
# No snapshotters that cannot work here (and only log errors).
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = ${q(c.socket)}

[ttrpc]
  address = ${q(`${c.socket}.ttrpc`)}

[debug]
  address = ""

[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = ${q(c.opt)}

${cri}]
  sandbox_image = ${q(sandboxImage)}
  # Without these two every sandbox fails here with "can't get final child's PID from pipe: EOF".
  restrict_oom_score_adj = true
  disable_apparmor = true
  enable_selinux = false
  # Pod network namespaces under our state dir, not the machine's /var/run/netns: the node's
  # teardown unmounts everything under its directory, including a sandbox caught mid-creation.
  netns_mounts_under_state_dir = true
  # kubectl exec/logs/port-forward stream through this server: loopback only.
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_tls_streaming = false

${cri}.containerd]
  snapshotter = "overlayfs"
  default_runtime_name = "runc"

${cri}.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

${cri}.containerd.runtimes.runc.options]
  SystemdCgroup = false
  # runc's state, by default in /run/containerd/runc.
  Root = ${q(c.runcRoot)}

${cri}.cni]
  bin_dir = ${q(CNI_BIN_DIR)}
  conf_dir = ${q(layout.cni.confDir)}
  max_conf_num = 1
`;
}

/**
 * A bridge network on a private subnet of this machine. The pods get an address and a route
 * to their subnet only (no default route, no masquerading): the host reaches them and they
 * reach the host, and nothing they send can leave the machine. With `serviceCidr` (a node
 * running kube-proxy, which routes that range back to the bridge on the host) they also get a
 * route to the Services' ClusterIPs through the host.
 */
export function cniConflist(layout: NodeLayout, net: NodeNetwork, serviceCidr?: string): string {
  return `${JSON.stringify(
    {
      cniVersion: "0.4.0",
      name: net.networkName,
      plugins: [
        {
          type: "bridge",
          bridge: net.bridge,
          isGateway: true,
          isDefaultGateway: false,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: "host-local",
            dataDir: layout.cni.ipamDir,
            ranges: [[{ subnet: net.subnet, gateway: net.gateway }]],
            ...(serviceCidr && { routes: [{ dst: serviceCidr, gw: net.gateway }] }),
          },
        },
        { type: "loopback" },
      ],
    },
    null,
    2,
  )}\n`;
}
