// What the locally built kind node image holds besides its root filesystem, as pure data: the
// images kubeadm and kind start (their tags, and which of our builds each one is), the CNI kind
// applies, and the unit that loads the images into the node's containerd at boot. No registry is
// reachable here, so every image a node needs must already be inside it.

/** Where an image's content comes from. */
export type ImageSource =
  /** One static Go binary (our toolchain's build) at /usr/local/bin/<name>. */
  | { kind: "binary"; binary: string }
  /** Our pause image (src/dev/cluster/real-node/images.ts). */
  | { kind: "pause" }
  /** The node's own root filesystem (iptables, ip, kubectl, kube-proxy): for kube-proxy and the CNI. */
  | { kind: "node-rootfs" };

export interface NodeImageImage {
  /** File name under /kind/images. */
  file: string;
  /** Every tag it must answer to. */
  tags: string[];
  source: ImageSource;
  entrypoint?: string[];
}

export interface NodeImageVersions {
  kubernetes: string;
  coredns: string;
}

/** The etcd tag kubeadm asks for (its constants): our etcd build answers to it. */
export const KUBEADM_ETCD_TAG = "3.6.8-0";
/** kubeadm's pause tag, and the one kind's containerd config names as sandbox image. */
export const PAUSE_TAGS = ["3.10.2", "3.10"];
/** Our CNI's image: the node root filesystem (a shell, ip, kubectl). */
export const NODE_TOOLS_IMAGE = "docker.io/livepeer-operator/kind-node-tools:dev";

export function nodeImageImages(v: NodeImageVersions): NodeImageImage[] {
  const k8s = (name: string) => ({
    file: `${name}.tar`,
    tags: [`registry.k8s.io/${name}:${v.kubernetes}`],
    source: { kind: "binary", binary: name } as const,
    entrypoint: [`/usr/local/bin/${name}`],
  });
  return [
    {
      file: "pause.tar",
      tags: PAUSE_TAGS.map((t) => `registry.k8s.io/pause:${t}`),
      source: { kind: "pause" },
    },
    {
      file: "etcd.tar",
      tags: [`registry.k8s.io/etcd:${KUBEADM_ETCD_TAG}`],
      source: { kind: "binary", binary: "etcd" },
      entrypoint: ["/usr/local/bin/etcd"],
    },
    k8s("kube-apiserver"),
    k8s("kube-controller-manager"),
    k8s("kube-scheduler"),
    {
      file: "coredns.tar",
      tags: [`registry.k8s.io/coredns/coredns:${v.coredns}`],
      source: { kind: "binary", binary: "coredns" },
      entrypoint: ["/usr/local/bin/coredns"],
    },
    {
      file: "node-tools.tar",
      tags: [`registry.k8s.io/kube-proxy:${v.kubernetes}`, NODE_TOOLS_IMAGE],
      source: { kind: "node-rootfs" },
    },
  ];
}

/**
 * The unit that imports /kind/images/*.tar into containerd's k8s.io namespace before the kubelet
 * starts (kind's own node images ship them already imported; ours are imported at boot).
 */
export const IMAGE_IMPORT_UNIT = `[Unit]
Description=Import the node's preloaded images into containerd (livepeer-operator kind node image)
After=containerd.service
Requires=containerd.service
Before=kubelet.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -euc 'until ctr version >/dev/null 2>&1; do sleep 0.2; done; for f in /kind/images/*.tar; do ctr --namespace=k8s.io images import --all-platforms --digests --snapshotter=overlayfs "$f"; done'

[Install]
WantedBy=multi-user.target
`;

/**
 * kind's default CNI is kindnetd, an image no registry here can give. Ours does what kind needs
 * of it with the node's own tools: a ptp + host-local config for the node's podCIDR, and a route
 * to every other node's podCIDR through that node's address (all nodes share one Docker network).
 */
export function cniManifest(): string {
  const script = [
    "set -u",
    "conf=/etc/cni/net.d/10-lpo-kindnet.conflist",
    "while true; do",
    `  kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name} {.spec.podCIDR} {.status.addresses[?(@.type=="InternalIP")].address}{"\\n"}{end}' > /tmp/nodes || { sleep 2; continue; }`,
    "  while read -r name cidr ip; do",
    '    [ -n "$cidr" ] || continue',
    '    if [ "$name" = "$NODE_NAME" ]; then',
    `      want='{"cniVersion":"0.4.0","name":"kindnet","plugins":[{"type":"ptp","ipMasq":false,"ipam":{"type":"host-local","dataDir":"/run/cni-ipam-state","ranges":[[{"subnet":"'"$cidr"'"}]],"routes":[{"dst":"0.0.0.0/0"}]},"mtu":1500},{"type":"portmap","capabilities":{"portMappings":true}}]}'`,
    '      [ "$(cat $conf 2>/dev/null)" = "$want" ] || { printf "%s" "$want" > $conf.tmp && mv $conf.tmp $conf; }',
    "    else",
    '      ip route replace "$cidr" via "$ip"',
    "    fi",
    "  done < /tmp/nodes",
    // Pods' traffic to anything outside the pod network leaves with the node's address.
    '  iptables -t nat -C POSTROUTING -s "$POD_SUBNET" ! -d "$POD_SUBNET" -j MASQUERADE 2>/dev/null || iptables -t nat -A POSTROUTING -s "$POD_SUBNET" ! -d "$POD_SUBNET" -j MASQUERADE',
    "  sleep 5",
    "done",
  ].join("\n");
  const docs: Record<string, unknown>[] = [
    {
      kind: "ClusterRole",
      apiVersion: "rbac.authorization.k8s.io/v1",
      metadata: { name: "kindnet" },
      rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["list", "watch", "get"] }],
    },
    {
      kind: "ClusterRoleBinding",
      apiVersion: "rbac.authorization.k8s.io/v1",
      metadata: { name: "kindnet" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "kindnet" },
      subjects: [{ kind: "ServiceAccount", name: "kindnet", namespace: "kube-system" }],
    },
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "kindnet", namespace: "kube-system" } },
    {
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: "kindnet", namespace: "kube-system", labels: { app: "kindnet" } },
      spec: {
        selector: { matchLabels: { app: "kindnet" } },
        template: {
          metadata: { labels: { app: "kindnet" } },
          spec: {
            hostNetwork: true,
            tolerations: [{ operator: "Exists" }],
            priorityClassName: "system-node-critical",
            serviceAccountName: "kindnet",
            containers: [
              {
                name: "kindnet-cni",
                image: NODE_TOOLS_IMAGE,
                imagePullPolicy: "Never",
                command: ["/bin/sh", "-c", script],
                env: [
                  { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
                  // kind fills this template in from its config's podSubnet.
                  { name: "POD_SUBNET", value: "{{ .PodSubnet }}" },
                ],
                volumeMounts: [
                  { name: "cni-cfg", mountPath: "/etc/cni/net.d" },
                  { name: "xtables-lock", mountPath: "/run/xtables.lock" },
                ],
                securityContext: { privileged: false, capabilities: { add: ["NET_RAW", "NET_ADMIN"] } },
              },
            ],
            volumes: [
              { name: "cni-cfg", hostPath: { path: "/etc/cni/net.d" } },
              { name: "xtables-lock", hostPath: { path: "/run/xtables.lock", type: "FileOrCreate" } },
            ],
          },
        },
      },
    },
  ];
  // kind templates the file only when it carries this marker (installcni/cni.go).
  return `# would you kindly template this file\n${docs.map((d) => JSON.stringify(d)).join("\n---\n")}\n`;
}
