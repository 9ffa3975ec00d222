// Machine-wide things a real node changes that are not under its directory: the kubelet sets
// kernel tunables at start (vm.overcommit_memory, kernel.panic, ...), the CNI bridge plugin
// turns on IPv4 forwarding, and containerd, CRI and the kubelet create a few fixed directories.
// The first real node on the machine records how things were; the last one to stop puts them
// back (the kubelet's own iptables chains included: see kubelet-chains.ts). Several nodes (parallel tests) share one record, guarded by a lock directory.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseCgroupMounts } from "./cgroups.ts";
import {
  chainKey,
  KUBELET_CHAINS,
  parseChainKey,
  presentKubeletChains,
  removeKubeletChains,
} from "./kubelet-chains.ts";

export const SETTINGS_DIR = "/run/livepeer-operator";
const RECORD = path.join(SETTINGS_DIR, "real-node-host.json");
const LOCK = path.join(SETTINGS_DIR, "real-node-host.lock");

/** Values the kubelet (protectKernelDefaults: false) and the bridge plugin (isGateway) write. */
export const TUNABLES = [
  "/proc/sys/vm/overcommit_memory",
  "/proc/sys/vm/panic_on_oom",
  "/proc/sys/kernel/panic",
  "/proc/sys/kernel/panic_on_oops",
  "/proc/sys/kernel/keys/root_maxkeys",
  "/proc/sys/kernel/keys/root_maxbytes",
  "/proc/sys/net/ipv4/ip_forward",
];

/** Fixed paths containerd 1.6, CRI and the kubelet use whatever they are told (removed if we made them and they are empty). */
export const FIXED_DIRS = [
  "/run/containerd/s",
  "/run/containerd",
  "/var/lib/cni/results",
  "/var/lib/cni",
  "/run/netns",
  "/var/log/containers",
  // The kubelet's device manager listens there whatever its root dir (see kubelet.ts).
  "/var/lib/kubelet/device-plugins",
  "/var/lib/kubelet",
];

/** runc creates containerd's `/k8s.io` parent cgroup in every hierarchy for CRI containers. */
function fixedDirs(): string[] {
  let cgroupParents: string[] = [];
  try {
    cgroupParents = parseCgroupMounts(readFileSync("/proc/self/mountinfo", "utf8")).map((m) =>
      path.join(m.mountPoint, "k8s.io"),
    );
  } catch {}
  return [...FIXED_DIRS, ...cgroupParents];
}

interface HostRecord {
  tunables: Record<string, string>;
  /** FIXED_DIRS that did not exist before the first node. */
  created: string[];
  /** Node directories holding the record. */
  holders: string[];
  /** The kubelet's iptables chains the machine did not have before the first node (chainKey). */
  kubeletChainsAbsent?: string[];
}

async function withLock<T>(fn: () => T | Promise<T>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      mkdirSync(SETTINGS_DIR, { recursive: true });
      mkdirSync(LOCK);
      break;
    } catch {
      if (Date.now() > deadline) {
        // A holder died inside the lock: nothing in it takes this long.
        rmSync(LOCK, { recursive: true, force: true });
        continue;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function readRecord(): HostRecord | undefined {
  try {
    return JSON.parse(readFileSync(RECORD, "utf8")) as HostRecord;
  } catch {
    return undefined;
  }
}

/**
 * The live holders of the host record (none: every setting has been put back) and the kubelet
 * chains the last of them will remove.
 */
export function hostSettingsHeld(): { holders: string[]; kubeletChainsAbsent: string[] } {
  const record = readRecord();
  return {
    holders: (record?.holders ?? []).filter((h) => existsSync(h)),
    kubeletChainsAbsent: record?.kubeletChainsAbsent ?? [],
  };
}

/** Registers `nodeDir` as a user of the host settings (recording them if it is the first). */
export function holdHostSettings(nodeDir: string): Promise<void> {
  return withLock(async () => {
    const live = readRecord();
    const present = live ? [] : (await presentKubeletChains()).map(chainKey);
    const record: HostRecord = live ?? {
      tunables: Object.fromEntries(
        TUNABLES.filter(existsSync).map((f) => [f, readFileSync(f, "utf8").trim()]),
      ),
      created: fixedDirs().filter((d) => !existsSync(d)),
      holders: [],
      kubeletChainsAbsent: KUBELET_CHAINS.map(chainKey).filter((k) => !present.includes(k)),
    };
    record.holders = [...record.holders.filter((h) => h !== nodeDir && existsSync(h)), nodeDir];
    writeFileSync(RECORD, `${JSON.stringify(record, null, 2)}\n`);
  });
}

/**
 * Releases `nodeDir`'s hold; when no live node holds the record any more, writes the recorded
 * tunables back and removes the fixed directories we created if they are empty. Returns what
 * it restored (for the progress log).
 */
export async function releaseHostSettings(
  nodeDir: string,
  /** Gets what could not be put back. */
  leftovers: string[] = [],
): Promise<string[]> {
  const restored = await withLock(async () => {
    const record = readRecord();
    if (!record) return [];
    record.holders = record.holders.filter((h) => h !== nodeDir && existsSync(h));
    if (record.holders.length > 0) {
      writeFileSync(RECORD, `${JSON.stringify(record, null, 2)}\n`);
      return [];
    }
    const restored: string[] = [];
    for (const [file, value] of Object.entries(record.tunables)) {
      try {
        if (readFileSync(file, "utf8").trim() !== value) {
          writeFileSync(file, `${value}\n`);
          restored.push(`${file.replace("/proc/sys/", "").replaceAll("/", ".")}=${value}`);
        }
      } catch {}
    }
    for (const dir of record.created) {
      try {
        // A cgroup directory is never empty of control files but rmdir removes it when it has no children.
        if (dir.startsWith("/sys/fs/cgroup/") || readdirSync(dir).length === 0) rmdirSync(dir);
      } catch {}
    }
    const chains = (record.kubeletChainsAbsent ?? []).flatMap((k) => parseChainKey(k) ?? []);
    const { removed, failures } = await removeKubeletChains(chains);
    if (removed.length) restored.push(`${removed.length} iptables chains of the kubelet removed`);
    leftovers.push(...failures);
    rmSync(RECORD, { force: true });
    return restored;
  });
  try {
    rmdirSync(SETTINGS_DIR); // only when empty: no record, no lock
  } catch {}
  return restored;
}
