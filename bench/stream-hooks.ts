// How long a gateway node waits on the operator's -authWebhookUrl (the stream waits for it): the
// API's auth hook recording stream.started in a real SQLite store, against a bare route answering
// an empty 200 on the same server, both over keep-alive HTTP with C calls in flight for S seconds
// each. Every auth call is a new stream (its own name), so each records an event.
//
//   node bench/stream-hooks.ts [--concurrency 8] [--seconds 5]
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Registry } from "prom-client";
import { createBaseApp } from "../src/api/app.ts";
import { LOOPBACK_ALLOWED } from "../src/api/delivery/address-policy.ts";
import { DeliveryEngine } from "../src/api/delivery/engine.ts";
import { openDeliveryStore } from "../src/api/delivery/store/open-store.ts";
import { OpenStreams } from "../src/api/node-hooks/open-streams.ts";
import { nodeHookRoutes } from "../src/api/node-hooks/routes.ts";
import { StreamEventRecorder } from "../src/api/node-hooks/stream-event-recorder.ts";
import { StreamStarts } from "../src/api/node-hooks/stream-starts.ts";
import { http } from "../src/process/builtin-http.ts";
import { hookTokenDigest, nodeHookPath } from "../src/schema/node-hooks.ts";

const { values } = parseArgs({
  options: { concurrency: { type: "string", default: "8" }, seconds: { type: "string", default: "5" } },
});
const concurrency = Number(values.concurrency);
const seconds = Number(values.seconds);
const token = "b".repeat(43);

const dir = mkdtempSync(path.join(os.tmpdir(), "stream-hooks-bench-"));
const store = await openDeliveryStore({ backend: "sqlite", file: path.join(dir, "delivery.sqlite") });
const engine = new DeliveryEngine({ store, resolveTarget: () => undefined, allow: LOOPBACK_ALLOWED });
const registry = new Registry();
const app = createBaseApp({ prefix: "/api", bodyLimit: 64 * 1024, log: { level: "warn" } });
const gateway = {
  metadata: { name: "gw", namespace: "video", uid: "bench" },
  spec: { streamEvents: { enabled: true, userId: "alice" } },
  status: { hookTokenDigest: hookTokenDigest(token) },
};
await app.register(nodeHookRoutes, {
  gateways: { synced: () => true, get: () => gateway },
  streams: {
    recorder: new StreamEventRecorder({
      engine,
      webhooks: () => [{ id: "w1", userId: "alice", projectId: "default" }],
      registry,
    }),
    // As the API runs it: starts shared through the store.
    open: new StreamStarts({ local: new OpenStreams(), shared: store }),
  },
});
app.post("/bare", async (_req, reply) => reply.code(200).send());
await app.listen({ host: "127.0.0.1", port: 0 });
const port = (app.server.address() as AddressInfo).port;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

function post(pathAndQuery: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: pathAndQuery,
        method: "POST",
        agent,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function run(label: string, target: (i: number) => string): Promise<void> {
  const latencies: number[] = [];
  let n = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const i = n++;
        const t0 = performance.now();
        const status = await post(target(i), JSON.stringify({ url: `http://gw:8935/live/s${i}/0.ts` }));
        if (status !== 200) throw new Error(`${label}: HTTP ${status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const q = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(2);
  console.log(
    `${label}: ${(latencies.length / seconds).toFixed(0)} calls/s, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms`,
  );
}

const auth = `${nodeHookPath("video", "gw", "auth")}?token=${token}`;
await run("bare 200", () => "/bare");
await run("auth hook (stream.started recorded)", () => auth);
const recorded = (await registry.getSingleMetric("livepeer_stream_events_total")?.get())?.values ?? [];
console.log(`events: ${recorded.map((v) => `${v.labels.result} ${v.value}`).join(", ")}`);
await app.close();
agent.destroy();
await engine.stop();
await store.close();
rmSync(dir, { recursive: true, force: true });
