import { describe, expect, it } from "vitest";
import {
  Allowlist,
  addressRefusal,
  DELIVERY_EGRESS,
  egressNameRefusal,
  egressRefusal,
  embeddedIpv4,
  ipv6Groups,
  LOOPBACK_ALLOWED,
} from "./address-policy.ts";

describe("addressRefusal with nothing allowed", () => {
  it.each<[string, RegExp]>([
    ["127.0.0.1", /^a loopback address$/],
    ["127.255.1.2", /loopback/],
    ["10.1.2.3", /^a private address$/],
    ["172.16.0.1", /private/],
    ["172.31.255.255", /private/],
    ["192.168.1.1", /private/],
    ["100.64.0.1", /shared/],
    ["169.254.169.254", /^the cloud metadata address$/],
    ["169.254.1.1", /^a link-local address$/],
    ["0.0.0.0", /unspecified/],
    ["192.0.2.10", /documentation/],
    ["198.18.0.1", /benchmarking/],
    ["224.0.0.1", /multicast/],
    ["255.255.255.255", /reserved/],
    ["::", /^the unspecified address$/],
    ["::1", /^the loopback address$/],
    ["fd00:ec2::254", /^the cloud metadata address$/],
    ["fd12:3456::1", /unique local/],
    ["fe80::1", /link-local/],
    ["fe80::1%eth0", /link-local/],
    ["ff02::1", /multicast/],
    ["::ffff:127.0.0.1", /^a loopback address \(127\.0\.0\.1, embedded in IPv6\)$/],
    ["::ffff:7f00:1", /loopback.*127\.0\.0\.1/],
    ["::ffff:169.254.169.254", /metadata/],
    ["::ffff:a9fe:a9fe", /metadata/],
    ["::ffff:10.0.0.1", /private/],
    ["64:ff9b::7f00:1", /loopback.*127\.0\.0\.1/],
    ["64:ff9b::a9fe:a9fe", /metadata/],
    ["::127.0.0.1", /loopback/],
    ["::0.0.0.2", /unspecified/],
    ["2001:db8::1", /documentation/],
    ["not-an-ip", /not an IP address/],
  ])("refuses %s as %s", (address, what) => {
    expect(addressRefusal(address)).toMatch(what);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
  ])("allows the public address %s", (address) => {
    expect(addressRefusal(address)).toBeUndefined();
  });
});

describe("addressRefusal with an allowlist", () => {
  it("lets loopback through, mapped forms included, and nothing else", () => {
    expect(addressRefusal("127.0.0.1", LOOPBACK_ALLOWED)).toBeUndefined();
    expect(addressRefusal("::1", LOOPBACK_ALLOWED)).toBeUndefined();
    expect(addressRefusal("::ffff:127.0.0.1", LOOPBACK_ALLOWED)).toBeUndefined();
    expect(addressRefusal("10.0.0.1", LOOPBACK_ALLOWED)).toMatch(/private/);
    expect(addressRefusal("169.254.169.254", LOOPBACK_ALLOWED)).toMatch(/metadata/);
  });

  it("allows exactly the listed ranges", () => {
    const allow = new Allowlist(["10.20.0.0/16", "fd00::/8", "192.168.1.5"]);
    expect(addressRefusal("10.20.3.4", allow)).toBeUndefined();
    expect(addressRefusal("10.21.3.4", allow)).toMatch(/private/);
    expect(addressRefusal("fd00::5", allow)).toBeUndefined();
    expect(addressRefusal("192.168.1.5", allow)).toBeUndefined();
    expect(addressRefusal("192.168.1.6", allow)).toMatch(/private/);
  });

  it.each(["10.0.0.0/33", "10.0.0/8", "example.com/8", "10.0.0.0/8/1", "::1/129", "10.0.0.0/x", ""])(
    "refuses the malformed entry %j, naming it and the expected form",
    (entry) => {
      expect(() => new Allowlist([entry])).toThrow(
        /delivery allowlist entry .* is not a CIDR: use .*127\.0\.0\.0\/8/,
      );
    },
  );
});

describe("IPv6 helpers", () => {
  it.each<[string, number[] | undefined]>([
    ["::", [0, 0, 0, 0, 0, 0, 0, 0]],
    ["::1", [0, 0, 0, 0, 0, 0, 0, 1]],
    ["fe80::1:2", [0xfe80, 0, 0, 0, 0, 0, 1, 2]],
    ["::ffff:1.2.3.4", [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]],
    ["1:2:3:4:5:6:7:8", [1, 2, 3, 4, 5, 6, 7, 8]],
    ["1.2.3.4", undefined],
  ])("ipv6Groups(%s)", (address, groups) => {
    expect(ipv6Groups(address)).toEqual(groups);
  });

  it.each<[string, string | undefined]>([
    ["::ffff:1.2.3.4", "1.2.3.4"],
    ["::ffff:0102:0304", "1.2.3.4"],
    ["64:ff9b::1.2.3.4", "1.2.3.4"],
    ["::1.2.3.4", "1.2.3.4"],
    ["::1", undefined],
    ["::", undefined],
    ["2001:db8::1", undefined],
  ])("embeddedIpv4(%s) = %s", (address, v4) => {
    expect(embeddedIpv4(address)).toBe(v4);
  });
});

describe("egressRefusal", () => {
  // [address, refused under loopback-only]
  const table: [string, boolean][] = [
    // Loopback: 127.0.0.0/8, ::1 (zone ignored), and IPv4-mapped 127/8 (the same host's loopback).
    ["127.0.0.1", false],
    ["127.0.0.2", false],
    ["127.255.255.254", false],
    ["::1", false],
    ["0:0:0:0:0:0:0:1", false],
    ["::1%lo", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:7f00:1", false],
    // Public, IPv4 and IPv6: what a fuzzer's made-up URL may name.
    ["93.184.216.34", true],
    ["8.8.8.8", true],
    ["1.1.1.1", true],
    ["2606:2800:220:1:248:1893:25c8:1946", true],
    ["2001:4860:4860::8888", true],
    ["::ffff:93.184.216.34", true],
    // Private, shared, link-local, metadata, unspecified, multicast, broadcast, documentation.
    ["10.0.0.1", true],
    ["172.16.0.1", true],
    ["192.168.1.1", true],
    ["100.64.0.1", true],
    ["169.254.169.254", true],
    ["0.0.0.0", true],
    ["224.0.0.1", true],
    ["255.255.255.255", true],
    ["192.0.2.1", true],
    ["fd00::1", true],
    ["fe80::1%eth0", true],
    ["fd00:ec2::254", true],
    ["::", true],
    ["ff02::1", true],
    // Neighbours of loopback that are not loopback.
    ["126.255.255.255", true],
    ["128.0.0.1", true],
    ["::2", true],
    ["::ffff:128.0.0.1", true],
    // IPv4 embedded otherwise is routed elsewhere (a NAT64 gateway), not this host's loopback.
    ["64:ff9b::127.0.0.1", true],
    ["64:ff9b::7f00:1", true],
    ["::127.0.0.1", true],
    // Not an address at all.
    ["localhost", true],
    ["", true],
  ];

  it.each(table)("loopback-only: %s refused = %s", (address, refused) => {
    const why = egressRefusal(address, "loopback-only");
    if (refused) expect(why).toMatch(/^not (a loopback address|an IP address)/);
    else expect(why).toBeUndefined();
  });

  it.each(table)("public: %s is left to the address policy", (address) => {
    expect(egressRefusal(address, "public")).toBeUndefined();
  });

  it("has exactly these modes, and any other value restricts (fails closed)", () => {
    expect(DELIVERY_EGRESS).toEqual(["public", "loopback-only"]);
    expect(egressRefusal("93.184.216.34", "bogus" as never)).toBe("not a loopback address");
  });
});

describe("egressNameRefusal", () => {
  it.each([
    ["localhost", false],
    ["LOCALHOST", false],
    ["localhost.", false],
    ["hooks.localhost", false],
    ["hook.invalid", true],
    ["example.com", true],
    ["localhost.example.com", true],
    ["notlocalhost", true],
    ["metadata.google.internal", true],
  ])("loopback-only: the name %s refused before lookup = %s", (host, refused) => {
    const why = egressNameRefusal(host as string, "loopback-only");
    if (refused) expect(why).toBe("a name other than localhost (none is looked up)");
    else expect(why).toBeUndefined();
    expect(egressNameRefusal(host as string, "public")).toBeUndefined();
  });
});
