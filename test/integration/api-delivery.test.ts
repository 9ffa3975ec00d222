// Webhook delivery through the API, end to end: a webhook created through the API, an event
// posted to the intake with an events:write token, a real receiver on loopback that checks the
// Livepeer-Signature with node:crypto, the log through the `livepeer` SDK (getLogs, getLog,
// resendLog), and tenant isolation of the log.
import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Livepeer } from "livepeer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Manager } from "../../src/controller/runtime/index.ts";
import { webhookController } from "../../src/controller/webhook/controller.ts";
import { type Answer, call, errorsOf, installWebhookCrd, startTestApi, type TestApi } from "./api-harness.ts";
import { kubectl, testNamespace } from "./support/cluster.ts";
import { startTestManager } from "./support/manager.ts";

interface Received {
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** A receiver on 127.0.0.1 answering `status()` to every POST, keeping what it got. */
async function receiver(status: () => number = () => 200) {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got.push({ body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
      res.writeHead(status(), { "content-type": "text/plain" }).end("receiver says hi");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function until<T>(
  what: string,
  fn: () => T | undefined | Promise<T | undefined>,
  ms = 15_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Every queued delivery settled (the API's own queue depth gauge reads 0): a delivery made to any
 * receiver has arrived by then, so what the receivers hold is final until the next event.
 */
async function queueDrained(): Promise<void> {
  await until("the delivery queue empty", async () => {
    const text = await (await fetch(new URL("/metrics", api.url))).text();
    const depth = /^livepeer_webhook_delivery_queue_depth (\S+)$/m.exec(text)?.[1];
    return depth !== undefined && Number(depth) === 0 ? true : undefined;
  });
}

/** Posts a sentinel event and waits until `hookId` received it: the pipeline has moved past what came before. */
async function sentinel(hookId: string, event: string, id: string): Promise<void> {
  expect((await postEvent({ event, id })).status).toBe(202);
  await until(`the sentinel ${id}`, () =>
    ok.got.some((r) => JSON.parse(r.body).id === id && JSON.parse(r.body).webhookId === hookId)
      ? true
      : undefined,
  );
  await queueDrained();
}

/** Independent check of `Livepeer-Signature: t=<ms>,v1=<hex HMAC-SHA256(secret, body)>`. */
function livepeerSignatureValid(header: string | undefined, secret: string, body: string): boolean {
  const parts = Object.fromEntries((header ?? "").split(",").map((kv) => kv.split("=") as [string, string]));
  if (!parts.t || !parts.v1) return false;
  const expected = createHmac("sha256", secret).update(body).digest();
  const given = Buffer.from(parts.v1, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

let ns: Awaited<ReturnType<typeof testNamespace>>;
let api: TestApi;
let ok: Awaited<ReturnType<typeof receiver>>;
let producer: string;
let owner: string;

beforeAll(async () => {
  await installWebhookCrd();
  ns = await testNamespace("api-delivery");
  api = await startTestApi(ns.name, { allowLoopbackTargets: true });
  ok = await receiver();
  owner = await api.token({ sub: "dora", projectId: "p1" });
  producer = await api.token({ sub: "dora", projectId: "p1", scope: "events:write" });
});

afterAll(async () => {
  await api?.close();
  await ok?.close();
  await ns?.remove();
});

async function createHook(url: string, extra: Record<string, unknown> = {}): Promise<string> {
  const a = await call(api.url, "POST", "/webhook", {
    token: owner,
    body: {
      name: "delivery",
      url,
      events: ["stream.started", "stream.idle"],
      sharedSecret: "s3cret",
      ...extra,
    },
  });
  expect(a.status, a.text).toBe(200);
  return (a.json as { id: string }).id;
}

function postEvent(body: unknown, token = producer): Promise<Answer> {
  return call(api.url, "POST", "/events", { token, body });
}

describe("POST /events -> a signed delivery", () => {
  it("delivers a posted event once, signed, and the same id twice is one event", async () => {
    const hookId = await createHook(ok.url);
    const first = await postEvent({
      event: "stream.started",
      streamId: "st-1",
      id: "evt-1",
      payload: { n: 1 },
    });
    expect(first.status, first.text).toBe(202);
    expect(first.json).toEqual({ id: "evt-1" });
    const again = await postEvent({ event: "stream.started", streamId: "st-1", id: "evt-1" });
    expect(again.status).toBe(202);
    expect(again.json).toEqual({ id: "evt-1" });

    const delivery = await until("the delivery", () => ok.got.find((r) => JSON.parse(r.body).id === "evt-1"));
    const body = JSON.parse(delivery.body);
    expect(body).toMatchObject({
      id: "evt-1",
      webhookId: hookId,
      event: "stream.started",
      payload: { n: 1 },
    });
    expect(
      livepeerSignatureValid(delivery.headers["livepeer-signature"] as string, "s3cret", delivery.body),
    ).toBe(true);
    expect(
      livepeerSignatureValid(delivery.headers["livepeer-signature"] as string, "other", delivery.body),
    ).toBe(false);
    // A duplicate would have been queued before this sentinel, and sent before the queue drains.
    await sentinel(hookId, "stream.started", "evt-1-sentinel");
    expect(ok.got.filter((r) => JSON.parse(r.body).id === "evt-1")).toHaveLength(1);
  });

  it("does not deliver kinds the webhook did not subscribe to", async () => {
    const hookId = await createHook(ok.url, { events: ["stream.idle"] });
    const a = await postEvent({ event: "asset.ready", id: "evt-unsubscribed" });
    expect(a.status).toBe(202);
    // A kind it did subscribe to, posted after: once it arrived and the queue drained, the
    // unsubscribed one had every chance to arrive too.
    await sentinel(hookId, "stream.idle", "evt-unsubscribed-sentinel");
    expect(ok.got.some((r) => JSON.parse(r.body).id === "evt-unsubscribed")).toBe(false);
  });

  it.each([
    [{}, 422, /body field 'event' must be one of/],
    [{ event: "nope" }, 422, /body field 'event'/],
    [{ event: "stream.idle", payload: "x" }, 422, /'payload'/],
    [{ event: "stream.idle", userId: "someone-else" }, 403, /only admins may publish for another tenant/],
  ])("refuses %o with %i naming the field", async (body, status, message) => {
    const a = await postEvent(body);
    expect(a.status).toBe(status);
    expect(errorsOf(a).join(" ")).toMatch(message);
  });

  it("refuses a token without events:write with 403", async () => {
    const a = await postEvent({ event: "stream.idle" }, owner);
    expect(a.status).toBe(403);
    expect(errorsOf(a)[0]).toMatch(/'events:write' scope/);
  });

  it("lets an admin publish for a tenant it names", async () => {
    const hookId = await createHook(ok.url);
    const admin = await api.token({ sub: "ops", scope: "admin events:write" });
    const a = await postEvent(
      { event: "stream.idle", userId: "dora", projectId: "p1", id: "evt-admin" },
      admin,
    );
    expect(a.status).toBe(202);
    const got = await until("the admin's event", () =>
      ok.got.find((r) => JSON.parse(r.body).id === "evt-admin" && JSON.parse(r.body).webhookId === hookId),
    );
    expect(JSON.parse(got.body).event).toBe("stream.idle");
  });
});

describe("the log through the livepeer SDK", () => {
  it("lists, gets and resends log entries; another tenant gets 404", async () => {
    const hookId = await createHook(ok.url);
    const a = await postEvent({ event: "stream.idle", id: "evt-log" });
    expect(a.status).toBe(202);
    const sdk = new Livepeer({ apiKey: owner, serverURL: api.url });
    const logs = await until("a log entry", async () => {
      const r = await sdk.webhook.getLogs(hookId);
      return r.data?.length ? r.data : undefined;
    });
    expect(logs[0]).toMatchObject({ webhookId: hookId, event: "stream.idle", success: true });
    expect(logs[0]?.response?.status).toBe(200);
    expect(
      logs[0]?.request?.headers?.["Livepeer-Signature"] ?? logs[0]?.request?.headers?.["livepeer-signature"],
    ).toBeTruthy();
    expect(JSON.stringify(logs)).not.toContain("s3cret");

    const one = await sdk.webhook.getLog(hookId, logs[0]!.id);
    expect(one.webhookLog).toEqual(logs[0]);

    const before = ok.got.length;
    const resent = await sdk.webhook.resendLog(hookId, logs[0]!.id);
    expect(resent.webhookLog).toMatchObject({ webhookId: hookId, event: "stream.idle", success: true });
    expect(resent.webhookLog?.id).not.toBe(logs[0]!.id);
    expect(ok.got.length).toBe(before + 1);
    const newest = await sdk.webhook.getLogs(hookId);
    expect(newest.data?.[0]?.id).toBe(resent.webhookLog?.id);

    const stranger = new Livepeer({
      apiKey: await api.token({ sub: "eve", projectId: "p1" }),
      serverURL: api.url,
    });
    await expect(stranger.webhook.getLogs(hookId)).rejects.toMatchObject({ statusCode: 404 });
    await expect(stranger.webhook.getLog(hookId, logs[0]!.id)).rejects.toMatchObject({ statusCode: 404 });
    await expect(stranger.webhook.resendLog(hookId, logs[0]!.id)).rejects.toMatchObject({ statusCode: 404 });
    const missing = await call(api.url, "GET", `/webhook/${hookId}/log/no-such-entry`, { token: owner });
    expect(missing.status).toBe(404);
    expect(errorsOf(missing)[0]).toMatch(/log entry "no-such-entry" not found/);
  });

  it("pages the log newest first with a Link header", async () => {
    const hookId = await createHook(ok.url);
    for (const id of ["page-1", "page-2", "page-3"])
      expect((await postEvent({ event: "stream.idle", id })).status).toBe(202);
    await until("three log entries", async () => {
      const a = await call(api.url, "GET", `/webhook/${hookId}/log?count=true`, { token: owner });
      return a.headers.get("x-total-count") === "3" ? true : undefined;
    });
    const first = await call(api.url, "GET", `/webhook/${hookId}/log?limit=2`, { token: owner });
    expect(first.status).toBe(200);
    expect((first.json as unknown[]).length).toBe(2);
    const link = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
    expect(link).toBeDefined();
    const second = await fetch(link!, { headers: { authorization: `Bearer ${owner}` } });
    const rest = (await second.json()) as Array<{ id: string; createdAt: number }>;
    expect(rest).toHaveLength(1);
    const all = [...(first.json as Array<{ id: string; createdAt: number }>), ...rest];
    expect(new Set(all.map((e) => e.id)).size).toBe(3);
    expect(all.map((e) => e.createdAt)).toEqual([...all.map((e) => e.createdAt)].sort((x, y) => y - x));
  });
});

interface ShownStatus {
  lastTriggeredAt?: number;
  lastFailure?: { timestamp?: number; error?: string; response?: string; statusCode?: number };
  conditions?: Array<{
    type: string;
    status: string;
    reason: string;
    message: string;
    observedGeneration?: number;
  }>;
}

async function statusOf(id: string): Promise<ShownStatus> {
  const out = await kubectl(["get", "webhook", id, "-n", ns.name, "-o", "json"]);
  return (JSON.parse(out) as { status?: ShownStatus }).status ?? {};
}

const delivering = (s: ShownStatus) => s.conditions?.find((c) => c.type === "Delivering");

describe("the Webhook's status", () => {
  it("shows lastTriggeredAt and Delivering=True after a delivery", async () => {
    const hookId = await createHook(ok.url);
    expect((await postEvent({ event: "stream.started", id: "evt-status-ok" })).status).toBe(202);
    const s = await until("lastTriggeredAt", async () => {
      const st = await statusOf(hookId);
      return st.lastTriggeredAt && delivering(st) ? st : undefined;
    });
    expect(s.lastTriggeredAt).toBeGreaterThan(Date.now() - 60_000);
    expect(delivering(s)).toMatchObject({ status: "True", reason: "Delivered" });
    expect(s.lastFailure).toBeUndefined();
  });

  it("a failing receiver: lastFailure with the error and Delivering=False; 410 turns the webhook off", async () => {
    const failing = await receiver(() => 400);
    const gone = await receiver(() => 410);
    try {
      const failingId = await createHook(failing.url);
      const goneId = await createHook(gone.url);
      expect((await postEvent({ event: "stream.started", id: "evt-status-fail" })).status).toBe(202);
      const f = await until("lastFailure", async () => {
        const st = await statusOf(failingId);
        return st.lastFailure && delivering(st) ? st : undefined;
      });
      expect(f.lastFailure?.error).toMatch(/^HTTP 400: /);
      expect(f.lastFailure).toMatchObject({
        statusCode: 400,
        response: "receiver says hi",
      });
      expect(f.lastFailure?.timestamp).toBeGreaterThan(Date.now() - 60_000);
      expect(delivering(f)).toMatchObject({ status: "False", reason: "Failing" });
      expect(delivering(f)?.message).toMatch(/HTTP 400/);

      const g = await until("Delivering=False Gone", async () => {
        const st = await statusOf(goneId);
        return delivering(st)?.reason === "Gone" ? st : undefined;
      });
      expect(delivering(g)?.status).toBe("False");
      expect(delivering(g)?.message).toMatch(/410 Gone .* until the webhook is updated/);
      // Turned off: the next event is not sent to it.
      const before = gone.got.length;
      expect((await postEvent({ event: "stream.started", id: "evt-after-gone" })).status).toBe(202);
      await until("the event at the failing receiver", () =>
        failing.got.some((r) => JSON.parse(r.body).id === "evt-after-gone") ? true : undefined,
      );
      // Every delivery of that event settled: one to the turned-off webhook would have arrived.
      await queueDrained();
      expect(gone.got.length).toBe(before);
    } finally {
      await failing.close();
      await gone.close();
    }
  });
});

describe("beside the Webhook controller", () => {
  let manager: Manager;
  beforeAll(async () => {
    manager = await startTestManager("api-delivery-controller", ns.name, [webhookController()]);
  });
  afterAll(async () => {
    await manager?.stop("tests done");
  });

  it("the controller's Ready and the API's Delivering never undo each other across spec changes", async () => {
    let code = 500;
    const flaky = await receiver(() => code);
    try {
      code = 400;
      const id = await createHook(flaky.url, { events: ["task.failed"] });
      const generation = async () =>
        Number(
          JSON.parse(await kubectl(["get", "webhook", id, "-n", ns.name, "-o", "json"])).metadata.generation,
        );
      const readyAt = (
        st: ShownStatus & { conditions?: Array<{ observedGeneration?: number }> },
        g: number,
      ) => st.conditions?.some((c) => c.type === "Ready" && c.observedGeneration === g);
      const rename = (name: string) =>
        kubectl([
          "patch",
          "webhook",
          id,
          "-n",
          ns.name,
          "--type=merge",
          "-p",
          JSON.stringify({ spec: { name } }),
        ]);

      expect((await postEvent({ event: "task.failed", id: "evt-ctl-1" })).status).toBe(202);
      const g1 = await generation();
      await until("Ready and Delivering=False", async () => {
        const st = await statusOf(id);
        return readyAt(st, g1) && delivering(st)?.reason === "Failing" ? st : undefined;
      });

      // The controller re-applies Ready for a new generation; Delivering stays the API's.
      await rename("renamed once");
      const g2 = await generation();
      await until("Ready for the new generation", async () =>
        readyAt(await statusOf(id), g2) ? true : undefined,
      );
      expect(delivering(await statusOf(id))?.reason).toBe("Failing");

      // The API flips Delivering; the controller's next apply must not bring the old one back.
      code = 200;
      expect((await postEvent({ event: "task.failed", id: "evt-ctl-2" })).status).toBe(202);
      await until("Delivering=True", async () =>
        delivering(await statusOf(id))?.status === "True" ? true : undefined,
      );
      await rename("renamed twice");
      const g3 = await generation();
      await until("Ready for the third generation", async () =>
        readyAt(await statusOf(id), g3) ? true : undefined,
      );
      // The controller applies once more (a fourth generation): an apply that brought the old
      // Delivering back would have done so by then.
      await rename("renamed thrice");
      const g4 = await generation();
      await until("Ready for the fourth generation", async () =>
        readyAt(await statusOf(id), g4) ? true : undefined,
      );
      const last = await statusOf(id);
      expect(delivering(last)).toMatchObject({ status: "True", reason: "Delivered" });
      expect(last.lastFailure?.error).toMatch(/^HTTP 400/);
    } finally {
      await flaky.close();
    }
  });
});

describe("GET /metrics", () => {
  it("counts attempts by result and shows the queue", async () => {
    const res = await fetch(new URL("/metrics", api.url));
    expect(res.status).toBe(200);
    const text = await res.text();
    const value = (line: RegExp) => Number(new RegExp(`^${line.source} (\\S+)$`, "m").exec(text)?.[1]);
    // Earlier tests delivered several events and had one 400 and one 410.
    expect(value(/livepeer_webhook_delivery_attempts_total\{result="delivered"\}/)).toBeGreaterThanOrEqual(3);
    expect(value(/livepeer_webhook_delivery_attempts_total\{result="failed"\}/)).toBeGreaterThanOrEqual(1);
    expect(value(/livepeer_webhook_delivery_attempts_total\{result="gone"\}/)).toBeGreaterThanOrEqual(1);
    expect(
      value(/livepeer_webhook_delivery_attempt_duration_seconds_count\{result="delivered"\}/),
    ).toBeGreaterThanOrEqual(3);
    expect(
      value(/livepeer_webhook_delivery_attempts_per_delivery_count\{result="delivered"\}/),
    ).toBeGreaterThanOrEqual(3);
    expect(value(/livepeer_webhook_delivery_queue_depth/)).toBeGreaterThanOrEqual(0);
    expect(value(/livepeer_webhook_delivery_oldest_pending_age_seconds/)).toBeGreaterThanOrEqual(0);
    expect(text).not.toContain("s3cret");
  });
});
