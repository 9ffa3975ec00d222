// The webhook API as several replicas run it: two real `livepeer-operator api` processes on one
// PostgreSQL database (Debian's package, started here) against the run's control plane. Events
// posted to either replica are delivered once each to a receiver on loopback, the log reads the
// same through either (the `livepeer` SDK's getLogs), a replica killed with SIGKILL while it holds
// a retry leaves the delivery to the other, and a deleted webhook's pending retries stop and its
// log goes.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Livepeer } from "livepeer";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { mintToken } from "../../src/api/auth/mint.ts";
import { type Postgres, startPostgres } from "../../src/dev/postgres.ts";
import { type Child, startCommand, waitHealthy } from "../../src/dev/services.ts";
import { isAlive } from "../../src/process/pids.ts";
import { freePorts } from "../../src/process/ports.ts";
import { call, installWebhookCrd } from "./api-harness.ts";
import { testNamespace } from "./support/cluster.ts";
import { type Answer, type Received, type Receiver, startReceiver } from "./support/receiver.ts";

// Lease = 2 x timeout + 10 s: a killed replica's claim is free again 12 s later.
const TIMEOUT_S = 1;
const LEASE_MS = 2 * TIMEOUT_S * 1000 + 10_000;

interface Replica {
  child: Child;
  url: string;
  pid: number;
  output: string[];
}

let ns: Awaited<ReturnType<typeof testNamespace>>;
let postgres: Postgres;
let db: pg.Client;
let work: string;
let connectionFile: string;
let secretFile: string;
let owner: string;
let producer: string;
const replicas: Replica[] = [];
const receivers: Receiver[] = [];

async function startReplica(name: string): Promise<Replica> {
  const [port] = await freePorts(1);
  const output: string[] = [];
  const child = startCommand(
    name,
    [
      "api",
      `--listen=127.0.0.1:${port}`,
      `--kubeconfig=${inject("kubeconfig")}`,
      `--namespace=${ns.name}`,
      `--jwt-secret-file=${secretFile}`,
      "--allow-loopback-targets",
      "--no-node-hooks",
      "--delivery-store=postgres",
      `--delivery-postgres-url-file=${connectionFile}`,
      `--delivery-timeout=${TIMEOUT_S}s`,
      "--delivery-retry-first=1s",
      "--delivery-retry-max=2s",
      "--rate-limit=0",
    ],
    path.join(work, "logs"),
    (line) => output.push(line),
  );
  await waitHealthy(child, `http://127.0.0.1:${port}/readyz`);
  const r: Replica = { child, url: `http://127.0.0.1:${port}/api`, pid: child.process.pid!, output };
  replicas.push(r);
  return r;
}

async function receiver(answer?: (q: Received, i: number) => Answer | Promise<Answer>) {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

async function until<T>(
  what: string,
  fn: () => Promise<T | undefined> | T | undefined,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function createHook(via: Replica, url: string): Promise<string> {
  const a = await call(via.url, "POST", "/webhook", {
    token: owner,
    body: { name: "replicas", url, events: ["stream.started", "stream.idle"], sharedSecret: "s3cret" },
  });
  expect(a.status, a.text).toBe(200);
  return (a.json as { id: string }).id;
}

async function postEvent(via: Replica, id: string): Promise<void> {
  const a = await call(via.url, "POST", "/events", {
    token: producer,
    body: { event: "stream.started", streamId: "st-1", id },
  });
  expect(a.status, a.text).toBe(202);
}

beforeAll(async () => {
  await installWebhookCrd();
  ns = await testNamespace("api-pg");
  work = mkdtempSync(path.join(os.tmpdir(), "api-pg-"));
  postgres = await startPostgres({ progress: (l) => process.stderr.write(`${l}\n`) });
  const url = await postgres.createDatabase("delivery_replicas");
  connectionFile = path.join(work, "postgres-url");
  writeFileSync(connectionFile, url, { mode: 0o600 });
  db = new pg.Client({ connectionString: url });
  await db.connect();
  const secret = randomBytes(48).toString("hex");
  secretFile = path.join(work, "jwt-secret");
  writeFileSync(secretFile, secret, { mode: 0o600 });
  const key = new TextEncoder().encode(secret);
  owner = await mintToken({ secret: key, sub: "dora", projectId: "p1", ttlSeconds: 600 });
  producer = await mintToken({
    secret: key,
    sub: "dora",
    projectId: "p1",
    scope: "events:write",
    ttlSeconds: 600,
  });
  await Promise.all([startReplica("api-a"), startReplica("api-b")]);
}, 180_000);

afterAll(async () => {
  await Promise.allSettled(replicas.map((r) => r.child.stop()));
  await Promise.allSettled(receivers.map((r) => r.close()));
  await db?.end().catch(() => undefined);
  await postgres?.stop();
  await ns?.remove();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("two API replicas on one PostgreSQL database", () => {
  it("deliver events posted to either replica once each, and show the same log through either", async () => {
    const [a, b] = replicas as [Replica, Replica];
    const r = await receiver();
    const hookId = await createHook(a, r.url);
    // 20: one page of the SDK's getLogs.
    const ids = Array.from({ length: 20 }, (_, i) => `evt-both-${i}`);
    await Promise.all(ids.map((id, i) => postEvent(i % 2 ? b : a, id)));
    await r.waitFor(20, 30_000);
    // Every delivery settled (none left in the queue to send again) and each attempt logged once:
    // a second send of any would be a second log entry.
    await until("the webhook's deliveries all settled", async () => {
      const q = await db.query("SELECT count(*)::int AS n FROM deliveries WHERE webhook_id = $1", [hookId]);
      return q.rows[0].n === 0 ? true : undefined;
    });
    const attempts = await db.query("SELECT count(*)::int AS n FROM delivery_log WHERE webhook_id = $1", [
      hookId,
    ]);
    expect(attempts.rows[0].n).toBe(20);
    const got = r.received.map((q) => q.json.id as string);
    expect(got).toHaveLength(20);
    expect(new Set(got)).toEqual(new Set(ids));
    expect(r.received.every((q) => q.json.webhookId === hookId)).toBe(true);

    const logIds = async (via: Replica) => {
      const sdk = new Livepeer({ apiKey: owner, serverURL: via.url });
      const page = await sdk.webhook.getLogs(hookId);
      return (page.data ?? []).map((e) => `${e.id}:${e.success}`).sort();
    };
    const [viaA, viaB] = await Promise.all([logIds(a), logIds(b)]);
    expect(viaA).toHaveLength(20);
    expect(viaB).toEqual(viaA);
    expect(viaA.every((e) => e.endsWith(":true"))).toBe(true);
  });

  it("a replica killed with SIGKILL holding a retry leaves the delivery to the other after its lease", async () => {
    let killed: Replica | undefined;
    let killedAt = 0;
    // 1st attempt 500; at the 2nd (the retry) kill whichever replica claimed it, and never answer.
    const r = await receiver(async (q, i) => {
      if (q.json.id !== "evt-kill") return { status: 200 };
      if (i === 0) return { status: 500 };
      if (!killed) {
        const { rows } = await db.query("SELECT claimed_by FROM deliveries WHERE leased_until IS NOT NULL");
        const pid = Number(
          String(rows[0]?.claimed_by ?? "")
            .split("/")
            .pop(),
        );
        killed = replicas.find((x) => x.pid === pid);
        if (killed) {
          process.kill(killed.pid, "SIGKILL");
          killedAt = Date.now();
        }
        return { hang: true };
      }
      return { status: 200 };
    });
    const [a] = replicas as [Replica, Replica];
    const hookId = await createHook(a, r.url);
    await postEvent(a, "evt-kill");
    await until("the kill", () => (killed ? true : undefined), 20_000);
    await until("the killed replica gone", () => (isAlive(killed!.pid) ? undefined : true), 5_000);
    const survivor = replicas.find((x) => x !== killed && isAlive(x.pid))!;
    expect(survivor).toBeDefined();

    await r.waitFor(3, LEASE_MS + 10_000);
    const attempts = r.forEvent("evt-kill");
    expect(attempts).toHaveLength(3);
    // Not before the dead replica's lease ran out.
    expect(attempts[2]!.at - killedAt).toBeGreaterThanOrEqual(LEASE_MS - 2_000);

    // The killed attempt was never logged: the log (read through the survivor) has the 500 and the 200.
    const sdk = new Livepeer({ apiKey: owner, serverURL: survivor.url });
    const log = await until("two log entries", async () => {
      const page = await sdk.webhook.getLogs(hookId);
      return (page.data ?? []).length >= 2 ? page.data : undefined;
    });
    expect(log!.map((e) => e.response?.status)).toEqual([200, 500]);
    // And the restarted replica reads the same log.
    const restarted = await startReplica("api-restarted");
    const again = await new Livepeer({ apiKey: owner, serverURL: restarted.url }).webhook.getLogs(hookId);
    expect(again.data?.map((e) => e.id)).toEqual(log!.map((e) => e.id));
  }, 90_000);

  it("a deleted webhook's pending retries stop and its log goes at once", async () => {
    const live = replicas.filter((x) => isAlive(x.pid));
    const via = live[0]!;
    const r = await receiver(() => ({ status: 503 }));
    const hookId = await createHook(via, r.url);
    await postEvent(live[1] ?? via, "evt-deleted");
    await r.waitFor(2, 15_000); // the first attempt and one retry: it is pending in the queue
    const pending = await db.query("SELECT count(*)::int AS n FROM deliveries WHERE webhook_id = $1", [
      hookId,
    ]);
    expect(pending.rows[0].n).toBe(1);
    const logged = await db.query("SELECT count(*)::int AS n FROM delivery_log WHERE webhook_id = $1", [
      hookId,
    ]);
    expect(logged.rows[0].n).toBeGreaterThanOrEqual(1);

    const del = await call(via.url, "DELETE", `/webhook/${hookId}`, { token: owner });
    expect(del.status, del.text).toBe(200);
    await until("the queue and log gone", async () => {
      const q = await db.query(
        `SELECT (SELECT count(*) FROM deliveries WHERE webhook_id = $1)::int
              + (SELECT count(*) FROM delivery_log WHERE webhook_id = $1)::int
              + (SELECT count(*) FROM webhook_facts WHERE webhook_id = $1)::int AS n`,
        [hookId],
      );
      return q.rows[0].n === 0 ? true : undefined;
    });
    const sent = r.received.length;
    // A sentinel webhook failing the same way, its event posted after the delete: its second
    // retry comes later than the deleted webhook's next one would have (same schedule, and the
    // deleted one's last attempt was before the delete).
    const s = await receiver(() => ({ status: 503 }));
    const sentinelHook = await createHook(via, s.url);
    await postEvent(via, "evt-deleted-sentinel");
    await s.waitFor(3, 30_000);
    expect(r.received.length).toBe(sent);
    const removed = await call(via.url, "DELETE", `/webhook/${sentinelHook}`, { token: owner });
    expect(removed.status, removed.text).toBe(200);
  }, 60_000);
});
