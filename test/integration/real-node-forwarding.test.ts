// The real node beside Docker: Docker sets iptables' FORWARD policy to DROP and turns on
// bridge-nf-call-iptables, which drops traffic between two pods on the node's bridge. This
// builds the same situation in a network namespace of its own (so the machine's own FORWARD
// chain, which other real nodes may be using, is never touched): a bridge, two "pods" (network
// namespaces on veth pairs), Docker's two settings; then proves that the real node's forwarding
// rules let pod A reach pod B, that applying them twice changes nothing, and that removing them
// leaves no chain or jump behind (and the traffic dropped again). Needs root.
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  acceptBridgeForwarding,
  forwardChain,
  hostIptables,
  removeBridgeForwarding,
} from "../../src/dev/cluster/real-node/forwarding.ts";

const HOST = `lpo-fwd-${process.pid}`;
const POD_A = `${HOST}-a`;
const POD_B = `${HOST}-b`;
const BRIDGE = "lpo-br0";
const B_ADDR = "10.213.0.3";
const iptables = hostIptables(HOST);

const ip = (...args: string[]) => execFileSync("ip", args, { stdio: ["ignore", "pipe", "pipe"] });
const inNs = (ns: string, ...args: string[]) => ip("netns", "exec", ns, ...args);
let server: ChildProcess | undefined;

/** Whether pod A opens a TCP connection to pod B's server within 1.5 s (a DROP shows as a timeout). */
function podAReachesB(): Promise<boolean> {
  const script = `const s = require("net").connect(8080, "${B_ADDR}"); s.setTimeout(1500, () => process.exit(1)); s.on("data", (d) => process.exit(String(d) === "pong" ? 0 : 2)); s.on("error", () => process.exit(3));`;
  return new Promise((resolve) =>
    execFile("ip", ["netns", "exec", POD_A, process.execPath, "-e", script], { timeout: 10_000 }, (err) =>
      resolve(!err),
    ),
  );
}

async function forwardRules(): Promise<string[]> {
  return (await iptables(["-S", "FORWARD"])).out.trim().split("\n");
}

describe("the real node's bridge beside Docker's iptables rules", () => {
  beforeAll(async () => {
    if (process.getuid?.() !== 0)
      throw new Error("real-node-forwarding.test.ts needs root (network namespaces, iptables)");
    for (const ns of [HOST, POD_A, POD_B]) ip("netns", "add", ns);
    inNs(HOST, "ip", "link", "set", "lo", "up");
    inNs(HOST, "ip", "link", "add", BRIDGE, "type", "bridge");
    inNs(HOST, "ip", "addr", "add", "10.213.0.1/24", "dev", BRIDGE);
    inNs(HOST, "ip", "link", "set", BRIDGE, "up");
    for (const [pod, addr, veth] of [
      [POD_A, "10.213.0.2", "veth-a"],
      [POD_B, B_ADDR, "veth-b"],
    ] as const) {
      inNs(HOST, "ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", pod);
      inNs(HOST, "ip", "link", "set", veth, "master", BRIDGE, "up");
      inNs(pod, "ip", "addr", "add", `${addr}/24`, "dev", "eth0");
      inNs(pod, "ip", "link", "set", "eth0", "up");
      inNs(pod, "ip", "link", "set", "lo", "up");
    }
    server = spawn(
      "ip",
      [
        "netns",
        "exec",
        POD_B,
        process.execPath,
        "-e",
        `require("net").createServer((s) => s.end("pong")).listen(8080, "${B_ADDR}", () => console.log("up"))`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise((resolve) => server!.stdout!.once("data", resolve));
    expect(await podAReachesB()).toBe(true); // the namespaces work before Docker's settings
    // What dockerd does at start.
    inNs(HOST, "sysctl", "-q", "-w", "net.bridge.bridge-nf-call-iptables=1");
    expect((await iptables(["-P", "FORWARD", "DROP"])).code).toBe(0);
  });

  afterAll(() => {
    server?.kill();
    for (const ns of [POD_A, POD_B, HOST]) {
      try {
        ip("netns", "del", ns);
      } catch {}
    }
  });

  it("with the FORWARD policy DROP and bridge-nf-call-iptables on, pods on one bridge cannot talk", async () => {
    expect(await forwardRules()).toContain("-P FORWARD DROP");
    expect(await podAReachesB()).toBe(false);
  });

  it("the node's chain, jumped to from FORWARD, lets them talk; applying it twice adds nothing", async () => {
    await acceptBridgeForwarding(BRIDGE, iptables);
    await acceptBridgeForwarding(BRIDGE, iptables);
    const chain = forwardChain(BRIDGE);
    expect((await forwardRules()).filter((r) => r.endsWith(`-j ${chain}`))).toHaveLength(1);
    expect((await iptables(["-S", chain])).out.trim().split("\n")).toEqual([
      `-N ${chain}`,
      `-A ${chain} -i ${BRIDGE} -j ACCEPT`,
      `-A ${chain} -o ${BRIDGE} -j ACCEPT`,
    ]);
    expect(await podAReachesB()).toBe(true);
  });

  it("removing them (twice: the teardown may run again after a crash) leaves no chain or jump", async () => {
    await removeBridgeForwarding(BRIDGE, iptables);
    await removeBridgeForwarding(BRIDGE, iptables);
    expect((await forwardRules()).join("\n")).not.toContain("LPO-FWD");
    expect((await iptables(["-S", forwardChain(BRIDGE)])).code).not.toBe(0);
    expect(await podAReachesB()).toBe(false);
  });
});
