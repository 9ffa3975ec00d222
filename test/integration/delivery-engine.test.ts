// The delivery engine end to end on both stores, with real receivers on loopback: signed
// requests verified by independent code, retries until a failing receiver recovers (each event
// delivered once), Retry-After, 410, timeouts, refused targets (SSRF) with and without the
// allowlist, redirects, a slow receiver beside a fast one, capped responses, resend, matching;
// egress loopback-only (a public IP literal refused and logged, never dialled).
import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type Allowlist, LOOPBACK_ALLOWED, NOTHING_ALLOWED } from "../../src/api/delivery/address-policy.ts";
import type { AttemptReport } from "../../src/api/delivery/attempt.ts";
import { DeliveryEngine, type DeliveryEngineOptions } from "../../src/api/delivery/engine.ts";
import type { SubscribedWebhook } from "../../src/api/delivery/matching.ts";
import type { DeliveryTarget, NewEvent } from "../../src/api/delivery/model.ts";
import type { RetrySchedule } from "../../src/api/delivery/retry-policy.ts";
import { freePort } from "../../src/process/ports.ts";
import { BACKENDS, type Backend, storeFixture } from "./support/delivery-stores.ts";
import { type Answer, type Received, type Receiver, startReceiver } from "./support/receiver.ts";

const fixture = storeFixture();
afterAll(() => fixture.cleanup());

const FAST: RetrySchedule = {
  firstDelayMs: 50,
  multiplier: 2,
  maxDelayMs: 400,
  giveUpAfterMs: 60_000,
  jitter: 0.1,
  maxRetryAfterMs: 5_000,
};
const SECRET = "test secret!";

const running: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.allSettled(running.splice(0).map((r) => r.stop()));
});

async function receiver(answer?: (r: Received, i: number) => Answer | Promise<Answer>): Promise<Receiver> {
  const r = await startReceiver(answer);
  running.push({ stop: () => r.close() });
  return r;
}

async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

function hook(id: string, over: Partial<SubscribedWebhook> = {}): SubscribedWebhook {
  return { id, userId: "u1", projectId: "p1", ...over };
}

function event(over: Partial<NewEvent> = {}): NewEvent {
  return { userId: "u1", projectId: "p1", kind: "stream.started", streamId: "s1", ...over };
}

/** Checks both signatures the way receivers do: node:crypto for Livepeer-Signature, standardwebhooks for the trio. */
function signaturesValid(r: Received, secret: string): boolean {
  const lp = String(r.headers["livepeer-signature"] ?? "");
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(lp);
  if (!m) return false;
  const expected = createHmac("sha256", secret).update(r.body).digest();
  if (!timingSafeEqual(Buffer.from(m[2]!, "hex"), expected)) return false;
  if (Number(m[1]) !== r.json.timestamp) return false;
  try {
    new Webhook(secret, { format: "raw" }).verify(r.body, r.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

describe.each(BACKENDS)("delivery engine on %s", (backend: Backend) => {
  async function engine(
    targets: Map<string, DeliveryTarget>,
    over: Partial<DeliveryEngineOptions> & { allow?: Allowlist } = {},
  ): Promise<DeliveryEngine> {
    const store = await fixture.open(await fixture.newConfig(backend));
    const e = new DeliveryEngine({
      store,
      resolveTarget: (id) => targets.get(id),
      allow: LOOPBACK_ALLOWED,
      schedule: FAST,
      timeoutMs: 2_000,
      pollMs: 100,
      ...over,
    });
    e.start();
    running.push(e);
    return e;
  }

  it("retries a receiver that fails for a while until it recovers: every event delivered once, all signed", async () => {
    let recoverAt: number | undefined;
    const answered: number[] = [];
    const r = await receiver((q, i) => {
      recoverAt ??= q.at + 1_000;
      const status = Date.now() < recoverAt ? 500 : 200;
      answered[i] = status;
      return { status, body: status === 500 ? "not yet" : "ok" };
    });
    const e = await engine(new Map([["w1", { url: r.url, sharedSecret: SECRET, revision: "1" }]]));
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await e.enqueue(event({ id: `evt-${i}` }), [hook("w1")])).id);
    await until("every event answered 200", () =>
      ids.every((id) => r.received.some((q, i) => q.json.id === id && answered[i] === 200)),
    );
    await until("the queue is empty", async () => (await e.queueStats()).pending === 0);
    for (const id of ids) {
      const statuses = r.received.flatMap((q, i) => (q.json.id === id ? [answered[i]] : []));
      expect(
        statuses.filter((s) => s === 200),
        id,
      ).toHaveLength(1);
      expect(statuses.at(-1)).toBe(200);
    }
    expect(answered.some((s) => s === 500)).toBe(true);
    for (const q of r.received) expect(signaturesValid(q, SECRET)).toBe(true);
    expect(await e.countLog("w1")).toBe(r.received.length);
    const facts = await e.facts("w1");
    expect(facts?.delivering).toBe(true);
    expect(facts?.lastFailure).toMatchObject({ error: "HTTP 500", statusCode: 500, response: "not yet" });
  });

  it("waits the receiver's Retry-After before trying again", async () => {
    const r = await receiver((_, i) =>
      i === 0 ? { status: 429, headers: { "retry-after": "1" } } : { status: 200 },
    );
    const e = await engine(new Map([["w1", { url: r.url, revision: "1" }]]));
    await e.enqueue(event(), [hook("w1")]);
    await r.waitFor(2);
    expect(r.received[1]!.at - r.received[0]!.at).toBeGreaterThanOrEqual(1_000);
    await until("both attempts logged", async () => (await e.countLog("w1")) === 2);
    const [retry, first] = (await e.listLog("w1", 10)).items;
    expect(first?.error).toBe("HTTP 429");
    expect(retry?.success).toBe(true);
  });

  it("turns a webhook off on 410 Gone until its revision changes", async () => {
    const r = await receiver((_, i) => ({ status: i === 0 ? 410 : 200 }));
    const targets = new Map([["w1", { url: r.url, revision: "1" }]]);
    const e = await engine(targets);
    await e.enqueue(event({ id: "a" }), [hook("w1")]);
    await until("the 410 is recorded", async () => (await e.facts("w1"))?.gone !== undefined);
    expect((await e.facts("w1"))?.gone?.revision).toBe("1");
    await e.enqueue(event({ id: "b" }), [hook("w1")]);
    await until("the queue is empty", async () => (await e.queueStats()).pending === 0);
    expect(r.received.map((q) => q.json.id)).toEqual(["a"]);
    targets.set("w1", { url: r.url, revision: "2" });
    await e.enqueue(event({ id: "c" }), [hook("w1")]);
    await r.waitFor(2);
    expect(r.received.map((q) => q.json.id)).toEqual(["a", "c"]);
    await until("both attempts logged", async () => (await e.countLog("w1")) === 2);
    const [, gone] = (await e.listLog("w1", 10)).items;
    expect(gone?.error).toMatch(/^HTTP 410 Gone: .*off until it is updated/);
  });

  it("stops on 410 Gone also the deliveries it already holds (waiting in memory or claimed with it)", async () => {
    const r = await receiver(() => ({ status: 410, delayMs: 200 }));
    const e = await engine(new Map([["w1", { url: r.url, revision: "1" }]]), { maxInFlight: 1 });
    for (const id of ["a", "b", "c"]) await e.enqueue(event({ id }), [hook("w1")]);
    await until("the queue is empty", async () => (await e.queueStats()).pending === 0);
    expect(r.received.map((q) => q.json.id)).toEqual(["a"]);
  });

  it("records a timeout as 'timeout after <n> s' and retries it", async () => {
    const r = await receiver(() => ({ hang: true }));
    const e = await engine(new Map([["w1", { url: r.url, revision: "1" }]]), { timeoutMs: 300 });
    await e.enqueue(event(), [hook("w1")]);
    await r.waitFor(2);
    await until("a failure is recorded", async () => (await e.facts("w1"))?.lastFailure !== undefined);
    expect((await e.facts("w1"))?.lastFailure).toMatchObject({ error: "timeout after 0.3 s" });
    const [entry] = (await e.listLog("w1", 1)).items;
    expect(entry?.durationMs).toBeGreaterThanOrEqual(290);
    expect(entry?.response).toBeUndefined();
  });

  it("records a refused connection with its address", async () => {
    const port = await freePort();
    const e = await engine(new Map([["w1", { url: `http://127.0.0.1:${port}/x`, revision: "1" }]]));
    await e.enqueue(event(), [hook("w1")]);
    await until("a failure is recorded", async () => (await e.facts("w1"))?.lastFailure !== undefined);
    expect((await e.facts("w1"))?.lastFailure?.error).toBe(`connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it("refuses internal targets at connect time unless the allowlist permits them, recording why", async () => {
    const r = await receiver();
    const targets = new Map<string, DeliveryTarget>([
      ["literal", { url: r.url, revision: "1" }],
      ["by-name", { url: `http://localhost:${r.port}/hook`, revision: "1" }],
      ["metadata", { url: "http://169.254.169.254/latest/meta-data", revision: "1" }],
      ["mapped", { url: `http://[::ffff:127.0.0.1]:${r.port}/hook`, revision: "1" }],
    ]);
    const strict = await engine(targets, { allow: NOTHING_ALLOWED });
    const all = ["literal", "by-name", "metadata", "mapped"].map((id) => hook(id));
    await strict.enqueue(event({ id: "e1" }), all);
    await until("all four settled", async () => (await strict.queueStats()).pending === 0);
    const errors = Object.fromEntries(
      await Promise.all(
        ["literal", "by-name", "metadata", "mapped"].map(
          async (id) => [id, (await strict.facts(id))?.lastFailure?.error] as const,
        ),
      ),
    );
    expect(errors.literal).toMatch(/^refused: 127\.0\.0\.1, a loopback address; .*allowlist/);
    expect(errors["by-name"]).toMatch(
      /^refused: localhost resolves to (127\.0\.0\.1|::1), (a|the) loopback address/,
    );
    expect(errors.metadata).toMatch(/^refused: 169\.254\.169\.254, the cloud metadata address/);
    // The URL parser writes the host as ::ffff:7f00:1.
    expect(errors.mapped).toMatch(
      /^refused: ::ffff:7f00:1, a loopback address \(127\.0\.0\.1, embedded in IPv6\)/,
    );
    expect(r.received).toEqual([]);
    // Not retried: one logged attempt each.
    for (const id of ["literal", "by-name", "metadata", "mapped"]) expect(await strict.countLog(id)).toBe(1);

    const allowing = await engine(targets, { allow: LOOPBACK_ALLOWED });
    await allowing.enqueue(event({ id: "e2" }), all);
    await r.waitFor(3);
    await until("all four settled", async () => (await allowing.queueStats()).pending === 0);
    expect((await allowing.facts("metadata"))?.lastFailure?.error).toMatch(/cloud metadata/);
    expect(r.received.map((q) => q.json.webhookId).sort()).toEqual(["by-name", "literal", "mapped"]);
  });

  it("with egress loopback-only refuses a public IP literal before any connection, logging why; loopback still delivered", async () => {
    const r = await receiver();
    const targets = new Map<string, DeliveryTarget>([
      ["public", { url: "https://93.184.216.34/hook", revision: "1" }],
      ["local", { url: r.url, revision: "1" }],
    ]);
    // The connect timeout would be 10 s: a refusal takes no time at all.
    const e = await engine(targets, { egress: "loopback-only", timeoutMs: 10_000 });
    await e.enqueue(event({ id: "e-egress" }), [hook("public"), hook("local")]);
    await r.waitFor(1);
    await until("both settled", async () => (await e.queueStats()).pending === 0);
    const [entry] = (await e.listLog("public", 10)).items;
    expect(entry).toMatchObject({
      success: false,
      error:
        "refused: 93.184.216.34, not a loopback address; this API delivers only to loopback addresses (--delivery-egress loopback-only)",
    });
    expect(entry!.durationMs).toBeLessThan(500);
    expect(await e.countLog("public")).toBe(1);
    expect((await e.facts("public"))?.lastFailure?.error).toBe(entry!.error);
    expect(r.received.map((q) => q.json.webhookId)).toEqual(["local"]);
  });

  it("does not follow redirects", async () => {
    const elsewhere = await receiver();
    const r = await receiver(() => ({ status: 302, headers: { location: elsewhere.url } }));
    const e = await engine(new Map([["w1", { url: r.url, revision: "1" }]]));
    await e.enqueue(event(), [hook("w1")]);
    await until("the queue is empty", async () => (await e.queueStats()).pending === 0);
    expect((await e.facts("w1"))?.lastFailure).toMatchObject({
      statusCode: 302,
      error: "HTTP 302: redirects are not followed; point the webhook at the final URL",
    });
    expect(elsewhere.received).toEqual([]);
    expect(r.received).toHaveLength(1);
  });

  it("keeps a slow receiver from delaying a fast one", async () => {
    const slow = await receiver(() => ({ status: 200, delayMs: 3_000 }));
    const fast = await receiver();
    const e = await engine(
      new Map([
        ["slow", { url: slow.url, revision: "1" }],
        ["fast", { url: fast.url, revision: "1" }],
      ]),
      { maxInFlight: 16, maxInFlightPerWebhook: 4, timeoutMs: 5_000 },
    );
    for (let i = 0; i < 30; i++) await e.enqueue(event({ id: `s${i}` }), [hook("slow")]);
    await slow.waitFor(4);
    const t0 = Date.now();
    for (let i = 0; i < 10; i++) await e.enqueue(event({ id: `f${i}` }), [hook("fast")]);
    await fast.waitFor(10, 2_000);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(slow.received.length).toBeLessThanOrEqual(4);
  });

  it("keeps sending to a webhook at its in-flight share without waiting for the poll", async () => {
    const r = await receiver(() => ({ status: 200, delayMs: 20 }));
    const e = await engine(new Map([["w1", { url: r.url, revision: "1" }]]), {
      maxInFlight: 8,
      maxInFlightPerWebhook: 2,
      pollMs: 10_000,
    });
    const t0 = Date.now();
    for (let i = 0; i < 30; i++) await e.enqueue(event({ id: `e${i}` }), [hook("w1")]);
    await r.waitFor(30, 5_000);
    // 30 requests, 2 at a time, 20 ms each: about 0.3 s; waiting for the poll would take minutes.
    expect(Date.now() - t0).toBeLessThan(3_000);
  });

  it("stops attempting while its outcomes wait for a slow store (up to twice its slots), then catches up", async () => {
    const r = await receiver();
    const targets = new Map([["w1", { url: r.url, revision: "1" }]]);
    const real = await fixture.open(await fixture.newConfig(backend));
    // The store's writes of outcomes hang until released; everything else is the real store.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store = new Proxy(real, {
      get(target, name) {
        if (name === "settle")
          return async (...args: Parameters<typeof real.settle>) => {
            await released;
            return target.settle(...args);
          };
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const e = new DeliveryEngine({
      store,
      resolveTarget: (id) => targets.get(id),
      allow: LOOPBACK_ALLOWED,
      maxInFlight: 4,
      maxInFlightPerWebhook: 4,
      pollMs: 100,
    });
    e.start();
    running.push(e);
    for (let i = 0; i < 30; i++) await e.enqueue(event({ id: `e${i}` }), [hook("w1")]);
    // 4 slots: attempts stop once 8 outcomes wait (and the up to 3 then in flight finish).
    try {
      await r.waitFor(8, 5_000);
      // The sentinel: the worker passed up three more claims (one per poll) while outcomes waited:
      // three chances to send more, taken by none beyond the bound.
      const heldBefore = e.heldBackClaims();
      await until(
        "three claims passed up while outcomes wait",
        async () => e.heldBackClaims() >= heldBefore + 3,
      );
      const sentWhileStuck = r.received.length;
      expect(sentWhileStuck).toBeGreaterThanOrEqual(8);
      expect(sentWhileStuck).toBeLessThanOrEqual(11);
    } finally {
      release(); // else stopping the engine would wait for its records for ever
    }
    await r.waitFor(30, 10_000);
    await until("the queue is empty", async () => (await e.queueStats()).pending === 0);
    expect(new Set(r.received.map((q) => q.json.id)).size).toBe(30);
    expect(r.received).toHaveLength(30);
  });

  it("gives back, when stopping, the fresh deliveries it took leased but had not started: another engine sends them at once, not after the lease", async () => {
    const r = await receiver(() => ({ status: 200, delayMs: 500 }));
    const targets = new Map([["w1", { url: r.url, revision: "1" }]]);
    // One slot: e0 in flight, e1 leased and waiting in memory, e2 left unleased in the queue.
    const a = await engine(targets, { maxInFlight: 1, leaseMs: 60_000 });
    for (const id of ["e0", "e1", "e2"]) await a.enqueue(event({ id }), [hook("w1")]);
    await r.waitFor(1);
    await a.stop();
    const b = new DeliveryEngine({
      store: a.store,
      resolveTarget: (id) => targets.get(id),
      allow: LOOPBACK_ALLOWED,
      pollMs: 100,
    });
    b.start();
    running.push(b);
    await r.waitFor(3, 5_000);
    expect(r.received.map((q) => q.json.id).sort()).toEqual(["e0", "e1", "e2"]);
  });

  it("does not send a fresh delivery waiting in memory once its webhook is forgotten", async () => {
    const r = await receiver(() => ({ status: 200, delayMs: 500 }));
    const targets = new Map<string, DeliveryTarget>([
      ["w1", { url: r.url, revision: "1" }],
      ["w2", { url: r.url, revision: "1" }],
    ]);
    const e = await engine(targets, { maxInFlight: 1 });
    await e.enqueue(event({ id: "e0" }), [hook("w1")]);
    await e.enqueue(event({ id: "e1" }), [hook("w1")]);
    await r.waitFor(1);
    await e.forgetWebhook("w1");
    // A sentinel for another webhook, after the forget: with one slot, it starts only once e0 is
    // answered, and the waiting list gives the slot to w1's e1 first (webhooks by arrival).
    await e.enqueue(event({ id: "sentinel" }), [hook("w2")]);
    await until("the sentinel delivered", () => r.forEvent("sentinel").length === 1);
    expect(r.received.map((q) => q.json.id)).toEqual(["e0", "sentinel"]);
    await until("nothing pending", async () => (await e.queueStats()).pending === 0);
  });

  it("keeps only the first 1 KiB of a response and cuts off a huge one", async () => {
    const r = await receiver(() => ({ status: 500, body: "x".repeat(2_000_000) }));
    const e = await engine(new Map([["w1", { url: r.url, revision: "1" }]]));
    await e.enqueue(event(), [hook("w1")]);
    await until("a failure is recorded", async () => (await e.facts("w1"))?.lastFailure !== undefined);
    expect((await e.facts("w1"))?.lastFailure?.response).toBe("x".repeat(1024));
    const [entry] = (await e.listLog("w1", 1)).items;
    expect(entry?.response?.body).toHaveLength(1024);
  });

  it("records a response whose body holds NUL characters (as U+FFFD), and goes on delivering", async () => {
    const r = await receiver((_, i) => (i === 0 ? { status: 500, body: "bad\0body" } : { status: 200 }));
    const e = await engine(new Map([["w1", { url: r.url, revision: "1" }]]));
    await e.enqueue(event({ id: "e0" }), [hook("w1")]);
    await until("the failure is recorded", async () => (await e.facts("w1"))?.lastFailure !== undefined);
    expect((await e.facts("w1"))?.lastFailure?.response).toBe("bad\uFFFDbody");
    await until("the retry is delivered", async () => (await e.queueStats()).pending === 0);
    const log = (await e.listLog("w1", 10)).items;
    expect(log.map((l) => l.response?.body)).toEqual(["", "bad\uFFFDbody"]);
    expect(r.received).toHaveLength(2);
  });

  it("resends a logged request, re-signed now, and logs the new attempt", async () => {
    const r = await receiver();
    const e = await engine(new Map([["w1", { url: r.url, sharedSecret: SECRET, revision: "1" }]]));
    const { id } = await e.enqueue(event({ payload: { n: 1 } }), [hook("w1")]);
    await r.waitFor(1);
    await until("logged", async () => (await e.countLog("w1")) === 1);
    const [original] = (await e.listLog("w1", 1)).items;
    // timing-check: the resend is signed "now", which must read later than the original's time.
    await new Promise((res) => setTimeout(res, 5));
    const resent = await e.resend("w1", original!.id);
    expect(resent?.success).toBe(true);
    expect(resent?.id).not.toBe(original?.id);
    expect(r.received).toHaveLength(2);
    const [a, b] = r.received;
    expect(b!.json).toEqual({ ...a!.json, timestamp: b!.json.timestamp });
    expect(b!.json.id).toBe(id);
    expect(Number(b!.json.timestamp)).toBeGreaterThan(Number(a!.json.timestamp));
    expect(signaturesValid(b!, SECRET)).toBe(true);
    expect((await e.listLog("w1", 10)).items.map((x) => x.id)).toEqual([resent!.id, original!.id]);
    expect(await e.getLog("w1", resent!.id)).toEqual(resent);
    expect(await e.resend("w1", "no-such-log")).toBeUndefined();
  });

  it("delivers only to the event's tenant, kind and stream; unsigned without a secret", async () => {
    const r = await receiver();
    const targets = new Map(
      ["mine", "other-user", "other-project", "other-stream", "idle-only", "none"].map((id) => [
        id,
        { url: `${r.url}?${id}`, revision: "1" } as DeliveryTarget,
      ]),
    );
    const e = await engine(targets);
    const webhooks = [
      hook("mine", { streamId: "s1" }),
      hook("other-user", { userId: "u2" }),
      hook("other-project", { projectId: "p2" }),
      hook("other-stream", { streamId: "s2" }),
      hook("idle-only", { events: ["stream.idle"] }),
      hook("none", { events: [] }),
    ];
    const queued = await e.enqueue(event(), webhooks);
    expect(queued.webhookIds).toEqual(["mine"]);
    await r.waitFor(1);
    // Every queued delivery settled: one sent to any other webhook would have arrived by then.
    await until("nothing pending", async () => (await e.queueStats()).pending === 0);
    expect(r.received.map((q) => q.json.webhookId)).toEqual(["mine"]);
    expect(r.received[0]!.headers["livepeer-signature"]).toBeUndefined();
    expect(r.received[0]!.headers["webhook-signature"]).toBeUndefined();
  });

  it("drops deliveries to a webhook that no longer exists, after the grace period", async () => {
    const e = await engine(new Map(), { missingWebhookGraceMs: 200 });
    await e.enqueue(event(), [hook("deleted")]);
    await until("the queue is empty", async () => (await e.queueStats()).pending === 0, 5_000);
    expect(await e.countLog("deleted")).toBe(0);
  });

  it("forgets a deleted webhook: its pending retries stop, its log and facts go, an attempt in flight then is not logged", async () => {
    // evt-retry fails and waits for its retry; evt-slow is answered 1.5 s late, after the delete;
    // the sentinel (below) fails twice, then is taken.
    let sentinelTries = 0;
    const r = await receiver((q) =>
      q.json.id === "evt-slow"
        ? { status: 200, delayMs: 1_500 }
        : q.json.id === "evt-sentinel" && ++sentinelTries >= 3
          ? { status: 200 }
          : { status: 503 },
    );
    const slow = await receiver();
    const targets = new Map<string, DeliveryTarget>([
      ["gone", { url: r.url, sharedSecret: SECRET, revision: "1" }],
      ["kept", { url: slow.url, sharedSecret: SECRET, revision: "1" }],
    ]);
    const reports: AttemptReport[] = [];
    const e = await engine(targets, {
      schedule: { ...FAST, firstDelayMs: 300, maxDelayMs: 300, jitter: 0 },
      onAttempt: (a) => reports.push(a),
    });
    await e.enqueue(event({ id: "evt-retry" }), [hook("gone"), hook("kept")]);
    await until("a logged failure", async () => (await e.countLog("gone")) >= 1);
    await e.enqueue(event({ id: "evt-slow" }), [hook("gone")]);
    await until("evt-slow in flight", () => r.forEvent("evt-slow").length === 1);

    // The resolver still knows the webhook: only forgetting can stop its deliveries.
    await e.forgetWebhook("gone");
    expect(await e.countLog("gone")).toBe(0);
    expect(await e.facts("gone")).toBeUndefined();
    const sent = r.forEvent("evt-retry").length;
    // evt-slow's attempt ends (answered after the delete), and a sentinel webhook failing on the
    // same 300 ms retry period, started after the forget, is retried twice: by then evt-retry's
    // next retry (due 300 ms after its last attempt, before the forget) would have gone out.
    targets.set("sentinel", { url: r.url, revision: "1" });
    await e.enqueue(event({ id: "evt-sentinel" }), [hook("sentinel")]);
    await until("evt-slow's attempt ended", () => reports.some((a) => a.eventId === "evt-slow"), 10_000);
    await until("the sentinel retried twice", () => r.forEvent("evt-sentinel").length >= 3, 10_000);
    expect(r.forEvent("evt-retry")).toHaveLength(sent);
    expect(await e.countLog("gone")).toBe(0);
    expect(await e.facts("gone")).toBeUndefined();
    await until("the queue empty", async () => (await e.queueStats()).pending === 0);
    // Another webhook of the same event is untouched.
    expect(await e.countLog("kept")).toBe(1);
  });
});
