// Removes every trace of a real node from the machine, from its state file alone, so the same
// code serves a clean stop and the reaper after a crash (`node teardown.ts <node dir>`):
// processes (kubelet, containerd, shims, containers), mounts, network namespaces, the bridge,
// cgroups, CNI cache files, kubelet log links, then the directory itself.
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isAlive, sleep } from "../../../process/pids.ts";
import { parseCgroupMounts, pidsIn, removeCgroups } from "./cgroups.ts";
import { removeBridgeForwarding } from "./forwarding.ts";
import { releaseHostSettings } from "./host-settings.ts";
import { type NodeLayout, type NodeNetwork, nodeLayout } from "./layout.ts";
import { mountsUnder, unmount, unmountAllUnder } from "./mounts.ts";
import { bridgeExists, deleteBridge } from "./network.ts";
import { teardownServiceProxy } from "./service-proxy.ts";

/** What a node records as it starts, for teardown. */
export interface NodeState {
  nodeName: string;
  network?: NodeNetwork;
  cgroupDirs: string[];
  pids: Partial<Record<"containerd" | "kubelet" | "kube-proxy", number>>;
  /** Set when the node runs kube-proxy: the binary that removes its chains (`--cleanup`). */
  kubeProxy?: string;
}

/** The cgroup directories of the node's containers (sandboxes included), in every hierarchy. */
export function containerCgroupDirs(layout: NodeLayout): string[] {
  const mounts = parseCgroupMounts(readFileSync("/proc/self/mountinfo", "utf8"));
  return bundles(layout).flatMap((b) =>
    b.cgroupsPath ? mounts.map((m) => path.join(m.mountPoint, b.cgroupsPath!)) : [],
  );
}

export function readNodeState(layout: NodeLayout): NodeState | undefined {
  try {
    return JSON.parse(readFileSync(layout.state, "utf8")) as NodeState;
  } catch {
    return undefined;
  }
}

export function writeNodeState(layout: NodeLayout, state: NodeState): void {
  writeFileSync(layout.state, `${JSON.stringify(state, null, 2)}\n`);
}

function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

/** containerd shims serving our containerd (they outlive it): `-address <our socket>` on their command line. */
export function shimPids(containerdSocket: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const args = cmdline(Number(entry));
    const at = args.indexOf("-address");
    if (args[0]?.includes("containerd-shim") && at >= 0 && args[at + 1] === containerdSocket)
      pids.push(Number(entry));
  }
  return pids;
}

interface Bundle {
  id: string;
  netns?: string;
  shimSocket?: string;
  /** The spec's cgroupsPath (containerd's default for CRI pods: `/k8s.io/<id>`). */
  cgroupsPath?: string;
}

/** The network namespaces of the node's pod sandboxes now (to remove even after a drain). */
export function sandboxNetns(layout: NodeLayout): string[] {
  return bundles(layout).flatMap((b) => (b.netns ? [b.netns] : []));
}

/** The task bundles containerd keeps in its state dir: each names its network namespace and shim socket. */
function bundles(layout: NodeLayout): Bundle[] {
  const root = path.join(layout.containerd.state, "io.containerd.runtime.v2.task");
  const out: Bundle[] = [];
  for (const ns of safeReaddir(root)) {
    for (const id of safeReaddir(path.join(root, ns))) {
      const dir = path.join(root, ns, id);
      const bundle: Bundle = { id };
      try {
        const spec = JSON.parse(readFileSync(path.join(dir, "config.json"), "utf8")) as {
          linux?: { namespaces?: { type: string; path?: string }[]; cgroupsPath?: string };
        };
        const net = spec.linux?.namespaces?.find((n) => n.type === "network")?.path;
        if (net && /^\/(var\/)?run\/netns\//.test(net)) bundle.netns = net.replace(/^\/var\/run\//, "/run/");
        const cg = spec.linux?.cgroupsPath;
        // Only a path that names this container: never a shared parent.
        if (cg?.startsWith("/") && !cg.includes("..") && cg.endsWith(`/${id}`)) bundle.cgroupsPath = cg;
      } catch {}
      try {
        bundle.shimSocket = readFileSync(path.join(dir, "address"), "utf8")
          .trim()
          .replace(/^unix:\/\//, "");
      } catch {}
      out.push(bundle);
    }
  }
  return out;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** SIGTERM a pid we started (checked by its command line, so a reused pid is left alone), then SIGKILL. */
export async function stopOwnProcess(
  pid: number | undefined,
  binary: string,
  graceMs = 10_000,
): Promise<void> {
  if (!pid || !isAlive(pid) || !cmdline(pid)[0]?.endsWith(binary)) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
  while (isAlive(pid)) await sleep(20);
}

async function killAll(pids: number[]): Promise<void> {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  const deadline = Date.now() + 10_000;
  // Zombies of a dead parent are reaped by init; a pid that stays is reported by the caller.
  while (pids.some((p) => isAlive(p) && !isZombie(p)) && Date.now() < deadline) await sleep(20);
}

function isZombie(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

export interface TeardownResult {
  killed: number;
  unmounted: string[];
  netns: string[];
  restored: string[];
  /** What could not be removed; empty when the machine is clean. */
  leftovers: string[];
}

/**
 * Tears the node in `dir` down. `log` gets one line per step that did something. Throws
 * (listing what is left) only when something could not be removed; the directory is then kept
 * rather than deleted through a mount.
 */
export async function teardownNode(
  dir: string,
  log: (line: string) => void = () => undefined,
  /** Network namespaces seen earlier (before a drain removed their bundles): removed too. */
  knownNetns: readonly string[] = [],
): Promise<TeardownResult> {
  const layout = nodeLayout(dir);
  const state = readNodeState(layout);
  const result: TeardownResult = { killed: 0, unmounted: [], netns: [], restored: [], leftovers: [] };
  const found = bundles(layout);
  // A drained sandbox's bundle can be gone while containerd has not removed its namespace yet.
  for (const netns of knownNetns) if (!found.some((b) => b.netns === netns)) found.push({ id: "", netns });
  const containerCgroups = containerCgroupDirs(layout);
  const shims = shimPids(layout.containerd.socket);

  if (state?.kubeProxy) {
    const cleaned = await teardownServiceProxy(dir, state.kubeProxy, () =>
      stopOwnProcess(state.pids["kube-proxy"], "kube-proxy", 5_000),
    ).catch((err: Error) => {
      result.leftovers.push(err.message);
      return false;
    });
    if (cleaned) log("[real-node] stopped kube-proxy and removed its iptables chains");
  }
  await stopOwnProcess(state?.pids.kubelet, "kubelet");
  await stopOwnProcess(state?.pids.containerd, "containerd", 5_000);
  // Containers, shims and anything else in the node's cgroups.
  const victims = [
    ...new Set([...pidsIn(containerCgroups), ...pidsIn(state?.cgroupDirs ?? []), ...shims]),
  ].filter((p) => p !== process.pid);
  await killAll(victims);
  result.killed = victims.length;
  if (victims.length) log(`[real-node] stopped ${victims.length} container and shim processes`);

  const before = mountsUnder(dir);
  const mountErrors = unmountAllUnder(dir);
  result.unmounted = before.filter((m) => !mountErrors.some((e) => e.startsWith(`${m}:`)));
  result.leftovers.push(...mountErrors);

  for (const { netns } of found) {
    if (!netns || !existsSync(netns)) continue;
    const err = mountsUnder(netns).length ? unmount(netns) : undefined;
    if (err) result.leftovers.push(err);
    else {
      rmSync(netns, { force: true });
      result.netns.push(netns);
    }
  }
  for (const { shimSocket } of found)
    if (shimSocket?.startsWith("/run/containerd/s/")) rmSync(shimSocket, { force: true });

  if (state?.network) {
    const { networkName, bridge } = state.network;
    for (const f of safeReaddir("/var/lib/cni/results")) {
      if (f.startsWith(`${networkName}-`)) rmSync(path.join("/var/lib/cni/results", f), { force: true });
    }
    try {
      deleteBridge(bridge);
    } catch (err) {
      result.leftovers.push((err as Error).message);
    }
    await removeBridgeForwarding(bridge).catch((err: Error) => result.leftovers.push(err.message));
    if (bridgeExists(bridge)) result.leftovers.push(`interface ${bridge}`);
  }
  // The kubelet's per-container log links point into our pod log dir.
  for (const f of safeReaddir("/var/log/containers")) {
    const link = path.join("/var/log/containers", f);
    try {
      if (readlinkSync(link).startsWith(`${dir}/`)) rmSync(link, { force: true });
    } catch {}
  }
  result.leftovers.push(
    ...removeCgroups([...containerCgroups, ...(state?.cgroupDirs ?? [])]).map((d) => `cgroup ${d}`),
  );
  result.restored = await releaseHostSettings(dir, result.leftovers);
  if (result.restored.length) log(`[real-node] restored ${result.restored.join(", ")}`);

  if (mountsUnder(dir).length === 0) rmSync(dir, { recursive: true, force: true });
  else result.leftovers.push(`${dir} kept: mounts remain under it`);
  if (result.leftovers.length) {
    throw new Error(`the real node in ${dir} left things behind:\n  ${result.leftovers.join("\n  ")}`);
  }
  return result;
}

// `node teardown.ts <node dir>`: what the reaper runs when the process that started the node died
// (a node that was stopped cleanly has no directory left: nothing to do).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write("usage: teardown.ts <real node dir>\n");
    process.exit(2);
  }
  if (!existsSync(dir)) process.exit(0);
  teardownNode(path.resolve(dir), (l) => process.stderr.write(`${l}\n`)).then(
    () => process.exit(0),
    (err: Error) => {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    },
  );
}
