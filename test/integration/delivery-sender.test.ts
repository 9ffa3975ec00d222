// The sender's connect-time guard against names that resolve to internal addresses: judged on
// every new connection (so a name that turns internal later, DNS rebinding, is refused then),
// and a name with any internal address among public ones is refused. And the threaded sender the
// engine uses: the same answers from its thread, the same guard there, and a thread that dies.
// The egress restriction (loopback-only): public targets refused without a connection, by literal
// or by name, under a tripwire on this thread's sockets that would refuse any non-loopback dial.
import type { LookupAddress } from "node:dns";
import { isIP, type LookupFunction, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LOOPBACK_ALLOWED, NOTHING_ALLOWED } from "../../src/api/delivery/address-policy.ts";
import { Sender } from "../../src/api/delivery/sender.ts";
import { ThreadedSender } from "../../src/api/delivery/threaded-sender.ts";
import { type Receiver, startReceiver } from "./support/receiver.ts";

let receiver: Receiver | undefined;
let sender: Sender | ThreadedSender | undefined;
afterEach(async () => {
  sender?.close();
  await receiver?.close();
});

const PUBLIC_LITERAL = "93.184.216.34";
const EGRESS_REFUSAL = `refused: ${PUBLIC_LITERAL}, not a loopback address; this API delivers only to loopback addresses (--delivery-egress loopback-only)`;

const isLoopback = (a: string) => /^127\./.test(a) || a === "::1" || /^::ffff:127\./i.test(a);

/**
 * Records every socket connect on this thread and lets through only loopback: an IP literal that
 * is not loopback is never dialled (the socket fails instead), and a name's resolved addresses are
 * checked the same way after the guard's own lookup. A safety net around the Sender, not a stand-in
 * for it: the Sender's lookup and refusals run unchanged inside. Undone by the returned function.
 */
function connectTripwire(): { hosts: string[]; tripped: string[]; restore(): void } {
  const hosts: string[] = [];
  const tripped: string[] = [];
  const original = Socket.prototype.connect;
  Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
    const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    if (first && typeof first === "object" && "host" in first) {
      const o = first as { host?: string; lookup?: LookupFunction };
      const host = String(o.host ?? "");
      hosts.push(host);
      if (isIP(host) && !isLoopback(host)) {
        tripped.push(host);
        process.nextTick(() => this.destroy(new Error(`tripwire: ${host} is not loopback`)));
        return this;
      }
      const inner = o.lookup;
      if (!isIP(host) && inner) {
        o.lookup = ((name, opts, cb) =>
          inner(name, opts, (err, address, family) => {
            const all = Array.isArray(address) ? address.map((a) => a.address) : [String(address)];
            const bad = err ? undefined : all.find((a) => !isLoopback(a));
            if (bad === undefined) return (cb as (...a: unknown[]) => void)(err, address, family);
            tripped.push(bad);
            (cb as (...a: unknown[]) => void)(new Error(`tripwire: ${bad} is not loopback`), "", 0);
          })) as LookupFunction;
      }
    }
    return (original as (...a: unknown[]) => Socket).apply(this, args);
  } as typeof original;
  const restore = () => {
    Socket.prototype.connect = original;
  };
  return { hosts, tripped, restore };
}

function resolverReturning(answers: () => LookupAddress[]) {
  const calls: string[] = [];
  const resolve = (
    hostname: string,
    _o: unknown,
    cb: (err: NodeJS.ErrnoException | null, a: LookupAddress[]) => void,
  ) => {
    calls.push(hostname);
    setImmediate(() => cb(null, answers()));
  };
  return { calls, resolve };
}

describe("Sender", () => {
  it("judges a name's addresses on every connection: a name that turns internal is refused then", async () => {
    // Connection: close, so the second attempt needs a new connection (and a new lookup).
    receiver = await startReceiver(() => ({ status: 200, headers: { connection: "close" } }));
    let address = "127.0.0.1";
    const dns = resolverReturning(() => [{ address, family: 4 }]);
    sender = new Sender({ allow: LOOPBACK_ALLOWED, timeoutMs: 2_000, resolve: dns.resolve });
    const url = `http://hooks.test:${receiver.port}/hook`;
    const first = await sender.send(url, { "content-type": "application/json" }, "{}");
    expect(first.outcome).toMatchObject({ kind: "response", status: 200 });
    address = "169.254.169.254";
    const second = await sender.send(url, { "content-type": "application/json" }, "{}");
    expect(second.outcome).toEqual({
      kind: "refused",
      error:
        "refused: hooks.test resolves to 169.254.169.254, the cloud metadata address; webhook targets must be public addresses (an operator may allow the range with the delivery allowlist)",
    });
    expect(dns.calls).toEqual(["hooks.test", "hooks.test"]);
    expect(receiver.received).toHaveLength(1);
  });

  it("refuses a name when any of its addresses is internal", async () => {
    const dns = resolverReturning(() => [
      { address: "8.8.8.8", family: 4 },
      { address: "10.0.0.7", family: 4 },
    ]);
    sender = new Sender({ allow: LOOPBACK_ALLOWED, timeoutMs: 2_000, resolve: dns.resolve });
    const sent = await sender.send("http://mixed.test/hook", {}, "{}");
    expect(sent.outcome).toMatchObject({
      kind: "refused",
      error: expect.stringMatching(/^refused: mixed\.test resolves to 10\.0\.0\.7, a private address/),
    });
  });

  it("refuses URLs it cannot use, saying why", async () => {
    sender = new Sender({ allow: LOOPBACK_ALLOWED });
    expect((await sender.send("ftp://example.com/x", {}, "")).outcome).toEqual({
      kind: "refused",
      error: "url scheme ftp: is not allowed: use http:// or https://",
    });
    expect((await sender.send("not a url", {}, "")).outcome).toMatchObject({
      kind: "refused",
      error: expect.stringMatching(/is not a valid URL/),
    });
  });
});

describe("Sender with egress loopback-only", () => {
  it("refuses a public IP literal as no request at all: no connect, the reason logged, far faster than a connect timeout", async () => {
    const wire = connectTripwire();
    try {
      sender = new Sender({ allow: LOOPBACK_ALLOWED, egress: "loopback-only", timeoutMs: 10_000 });
      const started = performance.now();
      const sent = await sender.send(`https://${PUBLIC_LITERAL}/hook`, {}, "{}");
      const took = performance.now() - started;
      expect(sent.outcome).toEqual({ kind: "refused", error: EGRESS_REFUSAL });
      expect(sent.durationMs).toBe(0);
      expect(took).toBeLessThan(500);
      expect(wire.hosts).toEqual([]);
      expect(wire.tripped).toEqual([]);
    } finally {
      wire.restore();
    }
  });

  it("refuses a name other than localhost without looking it up (a DNS query would leave the host)", async () => {
    const wire = connectTripwire();
    try {
      const dns = resolverReturning(() => [{ address: "127.0.0.1", family: 4 }]);
      sender = new Sender({ allow: LOOPBACK_ALLOWED, egress: "loopback-only", resolve: dns.resolve });
      const sent = await sender.send("https://hook.invalid/x", {}, "{}");
      expect(sent.outcome).toEqual({
        kind: "refused",
        error:
          "refused: hook.invalid, a name other than localhost (none is looked up); this API delivers only to loopback addresses (--delivery-egress loopback-only)",
      });
      expect(dns.calls).toEqual([]);
      expect(wire.hosts).toEqual([]);
    } finally {
      wire.restore();
    }
  });

  it("refuses a localhost name resolving to a public address at connect time (its lookup), dialling nothing", async () => {
    const wire = connectTripwire();
    try {
      // As a hosts file mapping *.localhost elsewhere would answer.
      const dns = resolverReturning(() => [{ address: PUBLIC_LITERAL, family: 4 }]);
      sender = new Sender({
        allow: LOOPBACK_ALLOWED,
        egress: "loopback-only",
        timeoutMs: 10_000,
        resolve: dns.resolve,
      });
      const started = performance.now();
      const sent = await sender.send("http://hooks.localhost/hook", {}, "{}");
      expect(sent.outcome).toEqual({
        kind: "refused",
        error: `refused: hooks.localhost resolves to ${PUBLIC_LITERAL}, not a loopback address; this API delivers only to loopback addresses (--delivery-egress loopback-only)`,
      });
      expect(performance.now() - started).toBeLessThan(500);
      expect(dns.calls).toEqual(["hooks.localhost"]);
      // The socket was asked for the name; the guard refused its address before any dial.
      expect(wire.hosts).toEqual(["hooks.localhost"]);
      expect(wire.tripped).toEqual([]);
    } finally {
      wire.restore();
    }
  });

  it("still delivers to loopback (literal and by name)", async () => {
    const wire = connectTripwire();
    try {
      receiver = await startReceiver();
      const dns = resolverReturning(() => [{ address: "127.0.0.1", family: 4 }]);
      sender = new Sender({ allow: LOOPBACK_ALLOWED, egress: "loopback-only", resolve: dns.resolve });
      expect((await sender.send(receiver.url, {}, "{}")).outcome).toMatchObject({ status: 200 });
      const byName = `http://hooks.localhost:${receiver.port}/hook`;
      expect((await sender.send(byName, { connection: "close" }, "{}")).outcome).toMatchObject({
        status: 200,
      });
      expect(receiver.received).toHaveLength(2);
      expect(wire.tripped).toEqual([]);
    } finally {
      wire.restore();
    }
  });
});

describe("ThreadedSender", () => {
  it("answers from its thread as Sender does: status, the kept body, Retry-After, the request as sent", async () => {
    receiver = await startReceiver(() => ({ status: 503, headers: { "retry-after": "7" }, body: "busy" }));
    const threaded = new ThreadedSender({ allow: LOOPBACK_ALLOWED, timeoutMs: 2_000 });
    sender = threaded;
    const inProcess = new Sender({ allow: LOOPBACK_ALLOWED, timeoutMs: 2_000 });
    const headers = { "content-type": "application/json", "webhook-id": "e1" };
    const [a, b] = await Promise.all([
      threaded.send(receiver.url, headers, '{"id":"e1"}'),
      inProcess.send(receiver.url, headers, '{"id":"e1"}'),
    ]);
    inProcess.close();
    const expected = {
      kind: "response",
      status: 503,
      statusText: "Service Unavailable",
      body: "busy",
      retryAfter: "7",
    };
    expect(a.outcome).toEqual(expected);
    expect(b.outcome).toEqual(expected);
    expect(a.response).toEqual(b.response);
    expect(receiver.received.map((r) => [r.body, r.headers["webhook-id"]])).toEqual([
      ['{"id":"e1"}', "e1"],
      ['{"id":"e1"}', "e1"],
    ]);
  });

  it("judges target addresses in its thread: loopback is refused unless allowed", async () => {
    receiver = await startReceiver();
    sender = new ThreadedSender({ allow: NOTHING_ALLOWED, timeoutMs: 2_000 });
    const sent = await sender.send(receiver.url, {}, "{}");
    expect(sent.outcome).toMatchObject({
      kind: "refused",
      error: expect.stringMatching(/^refused: 127\.0\.0\.1, a loopback address/),
    });
    expect(receiver.received).toHaveLength(0);
  });

  it("applies egress loopback-only in its thread: a public IP literal refused, loopback delivered", async () => {
    receiver = await startReceiver();
    sender = new ThreadedSender({ allow: LOOPBACK_ALLOWED, egress: "loopback-only", timeoutMs: 10_000 });
    const started = performance.now();
    const sent = await sender.send(`https://${PUBLIC_LITERAL}/hook`, {}, "{}");
    expect(sent.outcome).toEqual({ kind: "refused", error: EGRESS_REFUSAL });
    expect(sent.durationMs).toBe(0);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect((await sender.send(receiver.url, {}, "{}")).outcome).toMatchObject({ status: 200 });
  });

  it("ends what a dead thread had in flight as an error (retried like a network error); the next send starts a new thread", async () => {
    receiver = await startReceiver((_, i) => (i === 0 ? { hang: true } : { status: 200 }));
    const threaded = new ThreadedSender({ allow: LOOPBACK_ALLOWED, timeoutMs: 5_000 });
    sender = threaded;
    const inFlight = threaded.send(receiver.url, {}, "{}");
    await receiver.waitFor(1);
    await threaded.crashThreadForTest();
    expect((await inFlight).outcome).toEqual({
      kind: "error",
      error: "the delivery sender thread exited (code 1)",
    });
    expect((await threaded.send(receiver.url, {}, "{}")).outcome).toMatchObject({
      kind: "response",
      status: 200,
    });
    // Closed and used again: a new thread, not a dead sender.
    threaded.close();
    expect((await threaded.send(receiver.url, {}, "{}")).outcome).toMatchObject({
      kind: "response",
      status: 200,
    });
  });
});
