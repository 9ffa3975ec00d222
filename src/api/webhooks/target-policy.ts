// Webhook targets on loopback, private, link-local or otherwise internal addresses would let any
// API user make the cluster call its own internals (SSRF). Refused at write time when the URL
// names such an address literally; names that resolve to one are refused by delivery at connect
// time. `allowLoopbackTargets` (development only) lifts this.
import { BlockList, isIP } from "node:net";

const internal = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  internal.addSubnet(net, bits, "ipv4");
}
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  internal.addSubnet(net, bits, "ipv6");
}

/** Why `url` may not be a webhook target, or undefined when it may. */
export function internalTargetReason(url: string): string | undefined {
  let host: string;
  try {
    // The WHATWG parser normalises 2130706433, 0x7f.1 and friends to dotted IPv4.
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return undefined; // not a URL: schema validation reports it
  }
  const bare = host.startsWith("[") ? host.slice(1, -1) : host.replace(/\.$/, "");
  if (bare === "localhost" || bare.endsWith(".localhost")) {
    return `url host '${host}' is loopback: webhook targets must be reachable public addresses`;
  }
  const family = isIP(bare);
  if (family === 0) return undefined;
  let address = bare;
  let type: "ipv4" | "ipv6" = family === 4 ? "ipv4" : "ipv6";
  const mapped =
    /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare) ?? /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(bare);
  if (mapped && family === 6) {
    address = mapped[2] === undefined ? mapped[1]! : hexPairToIpv4(mapped[1]!, mapped[2]);
    type = "ipv4";
  }
  if (internal.check(address, type)) {
    return `url host '${host}' is a loopback, private or link-local address: webhook targets must be reachable public addresses`;
  }
  return undefined;
}

function hexPairToIpv4(hi: string, lo: string): string {
  const a = Number.parseInt(hi, 16);
  const b = Number.parseInt(lo, 16);
  return `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
}
