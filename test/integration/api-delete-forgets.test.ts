// A deleted webhook on the embedded (SQLite) store, through the API as it runs: its pending
// retries stop and its queue, log and facts leave the store at once (not at retention), whether it
// is deleted through the API or with kubectl. The PostgreSQL side is in api-postgres-replicas.test.ts.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, installWebhookCrd, startTestApi, type TestApi } from "./api-harness.ts";
import { kubectl, testNamespace } from "./support/cluster.ts";
import { type Receiver, startReceiver } from "./support/receiver.ts";

let ns: Awaited<ReturnType<typeof testNamespace>>;
let api: TestApi;
let dir: string;
let file: string;
let failing: Receiver;
let owner: string;
let producer: string;

beforeAll(async () => {
  await installWebhookCrd();
  ns = await testNamespace("api-forget");
  dir = mkdtempSync(path.join(os.tmpdir(), "api-forget-"));
  file = path.join(dir, "delivery.sqlite");
  api = await startTestApi(ns.name, {
    allowLoopbackTargets: true,
    delivery: {
      store: { backend: "sqlite", file },
      schedule: {
        firstDelayMs: 300,
        multiplier: 1,
        maxDelayMs: 300,
        giveUpAfterMs: 600_000,
        jitter: 0,
        maxRetryAfterMs: 1_000,
      },
    },
  });
  failing = await startReceiver(() => ({ status: 503 }));
  owner = await api.token({ sub: "dora", projectId: "p1" });
  producer = await api.token({ sub: "dora", projectId: "p1", scope: "events:write" });
});

afterAll(async () => {
  await failing?.close();
  await api?.close();
  await ns?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Rows the store holds for a webhook: queue, log, facts (read beside the API, as WAL allows). */
function rows(webhookId: string): { queued: number; logged: number; facts: number } {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const n = (table: string) =>
      Number(
        (
          db.prepare(`SELECT count(*) AS n FROM ${table} WHERE webhook_id = ?`).get(webhookId) as {
            n: number;
          }
        ).n,
      );
    return { queued: n("deliveries"), logged: n("delivery_log"), facts: n("webhook_facts") };
  } finally {
    db.close();
  }
}

async function until<T>(what: string, fn: () => T | undefined, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A webhook whose event is failing and pending a retry, with its attempts logged. */
async function retryingHook(eventId: string): Promise<string> {
  const created = await call(api.url, "POST", "/webhook", {
    token: owner,
    body: { name: "forget", url: failing.url, events: ["stream.started"] },
  });
  expect(created.status, created.text).toBe(200);
  const id = (created.json as { id: string }).id;
  const posted = await call(api.url, "POST", "/events", {
    token: producer,
    body: { event: "stream.started", id: eventId },
  });
  expect(posted.status, posted.text).toBe(202);
  await until("two attempts", () => (failing.forEvent(eventId).length >= 2 ? true : undefined));
  const before = rows(id);
  expect(before.queued).toBe(1);
  expect(before.logged).toBeGreaterThanOrEqual(1);
  expect(before.facts).toBe(1);
  return id;
}

async function expectForgotten(id: string, eventId: string): Promise<void> {
  await until("the webhook's rows gone", () => {
    const r = rows(id);
    return r.queued + r.logged + r.facts === 0 ? true : undefined;
  });
  const sent = failing.forEvent(eventId).length;
  // A sentinel webhook failing on the same 300 ms retry period, its event posted after the
  // forget: once it has been retried twice, the deleted webhook's next retry (due 300 ms after
  // its last attempt, before the delete) would have gone out.
  const sentinelId = `${eventId}-sentinel`;
  const created = await call(api.url, "POST", "/webhook", {
    token: owner,
    body: { name: "sentinel", url: failing.url, events: ["stream.idle"] },
  });
  expect(created.status, created.text).toBe(200);
  const sentinelHook = (created.json as { id: string }).id;
  const posted = await call(api.url, "POST", "/events", {
    token: producer,
    body: { event: "stream.idle", id: sentinelId },
  });
  expect(posted.status, posted.text).toBe(202);
  await until("the sentinel retried twice", () =>
    failing.forEvent(sentinelId).length >= 3 ? true : undefined,
  );
  expect(failing.forEvent(eventId)).toHaveLength(sent);
  expect(rows(id)).toEqual({ queued: 0, logged: 0, facts: 0 });
  const removed = await call(api.url, "DELETE", `/webhook/${sentinelHook}`, { token: owner });
  expect(removed.status, removed.text).toBe(200);
}

describe("deleting a webhook on the SQLite store", () => {
  it("through the API: its retries stop and its queue, log and facts go at once", async () => {
    const id = await retryingHook("evt-api-delete");
    const del = await call(api.url, "DELETE", `/webhook/${id}`, { token: owner });
    expect(del.status, del.text).toBe(200);
    await expectForgotten(id, "evt-api-delete");
  });

  it("with kubectl: the same (the API's watch sees the delete)", async () => {
    const id = await retryingHook("evt-kubectl-delete");
    await kubectl(["delete", "webhook", id, "-n", ns.name, "--wait=false"]);
    await expectForgotten(id, "evt-kubectl-delete");
  });
});
