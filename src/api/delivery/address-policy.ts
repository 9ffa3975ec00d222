// Which addresses a delivery may connect to. Everything that is not a public unicast address is
// refused (loopback, private, shared, link-local, cloud metadata, unspecified, documentation,
// multicast, reserved), IPv4 embedded in IPv6 (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96,
// compatible ::a.b.c.d) is judged as the IPv4 address it reaches, and an allowlist of CIDRs lifts
// the refusal for chosen ranges (the embedded default and tests allow loopback). On top of that,
// an egress restriction may refuse everything that is not loopback (test runs). Pure.
import { BlockList, isIP } from "node:net";

interface Range {
  cidr: string;
  what: string;
}

// Order matters: the first range that contains an address names it (metadata before link-local).
const V4_RANGES: Range[] = [
  { cidr: "169.254.169.254/32", what: "the cloud metadata address" },
  { cidr: "0.0.0.0/8", what: "an unspecified ('this network') address" },
  { cidr: "10.0.0.0/8", what: "a private address" },
  { cidr: "100.64.0.0/10", what: "a shared (carrier-grade NAT) address" },
  { cidr: "127.0.0.0/8", what: "a loopback address" },
  { cidr: "169.254.0.0/16", what: "a link-local address" },
  { cidr: "172.16.0.0/12", what: "a private address" },
  { cidr: "192.0.0.0/24", what: "an IETF protocol address" },
  { cidr: "192.0.2.0/24", what: "a documentation address" },
  { cidr: "192.88.99.0/24", what: "a reserved (6to4 relay) address" },
  { cidr: "192.168.0.0/16", what: "a private address" },
  { cidr: "198.18.0.0/15", what: "a benchmarking address" },
  { cidr: "198.51.100.0/24", what: "a documentation address" },
  { cidr: "203.0.113.0/24", what: "a documentation address" },
  { cidr: "224.0.0.0/4", what: "a multicast address" },
  { cidr: "240.0.0.0/4", what: "a reserved address" },
];

const V6_RANGES: Range[] = [
  { cidr: "fd00:ec2::254/128", what: "the cloud metadata address" },
  { cidr: "::/128", what: "the unspecified address" },
  { cidr: "::1/128", what: "the loopback address" },
  { cidr: "64:ff9b:1::/48", what: "a local-use NAT64 address" },
  { cidr: "100::/64", what: "a discard-only address" },
  { cidr: "2001:db8::/32", what: "a documentation address" },
  { cidr: "fc00::/7", what: "a unique local (private) address" },
  { cidr: "fe80::/10", what: "a link-local address" },
  { cidr: "fec0::/10", what: "a site-local address" },
  { cidr: "ff00::/8", what: "a multicast address" },
];

function blockOf(cidr: string): BlockList {
  const list = new BlockList();
  const [net, bits] = cidr.split("/") as [string, string];
  list.addSubnet(net, Number(bits), isIP(net) === 6 ? "ipv6" : "ipv4");
  return list;
}

const v4Checks = V4_RANGES.map((r) => ({ ...r, list: blockOf(r.cidr) }));
const v6Checks = V6_RANGES.map((r) => ({ ...r, list: blockOf(r.cidr) }));

/** The 8 16-bit groups of an IPv6 address (a trailing dotted IPv4 included), or undefined. */
export function ipv6Groups(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, "").toLowerCase();
  if (isIP(text) !== 6) return undefined;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? (text.split("::") as [string, string]) : [text, undefined];
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const zeros = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...new Array<number>(zeros).fill(0), ...right];
}

/** The IPv4 address an IPv6 address reaches (mapped, NAT64 or compatible form), if it embeds one. */
export function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const mapped = zero(0, 5) && g[5] === 0xffff;
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6);
  // ::a.b.c.d (deprecated "compatible"); :: and ::1 are judged as IPv6.
  const compatible = zero(0, 6) && (g[6] !== 0 || g[7]! > 1);
  if (!mapped && !nat64 && !compatible) return undefined;
  return [g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255].join(".");
}

/** The allowlist: CIDRs (or bare addresses) whose addresses deliveries may reach although internal. */
export class Allowlist {
  readonly cidrs: readonly string[];
  readonly #list = new BlockList();

  /** Throws naming the bad entry and the expected form. */
  constructor(cidrs: readonly string[], field = "delivery allowlist") {
    this.cidrs = cidrs;
    for (const entry of cidrs) {
      const [net = "", bits, extra] = entry.trim().split("/");
      const family = isIP(net);
      const max = family === 6 ? 128 : 32;
      const prefix = bits === undefined ? max : Number(bits);
      if (
        family === 0 ||
        extra !== undefined ||
        !/^\d{0,3}$/.test(bits ?? "") ||
        !(prefix >= 0 && prefix <= max)
      ) {
        throw new Error(
          `${field} entry ${JSON.stringify(entry)} is not a CIDR: use an address with a prefix length, e.g. 127.0.0.0/8, 10.0.0.0/8 or ::1/128`,
        );
      }
      this.#list.addSubnet(net, prefix, family === 6 ? "ipv6" : "ipv4");
    }
  }

  allows(address: string): boolean {
    const family = isIP(address);
    if (family === 0) return false;
    return this.#list.check(address, family === 6 ? "ipv6" : "ipv4");
  }
}

export const NOTHING_ALLOWED = new Allowlist([]);
/** Loopback only, IPv4 and IPv6: the embedded default and tests (receivers on 127.0.0.1). */
export const LOOPBACK_ALLOWED = new Allowlist(["127.0.0.0/8", "::1/128"]);

/** What `address` is when deliveries may not reach it (e.g. "a private address"); undefined when they may. */
export function addressRefusal(address: string, allow: Allowlist = NOTHING_ALLOWED): string | undefined {
  const bare = address.replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 0) return `not an IP address (${JSON.stringify(address)})`;
  if (allow.allows(bare)) return undefined;
  const v4 = family === 4 ? bare : embeddedIpv4(bare);
  if (v4 !== undefined) {
    if (v4 !== bare && allow.allows(v4)) return undefined;
    const hit = v4Checks.find((c) => c.list.check(v4, "ipv4"));
    if (hit) return v4 === bare ? hit.what : `${hit.what} (${v4}, embedded in IPv6)`;
    return undefined;
  }
  return v6Checks.find((c) => c.list.check(bare, "ipv6"))?.what;
}

/**
 * Where deliveries may go at all, judged after (and on top of) the refusals above:
 * - "public" (the default): what addressRefusal permits, i.e. public addresses and the allowlist;
 * - "loopback-only": loopback addresses only (127.0.0.0/8, ::1; ::ffff:127.x.y.z is 127.x.y.z),
 *   everything else refused without a connection, and no name looked up but localhost: test runs,
 *   where no other address may be dialled.
 */
export const DELIVERY_EGRESS = ["public", "loopback-only"] as const;
export type DeliveryEgress = (typeof DELIVERY_EGRESS)[number];
export const DEFAULT_DELIVERY_EGRESS: DeliveryEgress = "public";

/**
 * Why the egress restriction refuses to look up the name `host` at all: under loopback-only every
 * name but localhost and *.localhost (RFC 6761: loopback, answered by the host itself) is refused
 * before resolution, since the lookup itself could leave the host (a query to a DNS server).
 */
export function egressNameRefusal(host: string, egress: DeliveryEgress): string | undefined {
  if (egress === "public") return undefined;
  const name = host.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return undefined;
  return "a name other than localhost (none is looked up)";
}

/** Why the egress restriction refuses `address` (e.g. "not a loopback address"); undefined when it permits it. */
export function egressRefusal(address: string, egress: DeliveryEgress): string | undefined {
  if (egress === "public") return undefined;
  const bare = address.replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 0) return `not an IP address (${JSON.stringify(address)})`;
  if (LOOPBACK_ALLOWED.allows(bare)) return undefined;
  // Only the mapped form reaches this host's IPv4 loopback; NAT64 and "compatible" forms are routed.
  const g = ipv6Groups(bare);
  const mapped = g?.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
  if (mapped && LOOPBACK_ALLOWED.allows(embeddedIpv4(bare) ?? "")) return undefined;
  return "not a loopback address";
}
