// The sender's connect-time guard against names that resolve to internal addresses: judged on
// every new connection (so a name that turns internal later, DNS rebinding, is refused then),
// and a name with any internal address among public ones is refused. And the threaded sender the
// engine uses: the same answers from its thread, the same guard there, and a thread that dies.
import type { LookupAddress } from "node:dns";
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
