// The connect-time judgement as pure functions: targetRefusal (address policy, then the egress
// restriction), nameRefusal, parseTarget, and guardedLookup with a resolver answering given
// addresses (no network; under loopback-only it stands for a hosts file mapping *.localhost).
import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { Allowlist, LOOPBACK_ALLOWED, NOTHING_ALLOWED } from "./address-policy.ts";
import { guardedLookup, type TargetPolicy, TargetRefusedError, targetRefusal } from "./guarded-lookup.ts";
import { parseTarget } from "./sender.ts";

const LOOPBACK_ONLY: TargetPolicy = { allow: LOOPBACK_ALLOWED, egress: "loopback-only" };
const PUBLIC: TargetPolicy = { allow: LOOPBACK_ALLOWED, egress: "public" };
const EGRESS_TEXT = "; this API delivers only to loopback addresses (--delivery-egress loopback-only)";

describe("targetRefusal", () => {
  it("refuses a public address under loopback-only, naming the restriction", () => {
    expect(targetRefusal("93.184.216.34", "93.184.216.34", LOOPBACK_ONLY)).toBe(
      `refused: 93.184.216.34, not a loopback address${EGRESS_TEXT}`,
    );
    expect(targetRefusal("hook.example", "2606:2800:220:1::1", LOOPBACK_ONLY)).toBe(
      `refused: hook.example resolves to 2606:2800:220:1::1, not a loopback address${EGRESS_TEXT}`,
    );
  });

  it("keeps the address policy's refusal (and its text) first: loopback-only only narrows it", () => {
    for (const policy of [PUBLIC, LOOPBACK_ONLY]) {
      expect(targetRefusal("10.0.0.7", "10.0.0.7", policy)).toMatch(
        /^refused: 10\.0\.0\.7, a private address; webhook targets must be public addresses/,
      );
    }
    // Loopback still needs the allowlist: loopback-only does not allow it by itself.
    expect(
      targetRefusal("127.0.0.1", "127.0.0.1", { allow: NOTHING_ALLOWED, egress: "loopback-only" }),
    ).toMatch(/^refused: 127\.0\.0\.1, a loopback address; webhook targets must be public/);
  });

  it("refuses an allowlisted internal range that is not loopback under loopback-only", () => {
    const policy: TargetPolicy = { allow: new Allowlist(["10.20.0.0/16"]), egress: "loopback-only" };
    expect(targetRefusal("10.20.0.5", "10.20.0.5", { ...policy, egress: "public" })).toBeUndefined();
    expect(targetRefusal("10.20.0.5", "10.20.0.5", policy)).toBe(
      `refused: 10.20.0.5, not a loopback address${EGRESS_TEXT}`,
    );
  });

  it("lets loopback through under both, and public addresses under public", () => {
    for (const a of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
      expect(targetRefusal(a, a, PUBLIC)).toBeUndefined();
      expect(targetRefusal(a, a, LOOPBACK_ONLY)).toBeUndefined();
    }
    expect(targetRefusal("93.184.216.34", "93.184.216.34", PUBLIC)).toBeUndefined();
  });
});

describe("parseTarget (IP literals are judged here: Node skips the lookup for them)", () => {
  it.each([
    "https://93.184.216.34/",
    "http://93.184.216.34:8080/hook?x=1",
    "https://[2606:2800:220:1:248:1893:25c8:1946]/",
    "https://[::ffff:93.184.216.34]/",
    // The URL parser's IPv4 forms: all 93.184.216.34.
    "http://1572395042/",
    "http://0x5d.0xb8.0xd8.0x22/",
  ])("refuses %s under loopback-only, as no request", (url) => {
    expect(parseTarget(url, LOOPBACK_ONLY)).toMatch(
      /^refused: \S+, not a loopback address; this API delivers only/,
    );
    expect(parseTarget(url, PUBLIC)).toMatchObject({ options: { hostname: expect.any(String) } });
  });

  it.each(["http://127.0.0.1:9/h", "http://[::1]:9/h", "http://127.1:9/h"])(
    "accepts %s under loopback-only",
    (url) => {
      expect(parseTarget(url, LOOPBACK_ONLY)).toMatchObject({ options: { port: "9" } });
    },
  );

  it("under loopback-only refuses names other than localhost before any lookup; leaves the rest to the lookup", () => {
    expect(parseTarget("https://hook.invalid/x", LOOPBACK_ONLY)).toBe(
      "refused: hook.invalid, a name other than localhost (none is looked up); this API delivers only to loopback addresses (--delivery-egress loopback-only)",
    );
    expect(parseTarget("https://example.com/x", LOOPBACK_ONLY)).toMatch(
      /^refused: example\.com, a name other/,
    );
    expect(parseTarget("http://localhost:9/x", LOOPBACK_ONLY)).toMatchObject({
      options: { hostname: "localhost" },
    });
    expect(parseTarget("https://hook.invalid/x", PUBLIC)).toMatchObject({
      options: { hostname: "hook.invalid" },
    });
  });
});

describe("guardedLookup", () => {
  const resolved: string[] = [];
  function lookup(policy: TargetPolicy, addresses: LookupAddress[], all = false, name = "hook.localhost") {
    const look = guardedLookup(policy, (h, _o, cb) => {
      resolved.push(h);
      setImmediate(() => cb(null, addresses));
    });
    return new Promise<{ err: NodeJS.ErrnoException | null; result: unknown }>((resolve) =>
      look(name, { all }, (err, address, family) =>
        resolve({ err, result: all ? address : { address, family } }),
      ),
    );
  }

  it("refuses a name resolving to a public address under loopback-only", async () => {
    const { err } = await lookup(LOOPBACK_ONLY, [{ address: "93.184.216.34", family: 4 }]);
    expect(err).toBeInstanceOf(TargetRefusedError);
    expect(err?.message).toBe(
      `refused: hook.localhost resolves to 93.184.216.34, not a loopback address${EGRESS_TEXT}`,
    );
  });

  it("refuses a name with any non-loopback address among loopback ones", async () => {
    const { err } = await lookup(
      LOOPBACK_ONLY,
      [
        { address: "127.0.0.1", family: 4 },
        { address: "2001:4860:4860::8888", family: 6 },
      ],
      true,
    );
    expect(err?.message).toMatch(
      /^refused: hook\.localhost resolves to 2001:4860:4860::8888, not a loopback/,
    );
  });

  it("refuses a name other than localhost under loopback-only without resolving it; resolves it under public", async () => {
    resolved.length = 0;
    const { err } = await lookup(LOOPBACK_ONLY, [{ address: "127.0.0.1", family: 4 }], false, "hook.test");
    expect(err).toBeInstanceOf(TargetRefusedError);
    expect(err?.message).toMatch(/^refused: hook\.test, a name other than localhost/);
    expect(resolved).toEqual([]);
    expect(
      (await lookup(PUBLIC, [{ address: "93.184.216.34", family: 4 }], false, "hook.test")).err,
    ).toBeNull();
    expect(resolved).toEqual(["hook.test"]);
  });

  it("answers loopback names under loopback-only, and public ones under public", async () => {
    expect(await lookup(LOOPBACK_ONLY, [{ address: "127.0.0.1", family: 4 }])).toEqual({
      err: null,
      result: { address: "127.0.0.1", family: 4 },
    });
    expect(await lookup(PUBLIC, [{ address: "93.184.216.34", family: 4 }])).toEqual({
      err: null,
      result: { address: "93.184.216.34", family: 4 },
    });
  });
});
