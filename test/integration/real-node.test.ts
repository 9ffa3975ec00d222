// A real kubelet node beside the fake ones, on its own control plane: containerd runs real
// pods, the fake NVIDIA device plugin's GPUs are allocated by the kubelet's device manager,
// `kubectl logs`/`exec` reach the kubelet over loopback, pod IPs answer from the host, and
// stopping the node leaves nothing behind on the machine.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import https from "node:https";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { CoreV1Api, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { pidsIn } from "../../src/dev/cluster/real-node/cgroups.ts";
import { forwardChain } from "../../src/dev/cluster/real-node/forwarding.ts";
import { hostSettingsHeld } from "../../src/dev/cluster/real-node/host-settings.ts";
import { BUSYBOX_IMAGE, busyboxImageArchive } from "../../src/dev/cluster/real-node/images.ts";
import { chainKey, presentKubeletChains } from "../../src/dev/cluster/real-node/kubelet-chains.ts";
import { nodeLayout } from "../../src/dev/cluster/real-node/layout.ts";
import { mountsUnder } from "../../src/dev/cluster/real-node/mounts.ts";
import { bridgeExists, cidrsOverlap } from "../../src/dev/cluster/real-node/network.ts";
import { containerCgroupDirs, readNodeState, shimPids } from "../../src/dev/cluster/real-node/teardown.ts";
import { type RealNodeCluster, startClusterWithRealNode } from "./support/real-node.ts";

const NS = "real-node-test";
const GPUS = 2;
let cluster: RealNodeCluster;
let core: CoreV1Api;

const netnsNow = () => (existsSync("/run/netns") ? readdirSync("/run/netns") : []);
let netnsBefore: string[] = [];
/** The kubelet's iptables chains the machine had before any node of this file (chainKey). */
let kubeletChainsBefore: string[] = [];
/** containerd mounts the pods' network namespaces under the node's directory. */
const podNetns = (dir: string) => mountsUnder(dir).filter((m) => /\/netns\/[^/]+$/.test(m));

function pod(name: string, gpus: number, script: string): V1Pod {
  return {
    metadata: { name, namespace: NS },
    spec: {
      nodeSelector: { "livepeer.org/real-node": "true" },
      tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: "main",
          image: "livepeer-operator/busybox:dev",
          imagePullPolicy: "Never",
          command: ["/bin/sh", "-c", script],
          resources: { limits: { "nvidia.com/gpu": String(gpus) } },
        },
      ],
    },
  };
}

async function podWhen(name: string, ok: (p: V1Pod) => boolean, timeoutMs = 60_000): Promise<V1Pod> {
  let last: V1Pod | undefined;
  await waitFor(
    `pod ${name}`,
    async () => {
      last = await core.readNamespacedPod({ name, namespace: NS });
      return ok(last);
    },
    timeoutMs,
    () => JSON.stringify(last?.status),
  );
  return last!;
}

function ipv4ToInt(ip: string): number {
  return ip.split(".").reduce((n, o) => n * 256 + Number(o), 0);
}

describe("real node", () => {
  beforeAll(async () => {
    if (process.getuid?.() !== 0) {
      throw new Error(
        "the real-node tests need root (containerd, mounts, network namespaces): run them as root",
      );
    }
    netnsBefore = netnsNow();
    kubeletChainsBefore = (await presentKubeletChains()).map(chainKey);
    const t0 = Date.now();
    cluster = await startClusterWithRealNode({ gpus: GPUS });
    const t = cluster.node.timings;
    process.stderr.write(
      `[real-node] start to Ready ${(t.startToReadyMs / 1000).toFixed(1)} s (total ${(t.totalMs / 1000).toFixed(1)} s: packages ${(t.packagesMs / 1000).toFixed(1)} s, kubelet binary ${(t.kubeletBinaryMs / 1000).toFixed(1)} s); with control plane ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
    );
    core = cluster.kc.makeApiClient(CoreV1Api);
    const images = await cluster.node.importImage(busyboxImageArchive());
    expect(images).toContain(BUSYBOX_IMAGE);
    await core.createNamespace({ body: { metadata: { name: NS } } });
    // Pods need the namespace's default ServiceAccount (its token is a projected volume the kubelet mounts).
    await waitFor(
      "the default ServiceAccount",
      async () => !!(await core.readNamespacedServiceAccount({ name: "default", namespace: NS })),
      30_000,
    );
  }, 2_400_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it("is Ready with the plugin's GPUs, GPU Feature Discovery labels and the GPU taint", async () => {
    const node = await core.readNode({ name: cluster.node.nodeName });
    expect(node.status?.allocatable?.["nvidia.com/gpu"]).toBe(String(GPUS));
    expect(node.status?.capacity?.["nvidia.com/gpu"]).toBe(String(GPUS));
    expect(node.metadata?.labels).toMatchObject({
      "livepeer.org/real-node": "true",
      "nvidia.com/gpu.present": "true",
      "nvidia.com/gpu.product": "NVIDIA-GeForce-RTX-3090",
      "nvidia.com/gpu.count": String(GPUS),
      "nvidia.com/gpu.memory": "24576",
    });
    expect(node.spec?.taints).toContainEqual({ key: "nvidia.com/gpu", effect: "NoSchedule" });
    expect(node.status?.nodeInfo?.containerRuntimeVersion).toMatch(/^containerd:\/\//);
    // The API server reaches the kubelet by its Hostname; the InternalIP is the host's bridge address.
    expect(node.status?.addresses).toContainEqual({ type: "Hostname", address: "localhost" });
    expect(node.status?.addresses).toContainEqual({
      type: "InternalIP",
      address: cluster.node.network.gateway,
    });
    expect(cluster.node.plugin.registrations()).toBeGreaterThanOrEqual(1);
  });

  it("serves the kubelet API on loopback with a certificate from the cluster CA, and refuses anonymous callers", async () => {
    const node = await core.readNode({ name: cluster.node.nodeName });
    const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
    expect(port).toBeGreaterThan(0);
    const status = await new Promise<number>((resolve, reject) => {
      https
        .get(
          `https://127.0.0.1:${port}/pods`,
          { ca: readFileSync(cluster.cp.pki.caCert), timeout: 5000 }, // verifies the kubelet's serving certificate
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        )
        .on("error", reject);
    });
    expect(status).toBe(401);
  });

  it("runs a pod with one GPU: device in its environment, logs, exec, and its pod IP answers HTTP", async () => {
    await core.createNamespacedPod({
      namespace: NS,
      body: pod(
        "gpu-web",
        1,
        "echo hello from the real node; echo real-node-ok > /www/index.html; exec httpd -f -p 8080 -h /www",
      ),
    });
    const running = await podWhen("gpu-web", (p) => p.status?.phase === "Running" && !!p.status.podIP);
    expect(running.spec?.nodeName).toBe("localhost");
    const ip = running.status!.podIP!;
    const [subnetBase, bits] = cluster.node.network.subnet.split("/");
    expect(cidrsOverlap(`${ip}/32`, cluster.node.network.subnet)).toBe(true);
    expect(ipv4ToInt(ip) >>> (32 - Number(bits))).toBe(ipv4ToInt(subnetBase!) >>> (32 - Number(bits)));

    const env = await cluster.kubectl(["exec", "-n", NS, "gpu-web", "--", "env"]);
    const visible = /^NVIDIA_VISIBLE_DEVICES=(.*)$/m.exec(env)?.[1];
    expect(visible).toBeDefined();
    expect(visible!.split(",")).toHaveLength(1);
    expect(cluster.node.deviceIds).toContain(visible);
    expect(cluster.node.plugin.allocations()).toContainEqual([visible]);

    await waitFor(
      "the pod's log line",
      async () => (await cluster.kubectl(["logs", "-n", NS, "gpu-web"])).includes("hello from the real node"),
      30_000,
    );

    let body = "";
    await waitFor(
      `http://${ip}:8080/ to answer`,
      async () => {
        const res = await fetch(`http://${ip}:8080/index.html`, { signal: AbortSignal.timeout(2000) });
        body = await res.text();
        return res.ok;
      },
      30_000,
    );
    expect(body.trim()).toBe("real-node-ok");
  });

  it("leaves a pod asking for more GPUs than the node has Pending with Insufficient nvidia.com/gpu", async () => {
    await core.createNamespacedPod({ namespace: NS, body: pod("too-many-gpus", GPUS + 1, "sleep 3600") });
    const pending = await podWhen(
      "too-many-gpus",
      (p) =>
        !!p.status?.conditions?.some(
          (c) =>
            c.type === "PodScheduled" &&
            c.status === "False" &&
            /Insufficient nvidia\.com\/gpu/.test(c.message ?? ""),
        ),
    );
    expect(pending.status?.phase).toBe("Pending");
    expect(pending.spec?.nodeName).toBeUndefined();
  });

  it("keeps its GPUs across a kubelet restart: the plugin registers again and the free GPU is allocated", async () => {
    const before = cluster.node.plugin.registrations();
    const held = cluster.node.plugin.allocations().flat();
    await cluster.node.restartKubelet();
    expect(cluster.node.plugin.registrations()).toBeGreaterThan(before);
    await core.createNamespacedPod({ namespace: NS, body: pod("after-restart", 1, "sleep 3600") });
    await podWhen("after-restart", (p) => p.status?.phase === "Running");
    const env = await cluster.kubectl(["exec", "-n", NS, "after-restart", "--", "env"]);
    const visible = /^NVIDIA_VISIBLE_DEVICES=(.*)$/m.exec(env)?.[1];
    expect(cluster.node.deviceIds).toContain(visible);
    expect(held).not.toContain(visible); // the first pod still holds its GPU
    const first = await core.readNamespacedPod({ name: "gpu-web", namespace: NS });
    expect(first.status?.phase).toBe("Running");
  });

  it("stops cleanly: no processes, mounts, network namespaces, bridge or cgroups are left", async () => {
    const traces = tracesWhileRunning(cluster.node.dir);
    // The kubelet made its firewall chain (so the check after stop can fail).
    expect((await presentKubeletChains()).map(chainKey)).toContain("iptables/filter/KUBE-FIREWALL");
    const result = await cluster.node.stop();
    expect(result?.leftovers).toEqual([]);
    expectNoTraces(traces);
    await expectKubeletChainsPutBack();
    const node = await core.readNode({ name: "localhost" }).catch(() => undefined);
    expect(node).toBeUndefined();
  });
});

describe("a real node whose parent process is killed", () => {
  it("is torn down by the control plane's watchdog: nothing is left on the machine", async () => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(new URL("./support/real-node-child.ts", import.meta.url))],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-4000);
    });
    const ready = await new Promise<{ cpDir: string; nodeDir: string }>((resolve, reject) => {
      createInterface({ input: child.stdout }).on("line", (l) => {
        if (l.startsWith("READY ")) resolve(JSON.parse(l.slice(6)));
      });
      child.once("exit", (code) =>
        reject(new Error(`the child exited with ${code} before READY:\n${stderr}`)),
      );
    });
    const traces = tracesWhileRunning(ready.nodeDir);
    child.kill("SIGKILL");
    // The watchdog stops the processes, runs the node's teardown, then removes the temp dir.
    await waitFor(
      "the watchdog to remove the control plane's dir",
      async () => !existsSync(ready.cpDir),
      120_000,
      () => JSON.stringify({ left: existsSync(ready.nodeDir) ? readdirSync(ready.nodeDir) : [] }),
    );
    expectNoTraces(traces);
    await expectKubeletChainsPutBack();
  }, 300_000);
});

/**
 * Once no real node holds the host record, the machine has exactly the kubelet chains it had
 * before; while another node (the e2e project's) still holds it, every chain added since is on
 * the record its last holder removes.
 */
async function expectKubeletChainsPutBack(): Promise<void> {
  const now = (await presentKubeletChains()).map(chainKey);
  const held = hostSettingsHeld();
  if (held.holders.length === 0) expect(now).toEqual(kubeletChainsBefore);
  else
    expect(held.kubeletChainsAbsent).toEqual(
      expect.arrayContaining(now.filter((c) => !kubeletChainsBefore.includes(c))),
    );
}

interface Traces {
  dir: string;
  socket: string;
  pids: number[];
  netns: string[];
  bridge: string;
  cgroupDirs: string[];
  containerPids: number[];
}

/** What a running node has on the machine, checked to exist (so the checks after stop can fail). */
function tracesWhileRunning(dir: string): Traces {
  const layout = nodeLayout(dir);
  const state = readNodeState(layout)!;
  const netns = podNetns(dir);
  expect(netns.length).toBeGreaterThan(0); // the GPU pod's sandbox has one
  // None in the machine's /run/netns.
  expect(netnsNow().filter((n) => !netnsBefore.includes(n))).toEqual([]);
  expect(mountsUnder(dir).length).toBeGreaterThan(0);
  expect(pidsIn(state.cgroupDirs).length).toBeGreaterThan(0);
  expect(shimPids(layout.containerd.socket).length).toBeGreaterThan(0);
  expect(bridgeExists(state.network!.bridge)).toBe(true);
  // Its FORWARD chain (for machines where Docker set the policy to DROP), jumped to once.
  const chain = forwardChain(state.network!.bridge);
  expect(execFileSync("iptables", ["-w", "5", "-S", chain], { encoding: "utf8" })).toContain(
    `-A ${chain} -i`,
  );
  expect(iptablesForward().filter((r) => r.endsWith(`-j ${chain}`))).toHaveLength(1);
  // The pod's processes (pause and the container) live in cgroups of their own.
  const containerCgroups = containerCgroupDirs(layout);
  const containerPids = pidsIn(containerCgroups);
  expect(containerPids.length).toBeGreaterThanOrEqual(2);
  return {
    containerPids,
    dir,
    socket: layout.containerd.socket,
    pids: Object.values(state.pids),
    netns,
    bridge: state.network!.bridge,
    cgroupDirs: [...state.cgroupDirs, ...containerCgroups],
  };
}

/** The host's FORWARD rules, one per line. */
function iptablesForward(): string[] {
  return execFileSync("iptables", ["-w", "5", "-S", "FORWARD"], { encoding: "utf8" }).split("\n");
}

/** A killed process may linger as a zombie until init reaps it: that one is not running. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

function expectNoTraces(t: Traces): void {
  for (const pid of [...t.pids, ...t.containerPids])
    expect(running(pid), `pid ${pid} still runs`).toBe(false);
  expect(shimPids(t.socket)).toEqual([]);
  const ours = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.includes(t.dir));
  expect(ours).toEqual([]);
  expect(mountsUnder(t.dir)).toEqual([]);
  expect(readFileSync("/proc/self/mountinfo", "utf8")).not.toContain(t.dir);
  for (const n of t.netns) expect(existsSync(n), n).toBe(false);
  expect(netnsNow().filter((n) => !netnsBefore.includes(n))).toEqual([]);
  expect(bridgeExists(t.bridge)).toBe(false);
  expect(iptablesForward().join("\n")).not.toContain(forwardChain(t.bridge));
  for (const dir of t.cgroupDirs) expect(existsSync(dir), dir).toBe(false);
  expect(existsSync(t.dir)).toBe(false);
}
