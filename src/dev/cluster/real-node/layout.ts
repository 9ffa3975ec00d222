// Where a real node keeps everything: one directory, so stopping it can find (and remove)
// every socket, mount and file it made. Also the machine-wide names it claims (bridge, subnet,
// cgroup), derived from one slot number so two real nodes on one machine never collide.
import path from "node:path";

export interface NodeLayout {
  dir: string;
  logs: string;
  state: string;
  containerd: {
    config: string;
    root: string;
    state: string;
    socket: string;
    runcRoot: string;
    opt: string;
  };
  cni: { confDir: string; ipamDir: string };
  kubelet: {
    root: string;
    config: string;
    kubeconfig: string;
    pki: string;
    podLogs: string;
    volumePlugins: string;
    devicePlugins: string;
  };
}

/** `logs`: where kubelet.log and containerd.log go (kept after the node is gone, e.g. the control plane's logs). */
export function nodeLayout(dir: string, logs = path.join(dir, "logs")): NodeLayout {
  const c = path.join(dir, "containerd");
  const k = path.join(dir, "kubelet");
  return {
    dir,
    logs,
    state: path.join(dir, "node.json"),
    containerd: {
      config: path.join(c, "config.toml"),
      root: path.join(c, "root"),
      state: path.join(c, "state"),
      socket: path.join(c, "containerd.sock"),
      runcRoot: path.join(c, "runc"),
      opt: path.join(c, "opt"),
    },
    cni: { confDir: path.join(dir, "cni", "net.d"), ipamDir: path.join(dir, "cni", "ipam") },
    kubelet: {
      root: k,
      config: path.join(dir, "kubelet-config.yaml"),
      kubeconfig: path.join(dir, "kubelet.kubeconfig"),
      pki: path.join(dir, "kubelet-pki"),
      podLogs: path.join(dir, "pod-logs"),
      volumePlugins: path.join(dir, "volume-plugins"),
      devicePlugins: path.join(k, "device-plugins"),
    },
  };
}

/** Machine-wide names of one real node, from its slot (0..MAX_SLOTS-1). */
export interface NodeNetwork {
  slot: number;
  /** Linux interface names are at most 15 bytes. */
  bridge: string;
  /** The CNI network name: also the prefix of libcni's cache files in /var/lib/cni/results. */
  networkName: string;
  subnet: string;
  /** The host's address on the bridge: the pods' gateway and the node's InternalIP. */
  gateway: string;
  prefixLength: number;
  /** Parent cgroup of every pod sandbox and container (cgroupfs path). */
  cgroupRoot: string;
}

export const MAX_SLOTS = 64;

/**
 * Slot n gets bridge `lpo-br<n>` and subnet 10.213.<n>.0/24: private, away from Docker's
 * 172.17/16, containerd/podman's 10.88/16, flannel's 10.244/16 and our service range 10.96/16.
 */
export function nodeNetwork(slot: number, base = "10.213"): NodeNetwork {
  if (!Number.isInteger(slot) || slot < 0 || slot >= MAX_SLOTS) {
    throw new Error(`slot must be an integer in 0..${MAX_SLOTS - 1}, got ${slot}`);
  }
  return {
    slot,
    bridge: `lpo-br${slot}`,
    networkName: `lpo-real-node-${slot}`,
    subnet: `${base}.${slot}.0/24`,
    gateway: `${base}.${slot}.1`,
    prefixLength: 24,
    cgroupRoot: `/lpo-real-node-${slot}`,
  };
}
