// The iptables chains the kubelet makes on its own at start (pkg/kubelet/kubelet_network_linux.go):
// KUBE-IPTABLES-HINT (mangle: which iptables backend is in use), KUBE-KUBELET-CANARY (mangle, nat,
// filter: to notice a flush), and KUBE-FIREWALL (filter, jumped to from INPUT and OUTPUT: drops
// non-loopback traffic to 127/8), in IPv4 and IPv6 alike. Nothing removes them when the kubelet
// stops, and KUBE-FIREWALL outlives it as a live DROP rule. The first real node records which of
// them the machine did not have; the last one to stop removes those (never a chain that was there
// before: a machine that is itself a Kubernetes node keeps its own).
import { execFile } from "node:child_process";
import type { Iptables } from "./forwarding.ts";

export type IpFamily = "iptables" | "ip6tables";

export interface KubeletChain {
  family: IpFamily;
  table: "mangle" | "nat" | "filter";
  chain: string;
}

const PER_FAMILY: Omit<KubeletChain, "family">[] = [
  { table: "mangle", chain: "KUBE-IPTABLES-HINT" },
  { table: "mangle", chain: "KUBE-KUBELET-CANARY" },
  { table: "nat", chain: "KUBE-KUBELET-CANARY" },
  { table: "filter", chain: "KUBE-KUBELET-CANARY" },
  { table: "filter", chain: "KUBE-FIREWALL" },
];

export const KUBELET_CHAINS: KubeletChain[] = (["iptables", "ip6tables"] as const).flatMap((family) =>
  PER_FAMILY.map((c) => ({ family, ...c })),
);

/** `iptables/filter/KUBE-FIREWALL`: how the host record names a chain. */
export function chainKey(c: KubeletChain): string {
  return `${c.family}/${c.table}/${c.chain}`;
}

export function parseChainKey(key: string): KubeletChain | undefined {
  return KUBELET_CHAINS.find((c) => chainKey(c) === key);
}

/** Runs iptables or ip6tables (waiting for the xtables lock), optionally inside a network namespace. */
export function familyIptables(family: IpFamily, netns?: string): Iptables {
  const [cmd, prefix] = netns ? ["ip", ["netns", "exec", netns, family]] : [family, []];
  return (args) =>
    new Promise((resolve) => {
      execFile(cmd, [...prefix, "-w", "5", ...args], { timeout: 30_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
      );
    });
}

export type IptablesOf = (family: IpFamily) => Iptables;

/** The kubelet chains that exist now (a family whose tool is missing has none). */
export async function presentKubeletChains(run: IptablesOf = familyIptables): Promise<KubeletChain[]> {
  const present: KubeletChain[] = [];
  for (const c of KUBELET_CHAINS) {
    if ((await run(c.family)(["-t", c.table, "-S", c.chain])).code === 0) present.push(c);
  }
  return present;
}

/**
 * The rules of `table` that jump to `chain`, as `-D` arguments (from `iptables -S`: `-A INPUT -j
 * KUBE-FIREWALL` becomes `-D INPUT -j KUBE-FIREWALL`).
 */
export function jumpsTo(listing: string, chain: string): string[][] {
  return listing
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("-A ") && new RegExp(`(^| )-j ${chain}( |$)`).test(l))
    .map((l) => ["-D", ...splitRule(l.slice(3))]);
}

/** Splits an `iptables -S` rule into arguments, keeping quoted comments whole. */
function splitRule(rule: string): string[] {
  const args: string[] = [];
  for (const m of rule.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)) args.push(m[1] ?? m[2]!);
  return args;
}

/**
 * Removes these chains: every jump to them first, then their rules, then the chains (each step
 * idempotent; a chain already gone is nothing to do). Says what it removed and what it could not.
 */
export async function removeKubeletChains(
  chains: readonly KubeletChain[],
  run: IptablesOf = familyIptables,
): Promise<{ removed: string[]; failures: string[] }> {
  const removed: string[] = [];
  const failures: string[] = [];
  for (const c of chains) {
    const iptables = run(c.family);
    if ((await iptables(["-t", c.table, "-S", c.chain])).code !== 0) continue;
    const listing = await iptables(["-t", c.table, "-S"]);
    for (const rule of jumpsTo(listing.out, c.chain)) await iptables(["-t", c.table, ...rule]);
    await iptables(["-t", c.table, "-F", c.chain]);
    const deleted = await iptables(["-t", c.table, "-X", c.chain]);
    if (deleted.code === 0) removed.push(chainKey(c));
    else failures.push(`${c.family} -t ${c.table} chain ${c.chain}: ${deleted.out.trim()}`);
  }
  return { removed, failures };
}
