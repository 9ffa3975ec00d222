// Services for the real node's pods, the API server's own `kubernetes` Service first: pods use
// the in-cluster config (KUBERNETES_SERVICE_HOST=10.96.0.1), so the operator installed by Helm
// reaches the API server as it would in any cluster. Three parts:
// - the API server stays on 127.0.0.1 (every fake-node test keeps its loopback-only setup); a
//   TCP forwarder in this process listens on the bridge's gateway address, which pods can reach
//   and an EndpointSlice may name (validation refuses loopback). The control plane runs with
//   --endpoint-reconciler-type=none, so we write the `kubernetes` EndpointSlice and nothing
//   overwrites it;
// - kube-proxy (iptables mode) in the host's network namespace turns ClusterIPs into pod IPs
//   (and the API server's into the forwarder) for pods and for this host alike;
// - the service range is routed to the bridge, so a ClusterIP the rules do not (yet) cover goes
//   nowhere instead of out of the machine's default route.
// kube-proxy owns machine-wide chains (KUBE-SERVICES, ...): one at a time per machine, guarded by
// a lock directory; a second node that wants one waits for the first to stop.
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import type { DiscoveryV1Api } from "@kubernetes/client-node";
import { isAlive, sleep } from "../../../process/pids.ts";
import { logTail, type ManagedProcess, startProcess, waitFor } from "../process.ts";
import { SETTINGS_DIR } from "./host-settings.ts";
import type { NodeNetwork } from "./layout.ts";

/** The control plane's --service-cluster-ip-range. */
export const SERVICE_CIDR = "10.96.0.0/16";
const LOCK = path.join(SETTINGS_DIR, "kube-proxy.lock");
const MANAGED_BY = "real-node.livepeer-operator.dev";

/** Chains kube-proxy's iptables mode creates (KUBE-SVC-*, KUBE-SEP-*, ... by prefix): none may remain after stop. */
export const KUBE_PROXY_CHAIN =
  /^(KUBE-(SERVICES|NODEPORTS|POSTROUTING|FORWARD|EXTERNAL-SERVICES|PROXY-FIREWALL|PROXY-CANARY|MARK-MASQ|SVC-|SVL-|SEP-|EXT-|FW-))/;

/** kube-proxy's flags: iptables mode, and nothing machine-wide beyond its chains. */
export function kubeProxyArgs(o: {
  kubeconfig: string;
  nodeName: string;
  network: Pick<NodeNetwork, "subnet" | "gateway">;
  healthzPort: number;
  metricsPort: number;
}): string[] {
  return [
    `--kubeconfig=${o.kubeconfig}`,
    `--hostname-override=${o.nodeName}`,
    "--proxy-mode=iptables",
    `--cluster-cidr=${o.network.subnet}`,
    // Without br_netfilter, a pod -> Service -> pod on the same bridge needs the reply to come back
    // through the host: SNAT every Service connection.
    "--masquerade-all=true",
    // NodePorts answer on the bridge address only, never on this machine's other interfaces.
    `--nodeport-addresses=${o.network.gateway}/32`,
    // Leave host tunables alone: no route_localnet, no conntrack table sizes or timeouts.
    "--iptables-localhost-nodeports=false",
    "--conntrack-max-per-core=0",
    "--conntrack-tcp-timeout-established=0",
    "--conntrack-tcp-timeout-close-wait=0",
    "--conntrack-udp-timeout=0",
    "--conntrack-udp-timeout-stream=0",
    `--healthz-bind-address=127.0.0.1:${o.healthzPort}`,
    `--metrics-bind-address=127.0.0.1:${o.metricsPort}`,
    "--iptables-min-sync-period=200ms",
    "--v=2",
  ];
}

/** The `kubernetes` Service's endpoints: the forwarder on the gateway address. */
export function apiServerEndpointSlice(address: string, port: number) {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: "kubernetes",
      namespace: "default",
      labels: {
        "kubernetes.io/service-name": "kubernetes",
        "endpointslice.kubernetes.io/managed-by": MANAGED_BY,
      },
    },
    addressType: "IPv4",
    endpoints: [{ addresses: [address], conditions: { ready: true } }],
    ports: [{ name: "https", port, protocol: "TCP" }],
  };
}

function run(cmd: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

interface LockOwner {
  pid: number;
  nodeDir: string;
}

function lockOwner(): LockOwner | undefined {
  try {
    return JSON.parse(readFileSync(path.join(LOCK, "owner.json"), "utf8")) as LockOwner;
  } catch {
    return undefined;
  }
}

/** Takes the machine's kube-proxy lock for `nodeDir`, waiting while a live node holds it. */
async function takeLock(nodeDir: string, timeoutMs: number, progress: (l: string) => void): Promise<void> {
  mkdirSync(SETTINGS_DIR, { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let said = false;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(path.join(LOCK, "owner.json"), JSON.stringify({ pid: process.pid, nodeDir }));
      return;
    } catch {}
    const owner = lockOwner();
    if (owner && !isAlive(owner.pid)) {
      // Its process died; its teardown (the watchdog's) may not have run yet: clean up for it.
      progress(`[real-node] taking over kube-proxy from dead process ${owner.pid}`);
      await cleanupKubeProxyRules();
      rmSync(LOCK, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `another real node (${owner?.nodeDir ?? "unknown"}, pid ${owner?.pid}) runs kube-proxy on this machine, and only one can own its iptables chains; stop it first`,
      );
    }
    if (!said) progress(`[real-node] waiting for the real node in ${owner?.nodeDir} to stop its kube-proxy`);
    said = true;
    await sleep(500);
  }
}

/** Releases the lock if `nodeDir` holds it. */
export function releaseKubeProxyLock(nodeDir: string): void {
  if (lockOwner()?.nodeDir === nodeDir) rmSync(LOCK, { recursive: true, force: true });
}

let cleanupBinary: string | undefined;

/** `kube-proxy --cleanup`: removes its iptables (and ipvs/nftables) rules and chains. */
export async function cleanupKubeProxyRules(binary = cleanupBinary): Promise<void> {
  if (!binary) return;
  const r = await run(binary, ["--cleanup", "--v=0"]);
  if (r.code !== 0) throw new Error(`kube-proxy --cleanup failed (exit ${r.code}): ${r.out.slice(-2000)}`);
}

/** kube-proxy chains left in the host's iptables and ip6tables (nat, filter, mangle). */
export async function kubeProxyChains(): Promise<string[]> {
  const found: string[] = [];
  for (const tool of ["iptables-save", "ip6tables-save"]) {
    const r = await run(tool, []);
    for (const line of r.out.split("\n")) {
      const chain = /^:(\S+)/.exec(line)?.[1];
      if (chain && KUBE_PROXY_CHAIN.test(chain)) found.push(`${tool}: ${chain}`);
    }
  }
  return found;
}

/** Forwards TCP from `listen` (the gateway address) to the API server on loopback. */
function startForwarder(host: string, target: { host: string; port: number }): Promise<net.Server> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(target.port, target.host);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  const close = server.close.bind(server);
  server.close = (cb) => {
    for (const s of sockets) s.destroy();
    return close(cb);
  };
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve(server));
  });
}

export interface ServiceProxy {
  pid: number;
  /** The API server's address as pods see it behind the `kubernetes` Service. */
  apiServerEndpoint: { address: string; port: number };
  stop(): Promise<void>;
}

export interface ServiceProxyOptions {
  binary: string;
  kubeconfig: string;
  nodeName: string;
  nodeDir: string;
  network: NodeNetwork;
  /** The API server's URL on loopback (the control plane's). */
  apiServer: string;
  discovery: DiscoveryV1Api;
  logFile: string;
  ports: { healthz: number; metrics: number };
  /** Called with kube-proxy's pid as soon as it runs (for the node's state file and the watchdog). */
  started: (pid: number) => void;
  progress: (line: string) => void;
  lockTimeoutMs?: number;
}

export async function startServiceProxy(o: ServiceProxyOptions): Promise<ServiceProxy> {
  await takeLock(o.nodeDir, o.lockTimeoutMs ?? 10 * 60_000, o.progress);
  cleanupBinary = o.binary;
  let forwarder: net.Server | undefined;
  let proc: ManagedProcess | undefined;
  const stop = async () => {
    if (proc && proc.child.exitCode === null) {
      proc.child.kill("SIGTERM");
      await Promise.race([proc.exited, sleep(5000)]);
      if (proc.child.exitCode === null) proc.child.kill("SIGKILL");
      await proc.exited;
    }
    await cleanupKubeProxyRules(o.binary);
    await run("ip", ["route", "del", SERVICE_CIDR, "dev", o.network.bridge]);
    await new Promise<void>((r) => (forwarder ? forwarder.close(() => r()) : r()));
    await o.discovery
      .deleteNamespacedEndpointSlice({ name: "kubernetes", namespace: "default" })
      .catch(() => undefined);
    releaseKubeProxyLock(o.nodeDir);
  };
  try {
    const api = new URL(o.apiServer);
    forwarder = await startForwarder(o.network.gateway, { host: api.hostname, port: Number(api.port) });
    const port = (forwarder.address() as net.AddressInfo).port;
    const slice = apiServerEndpointSlice(o.network.gateway, port);
    await o.discovery
      .deleteNamespacedEndpointSlice({ name: "kubernetes", namespace: "default" })
      .catch(() => undefined);
    await o.discovery.createNamespacedEndpointSlice({ namespace: "default", body: slice });

    const route = await run("ip", ["route", "replace", SERVICE_CIDR, "dev", o.network.bridge]);
    if (route.code !== 0)
      throw new Error(`ip route replace ${SERVICE_CIDR} dev ${o.network.bridge}: ${route.out}`);

    proc = startProcess(
      "kube-proxy",
      o.binary,
      kubeProxyArgs({
        kubeconfig: o.kubeconfig,
        nodeName: o.nodeName,
        network: o.network,
        healthzPort: o.ports.healthz,
        metricsPort: o.ports.metrics,
      }),
      o.logFile,
    );
    o.started(proc.pid);
    const p = proc;
    await waitFor(
      "kube-proxy to program the kubernetes Service",
      async () => {
        if (p.child.exitCode !== null) throw new Error(`kube-proxy exited with ${p.child.exitCode}`);
        const healthy = (await fetch(`http://127.0.0.1:${o.ports.healthz}/healthz`)).ok;
        if (!healthy) return false;
        const nat = await run("iptables", ["-t", "nat", "-S", "KUBE-SERVICES"]);
        return nat.out.includes("default/kubernetes:https");
      },
      60_000,
      () => `kube-proxy log (${p.logFile}):\n${logTail(p.logFile, 25)}`,
    );
    return { pid: p.pid, apiServerEndpoint: { address: o.network.gateway, port }, stop };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}

/**
 * From a node's state alone (a clean stop or the watchdog after a crash): stops its kube-proxy,
 * and when the node holds the machine's kube-proxy lock, removes the chains and releases it.
 * Another node's chains are never touched.
 */
export async function teardownServiceProxy(
  nodeDir: string,
  binary: string | undefined,
  stopPid: () => Promise<void>,
): Promise<boolean> {
  const owner = lockOwner();
  await stopPid();
  if (owner?.nodeDir !== nodeDir) return false;
  await cleanupKubeProxyRules(binary);
  releaseKubeProxyLock(nodeDir);
  return true;
}
