// The stream hooks as the node and the controller call them: a real fastify app and a real SQLite
// delivery store (closed to make it unavailable); the gateways are an in-memory lookup, the port
// the informer-backed cache fills in the server.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../process/log.ts";
import { hookTokenDigest, nodeHookPath, remoteSignerHookPath } from "../../schema/node-hooks.ts";
import { createBaseApp } from "../app.ts";
import {
  DeliveryEngine,
  type DeliveryStore,
  LOOPBACK_ALLOWED,
  openDeliveryStore,
} from "../delivery/index.ts";
import type { GatewayHooks } from "./gateway-hooks-cache.ts";
import { OpenStreams } from "./open-streams.ts";
import { nodeHookRoutes } from "./routes.ts";
import { StreamEventRecorder } from "./stream-event-recorder.ts";
import { StreamStarts } from "./stream-starts.ts";

const TOKEN = "k".repeat(43);
const gateway = (streamEvents: NonNullable<GatewayHooks["spec"]>["streamEvents"]): GatewayHooks => ({
  metadata: { name: "gw", namespace: "video", uid: "uid-1" },
  spec: { streamEvents },
  status: { hookTokenDigest: hookTokenDigest(TOKEN) },
});
const webhook = { id: "w1", userId: "alice", projectId: "default" };

let dir: string;
let store: DeliveryStore;
let app: FastifyInstance;
let registry: Registry;
let gateways: Map<string, GatewayHooks>;
let signers: Map<string, GatewayHooks>;
let synced: boolean;
let clock: number;
let storeClosed: Promise<void> | undefined;
/** Closes the store once (the test's outage, then the teardown). */
const closeStore = () => (storeClosed ??= store.close());
const logs: string[] = [];

beforeEach(async () => {
  storeClosed = undefined;
  dir = mkdtempSync(path.join(os.tmpdir(), "stream-hooks-"));
  store = await openDeliveryStore({ backend: "sqlite", file: path.join(dir, "delivery.sqlite") });
  const engine = new DeliveryEngine({ store, resolveTarget: () => undefined, allow: LOOPBACK_ALLOWED });
  registry = new Registry();
  gateways = new Map([["video/gw", gateway({ enabled: true, userId: "alice" })]]);
  signers = new Map([
    [
      "video/signer",
      {
        metadata: { name: "signer", namespace: "video", uid: "uid-2" },
        status: {
          hookTokenDigest: hookTokenDigest(TOKEN),
          orchestrators: [{ name: "orch-a", address: "orch-a-0.orch-a-pods.video.svc.cluster.local:8935" }],
        },
      },
    ],
  ]);
  synced = true;
  clock = 1_000_000;
  logs.length = 0;
  app = createBaseApp({
    prefix: "/api",
    bodyLimit: 64 * 1024,
    log: { level: "info", stream: { write: (l: string) => void logs.push(l) } },
  });
  await app.register(nodeHookRoutes, {
    gateways: {
      synced: () => synced,
      get: (ns, name) => gateways.get(`${ns}/${name}`),
      signer: (ns, name) => signers.get(`${ns}/${name}`),
    },
    streams: {
      recorder: new StreamEventRecorder({
        engine,
        webhooks: () => [webhook],
        registry,
        // The tests read the queue as soon as the hook answers, so the record must have settled
        // by then however slow the store's writer thread is on a loaded machine; answering
        // within the budget is stream-event-recorder.test.ts's.
        budgetMs: 60_000,
        log: createLogger("stream-events", { write: (l) => void logs.push(l) }),
      }),
      open: new StreamStarts({ local: new OpenStreams() }),
      now: () => clock,
    },
  });
});

afterEach(async () => {
  await app.close();
  await closeStore();
  rmSync(dir, { recursive: true, force: true });
});

const auth = (url: string, token = TOKEN) =>
  app.inject({
    method: "POST",
    url: `${nodeHookPath("video", "gw", "auth")}?token=${token}`,
    headers: { "content-type": "application/json" },
    payload: JSON.stringify({ url }),
  });
const ends = (body: unknown, token = TOKEN) =>
  app.inject({
    method: "POST",
    url: `${nodeHookPath("video", "gw", "stream-events")}?token=${token}`,
    payload: body as object,
  });
const end = {
  manifestID: "demo",
  externalManifestID: "demo",
  pod: "gw-0",
  at: "2026-11-24T15:02:03.456789012Z",
};
const queued = async () => (await store.queueStats()).pending;
const counted = async (result: string) =>
  (await registry.getSingleMetric("livepeer_stream_events_total")?.get())?.values.find(
    (v) => v.labels.result === result,
  )?.value ?? 0;

describe("the auth hook (-authWebhookUrl)", () => {
  it("accepts a new stream with an empty 200 and records one stream.started for it", async () => {
    const res = await auth("http://10.0.0.5:8935/live/demo/0.ts");
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe("");
    expect(await queued()).toBe(1);
    expect(await counted("recorded")).toBe(1);
  });

  it("a repeated call for the open stream (a retried first segment) is the same event", async () => {
    await auth("http://gw:8935/live/demo/0.ts");
    clock += 2_000;
    await auth("http://gw:8935/live/demo/0.ts");
    expect(await queued()).toBe(1);
  });

  it("after the stream's end, the same name starts a new stream", async () => {
    await auth("http://gw:8935/live/demo/0.ts");
    expect((await ends({ ends: [end] })).statusCode).toBe(204);
    clock += 1_000;
    await auth("http://gw:8935/live/demo/0.ts");
    expect(await queued()).toBe(3);
  });

  it.each([
    ["a wrong token", () => auth("http://gw:8935/live/demo/0.ts", "wrong")],
    ["a recording read", () => auth("http://gw:8935/recordings/demo/index.m3u8")],
    [
      "a gateway whose stream events are off",
      () => {
        gateways.set("video/gw", gateway({ enabled: false }));
        return auth("http://gw:8935/live/demo/0.ts");
      },
    ],
    [
      "an API whose gateway cache has not synced",
      () => {
        synced = false;
        return auth("http://gw:8935/live/demo/0.ts");
      },
    ],
  ])("%s: the stream is accepted, nothing recorded", async (_, call) => {
    const res = await call();
    expect(res.statusCode).toBe(200);
    expect(await queued()).toBe(0);
  });

  it("the event store unavailable: the stream is still accepted at once, the loss counted and logged once", async () => {
    await closeStore();
    const started = performance.now();
    const answers = await Promise.all([
      auth("http://gw:8935/live/a/0.ts"),
      auth("http://gw:8935/live/b/0.ts"),
      auth("http://gw:8935/live/c/0.ts"),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    expect(performance.now() - started).toBeLessThan(1_000);
    await expect.poll(() => counted("unrecorded")).toBe(3);
    expect(logs.filter((l) => l.includes("cannot record stream events"))).toHaveLength(1);
  });
});

describe("the stream-events hook (the controller's end reports)", () => {
  it("records one stream.idle per end line, however often it is reported", async () => {
    expect((await ends({ ends: [end] })).statusCode).toBe(204);
    expect((await ends({ ends: [end, { ...end }] })).statusCode).toBe(204);
    expect(await queued()).toBe(1);
  });

  it.each([
    ["a wrong token", 404, { ends: [end] }, "wrong", /no gateway hook matches video\/gw/],
    ["no ends", 422, { ends: [] }, TOKEN, /ends/],
    [
      "a time that is not the log's",
      422,
      { ends: [{ ...end, at: "yesterday" }] },
      TOKEN,
      /ends\[0\]\.at.*RFC 3339/,
    ],
    ["an unknown field", 422, { ends: [end], more: 1 }, TOKEN, /more/],
  ])("%s -> %i naming the problem", async (_, status, body, token, message) => {
    const res = await ends(body, token);
    expect(res.statusCode).toBe(status);
    expect(res.json().errors.join("; ")).toMatch(message);
  });

  it("the event store unavailable: 503 with Retry-After, for the controller to send the report again", async () => {
    await closeStore();
    const res = await ends({ ends: [end] });
    expect(res.statusCode).toBe(503);
    expect(res.headers["retry-after"]).toBe("2");
    expect(res.json().errors[0]).toMatch(/send the same report again/);
  });
});

describe("a remote signer's discovery feed (-orchWebhookUrl of -remoteDiscovery)", () => {
  const feed = (name: string, token = TOKEN) =>
    app.inject({
      method: "GET",
      url: `${remoteSignerHookPath("video", name, "orchestrators")}?token=${token}`,
    });

  it("answers with the Orchestrators offered to the signer, in the node's format", async () => {
    const res = await feed("signer");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ address: "https://orch-a-0.orch-a-pods.video.svc.cluster.local:8935" }]);
  });

  it.each([
    ["a wrong token", "signer", "x".repeat(43), 404],
    ["an unknown signer", "nobody", TOKEN, 404],
    // A gateway's name and token do not open a signer's feed.
    ["a gateway's name", "gw", TOKEN, 404],
  ])("%s: %i, the same answer for both", async (_, name, token, status) => {
    const res = await feed(name, token);
    expect(res.statusCode).toBe(status);
    expect(res.json().errors[0]).toMatch(/no remote signer hook matches/);
  });

  it("503 until the cache has synced", async () => {
    synced = false;
    expect((await feed("signer")).statusCode).toBe(503);
  });
});

describe("GET .../orchestrators with the SDK's caps query", () => {
  it("keeps the orchestrators that serve one of the repeated caps (the URL as discover_orchestrators builds it)", async () => {
    gateways.set("video/gw", {
      metadata: { name: "gw", namespace: "video", uid: "uid-1" },
      status: {
        hookTokenDigest: hookTokenDigest(TOKEN),
        orchestrators: [
          { name: "a", address: "a:8935", capabilities: ["live-video-to-video/streamdiffusion"] },
          { name: "b", address: "b:8935", capabilities: ["text-to-image/stabilityai/sd-turbo"] },
          { name: "c", address: "c:8935" },
        ],
      },
    });
    const path = nodeHookPath("video", "gw", "orchestrators");
    const ask = async (query: string) => {
      const res = await app.inject({ method: "GET", url: `${path}?token=${TOKEN}${query}` });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { address: string }[]).map((o) => o.address);
    };
    // livepeer_gateway's _append_caps keeps "/" unescaped and repeats the key.
    expect(await ask("&caps=live-video-to-video/streamdiffusion")).toEqual(["https://a:8935"]);
    expect(
      await ask("&caps=live-video-to-video/streamdiffusion&caps=text-to-image/stabilityai/sd-turbo"),
    ).toEqual(["https://a:8935", "https://b:8935"]);
    expect(await ask("&caps=live-video-to-video%2Fcomfyui")).toEqual([]);
    expect(await ask("")).toEqual(["https://a:8935", "https://b:8935", "https://c:8935"]);
  });
});
