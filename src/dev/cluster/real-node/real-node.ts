// A real node beside the fake ones: kubelet + containerd + runc + CNI on this machine,
// registered with the local control plane as `localhost` (the API server reaches it on
// loopback), with a fake NVIDIA device plugin so the kubelet's own device manager hands out
// `nvidia.com/gpu` to real pods. Needs root. See docs/local-cluster.md ("A real node").
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  CoreV1Api,
  DiscoveryV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Node,
} from "@kubernetes/client-node";
import { type FakeGpuPlugin, startFakeGpuPlugin } from "../../device-plugin/plugin.ts";
import { fakeGpuIds } from "../../device-plugin/policy.ts";
import { ensureBinaries } from "../../toolchain/binaries.ts";
import type { ControlPlane } from "../control-plane.ts";
import { writeKubeconfig } from "../kubeconfig.ts";
import { type FakeGpu, gpuLabels, rtx3090 } from "../nodes.ts";
import { issueCertificate } from "../pki.ts";
import { freePorts } from "../ports.ts";
import { logTail, type ManagedProcess, waitFor } from "../process.ts";
import { createCgroups, nodeCgroupDirs } from "./cgroups.ts";
import { type ClusterDns, startClusterDns } from "./cluster-dns.ts";
import { importImage, startContainerd } from "./containerd.ts";
import { acceptBridgeForwarding } from "./forwarding.ts";
import { ensureHostPackages } from "./host-packages.ts";
import { holdHostSettings } from "./host-settings.ts";
import { PAUSE_IMAGE, pauseImageArchive } from "./images.ts";
import { startKubelet } from "./kubelet.ts";
import { kubeletArgs, kubeletConfig } from "./kubelet-config.ts";
import { nodeLayout } from "./layout.ts";
import { claimNetwork } from "./network.ts";
import { SERVICE_CIDR, type ServiceProxy, startServiceProxy } from "./service-proxy.ts";
import {
  type NodeState,
  readNodeState,
  sandboxNetns,
  stopOwnProcess,
  type TeardownResult,
  teardownNode,
  writeNodeState,
} from "./teardown.ts";

export const REAL_NODE_LABEL = "livepeer.org/real-node";

export interface RealNodeOptions {
  /** The node's directory; `<control plane dir>/real-node` by default. */
  dir?: string;
  /** How many fake GPUs the device plugin advertises (default 2). */
  gpus?: number;
  /** Which GPU the node's labels describe (default: the fleet's RTX 3090). */
  gpu?: FakeGpu;
  progress?: (line: string) => void;
  /** How long to wait for the node to be Ready with its GPUs (default 120 s). */
  readyTimeoutMs?: number;
  /**
   * Run kube-proxy and expose the API server behind the `kubernetes` Service, so pods use the
   * in-cluster config and Services (see service-proxy.ts). One such node per machine at a time:
   * a second waits for the first to stop. Default false.
   */
  serviceProxy?: boolean;
}

export interface RealNode {
  /** `localhost`: also the address the API server dials for logs and exec. */
  nodeName: string;
  dir: string;
  /** The pods' bridge network: pod IPs come from `subnet`; `gateway` is the host (and the node's InternalIP). */
  network: { bridge: string; subnet: string; gateway: string };
  /** The device plugin's GPU ids (`GPU-<uuid>`). */
  deviceIds: string[];
  containerdSocket: string;
  /** Process ids of the node's kubelet and containerd. */
  pids: { kubelet: number; containerd: number };
  plugin: FakeGpuPlugin;
  /** Milliseconds: the whole start, and its parts (packages and kubelet build are ~0 when warm). */
  timings: {
    totalMs: number;
    packagesMs: number;
    kubeletBinaryMs: number;
    startToReadyMs: number;
    /** From the node Ready to kube-proxy programming the `kubernetes` Service (0 without serviceProxy). */
    serviceProxyMs: number;
  };
  /** With serviceProxy: kube-proxy's pid and where the `kubernetes` Service's endpoint forwards from. */
  serviceProxy?: { pid: number; apiServerEndpoint: { address: string; port: number } };
  /** Imports a docker-archive/OCI tarball into the node's containerd; returns the image names. */
  importImage(archivePath: string): Promise<string[]>;
  /** Stops and starts the kubelet (pods keep running), resolving when the node is Ready with its GPUs again. */
  restartKubelet(): Promise<void>;
  /** Drains the node, stops everything and removes every trace (idempotent). */
  stop(): Promise<TeardownResult | undefined>;
}

const NODE_NAME = "localhost";
const TEARDOWN_CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), "teardown.ts");
const GPU_TAINT = { key: "nvidia.com/gpu", effect: "NoSchedule" };

export async function startRealNode(cp: ControlPlane, opts: RealNodeOptions = {}): Promise<RealNode> {
  const t0 = Date.now();
  const progress = opts.progress ?? ((l: string) => process.stderr.write(`${l}\n`));
  if (process.getuid?.() !== 0) {
    throw new Error(
      "the real node needs root (it runs containerd, mounts container filesystems and creates network namespaces); run as root or leave out --real-node",
    );
  }
  await ensureHostPackages(progress);
  const packagesMs = Date.now() - t0;
  const binaries = await ensureBinaries(
    opts.serviceProxy ? ["kubelet", "kube-proxy"] : ["kubelet"],
    progress,
  );
  const kubelet = binaries.kubelet;
  const kubeletBinaryMs = Date.now() - t0 - packagesMs;
  const pauseArchive = pauseImageArchive();

  const started = Date.now();
  // Logs go beside the control plane's, so they outlive the node (and say why it failed).
  const layout = nodeLayout(
    path.resolve(opts.dir ?? path.join(cp.dir, "real-node")),
    path.join(cp.dir, "logs"),
  );
  if (readNodeState(layout)) {
    progress(`[real-node] cleaning up a previous node in ${layout.dir}`);
    await teardownNode(layout.dir, progress);
  }
  for (const d of [layout.dir, layout.logs]) mkdirSync(d, { recursive: true });
  const gpuCount = opts.gpus ?? 2;
  const gpu: FakeGpu = { ...(opts.gpu ?? rtx3090), count: gpuCount };
  const kc = new KubeConfig();
  kc.loadFromFile(cp.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);

  // From here on the state file says what to remove, and the control plane's watchdog runs the
  // teardown if this process dies.
  const network = claimNetwork();
  const cgroupDirs = nodeCgroupDirs(network.networkName);
  const state: NodeState = { nodeName: NODE_NAME, network, cgroupDirs, pids: {} };
  writeNodeState(layout, state);
  cp.trackCleanup([process.execPath, TEARDOWN_CLI, layout.dir]);
  await holdHostSettings(layout.dir);

  let plugin: FakeGpuPlugin | undefined;
  let serviceProxy: ServiceProxy | undefined;
  let clusterDns: ClusterDns | undefined;
  let stopped: Promise<TeardownResult | undefined> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      const netns = sandboxNetns(layout);
      await drain(core, progress).catch((err: Error) => progress(`[real-node] drain: ${err.message}`));
      await serviceProxy?.stop().catch((err: Error) => progress(`[real-node] kube-proxy: ${err.message}`));
      await plugin?.stop();
      await clusterDns?.stop();
      const s = readNodeState(layout);
      await stopOwnProcess(s?.pids.kubelet, "kubelet");
      await core.deleteNode({ name: NODE_NAME }).catch(() => undefined);
      const result = await teardownNode(layout.dir, progress, netns);
      for (const pid of Object.values(s?.pids ?? {})) if (pid) cp.untrack(pid);
      progress(
        `[real-node] stopped: ${result.unmounted.length} mounts, ${result.netns.length} network namespaces, bridge ${network.bridge} and cgroups removed`,
      );
      return result;
    })();
    return stopped;
  };

  try {
    // Beside Docker (FORWARD policy DROP, bridge-nf-call-iptables on) pod-to-pod traffic needs this.
    await acceptBridgeForwarding(network.bridge);
    createCgroups(cgroupDirs);
    progress(`[real-node] starting containerd (bridge ${network.bridge}, pods on ${network.subnet})`);
    const containerd = await startContainerd(
      layout,
      network,
      PAUSE_IMAGE,
      cgroupDirs,
      opts.serviceProxy ? SERVICE_CIDR : undefined,
    );
    state.pids.containerd = containerd.pid;
    writeNodeState(layout, state);
    cp.track(containerd.pid);
    await importImage(layout.containerd.socket, pauseArchive);

    const [port, healthzPort] = await freePorts(2);
    const client = issueCertificate(
      cp.pki,
      "real-node-kubelet-client",
      `/O=system:nodes/CN=system:node:${NODE_NAME}`,
      {
        usage: "client",
      },
    );
    const serving = issueCertificate(cp.pki, "real-node-kubelet-serving", `/CN=system:node:${NODE_NAME}`, {
      usage: "server",
      sans: ["DNS:localhost", "IP:127.0.0.1", `IP:${network.gateway}`],
    });
    writeKubeconfig(layout.kubelet.kubeconfig, cp.server, cp.pki.caCert, {
      clientCert: client.cert,
      clientKey: client.key,
    });
    const settings = {
      layout,
      network,
      nodeName: NODE_NAME,
      port: port!,
      healthzPort: healthzPort!,
      caCert: cp.pki.caCert,
      servingCert: serving.cert,
      servingKey: serving.key,
      labels: { ...gpuLabels(gpu), "node.kubernetes.io/instance-type": "gpu", [REAL_NODE_LABEL]: "true" },
      taints: [GPU_TAINT],
      ...(opts.serviceProxy && { clusterDns: network.gateway }),
    };
    // Service names (`<svc>.<ns>.svc.cluster.local`) resolve only where Services work.
    if (opts.serviceProxy) clusterDns = await startClusterDns(network.gateway, core);
    writeFileSync(layout.kubelet.config, kubeletConfig(settings));
    mkdirSync(layout.kubelet.devicePlugins, { recursive: true });

    const deviceIds = fakeGpuIds(layout.dir, gpuCount);
    plugin = await startFakeGpuPlugin({ pluginDir: layout.kubelet.devicePlugins, deviceIds, log: progress });

    const launchKubelet = () => {
      const proc = startKubelet(
        layout,
        kubelet,
        kubeletArgs(settings, layout.kubelet.config, layout.kubelet.kubeconfig),
        path.join(layout.logs, "real-node-kubelet.log"),
      );
      state.pids.kubelet = proc.pid;
      writeNodeState(layout, state);
      cp.track(proc.pid);
      return proc;
    };
    const waitReady = async (proc: ManagedProcess) => {
      let lastSeen = "not registered";
      await waitFor(
        `node ${NODE_NAME} to be Ready with ${gpuCount} nvidia.com/gpu`,
        async () => {
          if (proc.child.exitCode !== null) throw new Error(`kubelet exited with ${proc.child.exitCode}`);
          const node = await core.readNode({ name: NODE_NAME });
          lastSeen = JSON.stringify({
            conditions: node.status?.conditions?.map((c) => `${c.type}=${c.status} ${c.message ?? ""}`),
            taints: node.spec?.taints,
            gpus: node.status?.allocatable?.["nvidia.com/gpu"],
          });
          return nodeReady(node, gpuCount);
        },
        opts.readyTimeoutMs ?? 120_000,
        () =>
          `node: ${lastSeen}\nkubelet log (${proc.logFile}):\n${logTail(proc.logFile, 25)}\ncontainerd log:\n${logTail(containerd.logFile)}`,
      );
    };

    progress(`[real-node] starting kubelet as node ${NODE_NAME} with ${gpuCount} x ${gpu.product}`);
    let kubeletProc = launchKubelet();
    await waitReady(kubeletProc);
    const ready = Date.now();
    if (opts.serviceProxy) {
      const [healthz, metrics] = await freePorts(2);
      const proxyClient = issueCertificate(cp.pki, "real-node-kube-proxy", "/CN=system:kube-proxy", {
        usage: "client",
      });
      const kubeconfig = path.join(layout.dir, "kube-proxy.kubeconfig");
      writeKubeconfig(kubeconfig, cp.server, cp.pki.caCert, {
        clientCert: proxyClient.cert,
        clientKey: proxyClient.key,
      });
      state.kubeProxy = binaries["kube-proxy"];
      writeNodeState(layout, state);
      progress("[real-node] starting kube-proxy (iptables) and the API server's endpoint on the bridge");
      serviceProxy = await startServiceProxy({
        binary: binaries["kube-proxy"]!,
        kubeconfig,
        nodeName: NODE_NAME,
        nodeDir: layout.dir,
        network,
        apiServer: cp.server,
        discovery: kc.makeApiClient(DiscoveryV1Api),
        logFile: path.join(layout.logs, "real-node-kube-proxy.log"),
        ports: { healthz: healthz!, metrics: metrics! },
        started: (pid) => {
          state.pids["kube-proxy"] = pid;
          writeNodeState(layout, state);
          cp.track(pid);
        },
        progress,
      });
    }
    const now = Date.now();
    cp.beforeStop(async () => {
      await stop();
    });
    progress(`[real-node] node ${NODE_NAME} Ready in ${((now - started) / 1000).toFixed(1)} s`);
    return {
      nodeName: NODE_NAME,
      dir: layout.dir,
      network: { bridge: network.bridge, subnet: network.subnet, gateway: network.gateway },
      deviceIds,
      containerdSocket: layout.containerd.socket,
      get pids() {
        return { kubelet: kubeletProc.pid, containerd: containerd.pid };
      },
      plugin,
      timings: {
        totalMs: now - t0,
        packagesMs,
        kubeletBinaryMs,
        startToReadyMs: ready - started,
        serviceProxyMs: now - ready,
      },
      ...(serviceProxy && {
        serviceProxy: { pid: serviceProxy.pid, apiServerEndpoint: serviceProxy.apiServerEndpoint },
      }),
      importImage: (archive) => importImage(layout.containerd.socket, archive),
      async restartKubelet() {
        const old = kubeletProc.pid;
        const registered = plugin!.registrations();
        await stopOwnProcess(old, "kubelet");
        cp.untrack(old);
        kubeletProc = launchKubelet();
        // The restarted kubelet wipes the plugin sockets: Ready means the plugin registered again.
        await waitFor(
          "the device plugin to register with the restarted kubelet",
          async () => plugin!.registrations() > registered,
          60_000,
        );
        await waitReady(kubeletProc);
      },
      stop,
    };
  } catch (err) {
    await stop().catch((e: Error) => progress(`[real-node] ${e.message}`));
    throw err;
  }
}

/** Ready, untainted by the node lifecycle controller, and advertising the plugin's GPUs. */
export function nodeReady(node: V1Node, gpus: number): boolean {
  return (
    !!node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") &&
    !node.spec?.taints?.some((t) => t.key.startsWith("node.kubernetes.io/")) &&
    node.status?.allocatable?.["nvidia.com/gpu"] === String(gpus)
  );
}

/** Cordons the node and deletes its pods (bounded grace), waiting until they are gone. */
async function drain(core: CoreV1Api, progress: (line: string) => void): Promise<void> {
  await core
    .patchNode(
      { name: NODE_NAME, body: { spec: { unschedulable: true } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    )
    .catch(() => undefined);
  const list = await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${NODE_NAME}` });
  if (list.items.length === 0) return;
  progress(`[real-node] draining ${list.items.length} pods`);
  await Promise.all(
    list.items.map((p) =>
      core
        .deleteNamespacedPod({
          name: p.metadata!.name!,
          namespace: p.metadata!.namespace!,
          gracePeriodSeconds: Math.min(p.spec?.terminationGracePeriodSeconds ?? 30, 10),
        })
        .catch(() => undefined),
    ),
  );
  await waitFor(
    "the real node's pods to stop",
    async () =>
      (await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${NODE_NAME}` })).items.length ===
      0,
    30_000,
  ).catch(() => progress("[real-node] pods still terminating after 30 s; stopping them forcefully"));
}
