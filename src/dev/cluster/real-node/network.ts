// The node's bridge: created by us (not by the CNI plugin) so that creating it claims a slot
// atomically, and so the kubelet can use its address as the node's InternalIP from the start:
// an address of this machine that only our pods and the host use.
import { execFileSync } from "node:child_process";
import { MAX_SLOTS, type NodeNetwork, nodeNetwork } from "./layout.ts";

function ip(args: string[]): string {
  try {
    return execFileSync("ip", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? (err as Error).message;
    throw new Error(`ip ${args.join(" ")}: ${stderr.trim()}`);
  }
}

function toInt(addr: string): number {
  return addr.split(".").reduce((n, octet) => n * 256 + Number(octet), 0);
}

/** Whether two IPv4 CIDRs (`a.b.c.d/n`, a bare address = /32) share any address. */
export function cidrsOverlap(a: string, b: string): boolean {
  const parse = (c: string) => {
    const [addr = "", bits = "32"] = c.split("/");
    const n = Number(bits);
    const size = 2 ** (32 - n);
    const start = Math.floor(toInt(addr) / size) * size;
    return { start, end: start + size - 1 };
  };
  const x = parse(a);
  const y = parse(b);
  return x.start <= y.end && y.start <= x.end;
}

/** IPv4 destinations of the machine's routes, from `ip -j route show table all`. */
export function routeDestinations(ipJson: string): string[] {
  const routes = JSON.parse(ipJson || "[]") as { dst?: string; type?: string }[];
  return routes
    .map((r) => r.dst ?? "")
    .filter((d) => /^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(d) && d !== "0.0.0.0/0" && !d.startsWith("127."));
}

export function bridgeExists(name: string): boolean {
  try {
    execFileSync("ip", ["link", "show", "dev", name], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * Claims the first free slot: a bridge name nobody has and a subnet no route of this machine
 * overlaps. The bridge gets the gateway address and is brought up.
 */
export function claimNetwork(): NodeNetwork {
  const destinations = routeDestinations(ip(["-j", "route", "show", "table", "all"]));
  for (let slot = 0; slot < MAX_SLOTS; slot++) {
    const net = nodeNetwork(slot);
    if (destinations.some((d) => cidrsOverlap(d, net.subnet))) continue;
    try {
      ip(["link", "add", "name", net.bridge, "type", "bridge"]);
    } catch (err) {
      if (/exists/i.test((err as Error).message)) continue; // another real node has this slot
      throw err;
    }
    try {
      ip(["addr", "add", `${net.gateway}/${net.prefixLength}`, "dev", net.bridge]);
      ip(["link", "set", "dev", net.bridge, "up"]);
    } catch (err) {
      deleteBridge(net.bridge);
      throw err;
    }
    return net;
  }
  throw new Error(
    `no free slot for a real node's bridge: lpo-br0..lpo-br${MAX_SLOTS - 1} all exist or their subnets overlap this machine's routes (see 'ip route')`,
  );
}

export function deleteBridge(name: string): void {
  if (bridgeExists(name)) ip(["link", "delete", "dev", name]);
}
