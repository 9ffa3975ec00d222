// Docker (like many firewalls) sets iptables' FORWARD policy to DROP and turns on
// bridge-nf-call-iptables, so frames between two pods on our bridge go through FORWARD and are
// dropped: the controller pod's GET /status of a node pod times out. Each real node accepts its
// own bridge's traffic explicitly, in a chain of its own jumped to from FORWARD, and removes
// both on teardown (a clean stop and the watchdog's teardown alike). Both steps are idempotent.
import { execFile } from "node:child_process";

/** Runs `iptables` with these arguments; resolves with its exit code and output (never throws). */
export type Iptables = (args: string[]) => Promise<{ code: number; out: string }>;

/** The node's chain: `LPO-FWD-<bridge>` (iptables chain names are at most 28 characters). */
export function forwardChain(bridge: string): string {
  return `LPO-FWD-${bridge}`;
}

const COMMENT = "livepeer-operator real node: accept its bridge";

/** The rules of the node's chain: anything in or out of its bridge (pod to pod, pod to host, replies). */
export function acceptRules(bridge: string): string[][] {
  const chain = forwardChain(bridge);
  return [
    ["-A", chain, "-i", bridge, "-j", "ACCEPT"],
    ["-A", chain, "-o", bridge, "-j", "ACCEPT"],
  ];
}

/** The jump from FORWARD (without the -I/-C/-D verb), commented so `iptables -S` says whose it is. */
export function jumpRule(bridge: string): string[] {
  return ["FORWARD", "-m", "comment", "--comment", COMMENT, "-j", forwardChain(bridge)];
}

/** iptables on this machine (`-w`: wait for the xtables lock kube-proxy and Docker also take). */
export function hostIptables(netns?: string): Iptables {
  const [cmd, prefix] = netns ? ["ip", ["netns", "exec", netns, "iptables"]] : ["iptables", []];
  return (args) =>
    new Promise((resolve) => {
      execFile(cmd, [...prefix, "-w", "5", ...args], { timeout: 30_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
      );
    });
}

async function must(iptables: Iptables, args: string[]): Promise<void> {
  const r = await iptables(args);
  if (r.code !== 0) {
    throw new Error(
      `iptables ${args.join(" ")} failed (${r.code}): ${r.out.trim()}; the real node needs iptables (Debian's 'iptables' package) and root`,
    );
  }
}

/**
 * Makes FORWARD accept `bridge`'s traffic whatever its policy: (re)creates the node's chain with
 * its rules and inserts the jump at the top of FORWARD unless it is there already.
 */
export async function acceptBridgeForwarding(bridge: string, iptables: Iptables = hostIptables()) {
  const chain = forwardChain(bridge);
  if ((await iptables(["-S", chain])).code !== 0) await must(iptables, ["-N", chain]);
  await must(iptables, ["-F", chain]);
  for (const rule of acceptRules(bridge)) await must(iptables, rule);
  const jump = jumpRule(bridge);
  if ((await iptables(["-C", ...jump])).code !== 0)
    await must(iptables, ["-I", jump[0]!, "1", ...jump.slice(1)]);
}

/** Removes every jump to the node's chain and the chain itself; nothing to do when they are gone. */
export async function removeBridgeForwarding(bridge: string, iptables: Iptables = hostIptables()) {
  const chain = forwardChain(bridge);
  // A crash between two inserts could leave two jumps: delete until none is left (bounded).
  for (let i = 0; i < 10 && (await iptables(["-D", ...jumpRule(bridge)])).code === 0; i++);
  if ((await iptables(["-S", chain])).code !== 0) return;
  await must(iptables, ["-F", chain]);
  await must(iptables, ["-X", chain]);
}
