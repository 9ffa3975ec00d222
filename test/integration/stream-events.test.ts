// Stream events from the cluster's gateways, end to end on the real control plane: a Gateway with
// spec.streamEvents on, Webhooks created through the API with a shared secret, a receiver on
// loopback, a stream pushed into the simulated gateway. The node's -authWebhookUrl call (the
// operator's auth hook) records stream.started; the node's "Ended stream" log line, read by the
// controller's node doctor and reported to the stream-events hook, records stream.idle.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { type Postgres, startPostgres } from "../../src/dev/postgres.ts";
import { type KubeObject, Pods } from "../../src/kube/index.ts";
import { pushStream } from "../../src/media/push-stream.ts";
import { publishRtmp } from "../../src/media/rtmp/publisher.ts";
import type { StoredGateway } from "../../src/schema/gateway.ts";
import { Gateways } from "../../src/schema/resources.ts";
import { call } from "./api-harness.ts";
import { kubeClient, kubectl } from "./support/cluster.ts";
import { type NodeBed, startNodeBed } from "./support/node-bed.ts";
import { isServing, orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();
const SECRET = "stream-events-secret";
/** The tenant of this file's Webhooks and Gateway (tenants isolate test files sharing the API namespace). */
const USER = `streams-${randomBytes(4).toString("hex")}`;
let receiver: Server;
let receiverUrl: string;
let postgres: Postgres | undefined;
let postgresStopped: Promise<void> | undefined;
const stopPostgres = () => (postgresStopped ??= postgres?.stop() ?? Promise.resolve());

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: {
    id: string;
    webhookId: string;
    event: string;
    createdAt: number;
    stream?: { id: string };
    payload?: Record<string, unknown>;
  };
}
const received: Received[] = [];

let bed: NodeBed;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      received.push({ path: req.url ?? "", headers: req.headers, raw, body: JSON.parse(raw) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  // Streams end 3-6 s after their last segment (the node: 60-120 s); the doctor reads logs every 2 s.
  bed = await startNodeBed({
    name: "streams",
    nodes: ["cpu-only"],
    timings: { orchWebhookRefreshMs: 500, streamTimeoutMs: 3_000, sessionTimeoutMs: 3_000 },
    // PostgreSQL (Debian's package, as the delivery store tests run it): stopping it is an outage
    // the API sees as failing writes, as several replicas would.
    api: async () => {
      postgres = await startPostgres({ fsync: false, progress: (l) => process.stderr.write(`${l}\n`) });
      return {
        allowLoopbackTargets: true,
        delivery: {
          store: { backend: "postgres", connectionString: await postgres.createDatabase("stream_events") },
        },
      };
    },
  });
});
afterAll(async () => {
  await bed?.stop();
  await stopPostgres();
  await kc.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

const context = () =>
  `received: ${JSON.stringify(received.map((r) => [r.path, r.body.event, r.body.stream?.id]))}\n${bed.simLog
    .slice(-10)
    .join("\n")}\n${bed.controllerLog
    .filter((l) => /gateway|stream|warn|error/i.test(l))
    .slice(-8)
    .join("\n")}\n${bed.api.logs
    .filter((l) => /stream|warn|error/i.test(l))
    .slice(-8)
    .join("\n")}`;
const orchestrators = orchestratorKit(client, () => bed.ns.name, context);

/** Livepeer-Signature checked as a receiver would, with node:crypto only. */
function livepeerSignatureValid(r: Received, secret: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers["livepeer-signature"] ?? ""));
  if (!m) return false;
  const expected = createHmac("sha256", secret).update(r.raw).digest();
  return timingSafeEqual(Buffer.from(m[2]!, "hex"), expected);
}

async function createWebhook(name: string, streamId: string): Promise<string> {
  const token = await bed.api.token({ sub: USER });
  const res = await call(bed.api.url, "POST", "/webhook", {
    token,
    body: {
      name,
      url: `${receiverUrl}/${name}`,
      events: ["stream.started", "stream.idle"],
      streamId,
      sharedSecret: SECRET,
    },
  });
  expect(res.status, res.text).toBe(200);
  return (res.json as { id: string }).id;
}

const at = (hook: string, event?: string) =>
  received.filter((r) => r.path === `/${hook}` && (!event || r.body.event === event));

describe("a Gateway with stream events on", () => {
  it("a stream pushed through the simulated network: signed stream.started, later stream.idle; a webhook for another stream gets nothing", async () => {
    const mine = await createWebhook("mine", "ev-stream");
    await createWebhook("other", "some-other-stream");
    await orchestrators.apply("orch-a", { pricePerUnit: "100", pixelsPerUnit: 1 }, bed.pool);
    await kubectl(["label", "orchestrator", "orch-a", "-n", bed.ns.name, "pool=main", "--overwrite"]);
    const body = {
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Gateway",
      metadata: { name: "gw", namespace: bed.ns.name },
      spec: {
        podTemplate: { nodeSelector: bed.pool.nodeSelector, tolerations: bed.pool.tolerations },
        orchestrators: { selector: { matchLabels: { pool: "main" } } },
        streamEvents: { enabled: true, userId: USER },
      },
    };
    await kubectl(["apply", "--server-side", "--field-manager=test", "-f", "-"], JSON.stringify(body));
    await orchestrators.until("orch-a", isServing);
    let gw: StoredGateway | undefined;
    await waitFor(
      "the Gateway Ready",
      async () => {
        gw = await client.get<StoredGateway>(Gateways, bed.ns.name, "gw").catch(() => undefined);
        return gw?.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
      },
      90_000,
      () => `${JSON.stringify(gw?.status, null, 1)}\n${context()}`,
    );
    const pod = await client.get<KubeObject & { status?: { podIP?: string } }>(Pods, bed.ns.name, "gw-0");
    const ip = pod.status?.podIP ?? "";
    expect(ip).toMatch(/^127\./);
    // The node's own /status lists the orchestrator before a stream can be transcoded.
    await waitFor(
      "orch-a in the node's pool",
      async () => {
        const res = await fetch(`http://${ip}:5935/status`, { signal: AbortSignal.timeout(5_000) });
        return (((await res.json()) as { OrchestratorPool?: string[] }).OrchestratorPool ?? []).length > 0;
      },
      30_000,
      context,
    );

    const result = await pushStream({
      gateway: `http://${ip}:8935`,
      name: "ev-stream",
      segments: 2,
      realtime: false,
    });
    expect(result.segments.map((s) => s.status)).toEqual([200, 200]);

    await waitFor(
      "a stream.started at the webhook",
      async () => at("mine", "stream.started").length > 0,
      30_000,
      context,
    );
    const started = at("mine", "stream.started")[0]!;
    expect(livepeerSignatureValid(started, SECRET)).toBe(true);
    expect(livepeerSignatureValid(started, "another secret")).toBe(false);
    expect(started.body).toMatchObject({
      event: "stream.started",
      webhookId: mine,
      stream: { id: "ev-stream" },
    });
    expect(started.headers["webhook-id"]).toBe(started.body.id);

    await waitFor(
      "a stream.idle at the webhook",
      async () => at("mine", "stream.idle").length > 0,
      60_000,
      context,
    );
    const idle = at("mine", "stream.idle")[0]!;
    expect(livepeerSignatureValid(idle, SECRET)).toBe(true);
    expect(idle.body).toMatchObject({ event: "stream.idle", webhookId: mine, stream: { id: "ev-stream" } });
    expect(idle.body.createdAt).toBeGreaterThanOrEqual(started.body.createdAt);
    // The signal: the node's own end line, in the pod's log.
    expect(await kubectl(["logs", "gw-0", "-n", bed.ns.name])).toMatch(
      /mediaserver\.go:\d+\] Ended stream with manifestID=ev-stream external manifestID=ev-stream/,
    );

    // Each once, although the doctor reads the log every 2 s; the other stream's webhook got nothing.
    expect(at("mine").map((r) => r.body.event)).toEqual(["stream.started", "stream.idle"]);
    expect(at("other")).toEqual([]);

    const token = await bed.api.token({ sub: USER });
    await waitFor(
      "the Webhook's status.lastTriggeredAt",
      async () => {
        const res = await call(bed.api.url, "GET", `/webhook/${mine}`, { token });
        const t = (res.json as { status?: { lastTriggeredAt?: number } }).status?.lastTriggeredAt;
        return typeof t === "number" && t >= started.body.createdAt;
      },
      30_000,
      context,
    );
  });

  it("an RTMP stream: stream.started names it with protocol rtmp; its unpublish is a stream.idle", async () => {
    const hook = await createWebhook("rtmp", "rtmp-stream");
    const pod = await client.get<KubeObject & { status?: { podIP?: string } }>(Pods, bed.ns.name, "gw-0");
    await publishRtmp({
      url: `rtmp://${pod.status?.podIP}:1935/live/rtmp-stream`,
      segments: 2,
      realtime: false,
    });
    await waitFor(
      "stream.started and stream.idle of the RTMP stream",
      async () => at("rtmp").length >= 2,
      30_000,
      context,
    );
    const [started, idle] = at("rtmp");
    expect(started!.body).toMatchObject({
      event: "stream.started",
      webhookId: hook,
      stream: { id: "rtmp-stream" },
      payload: { protocol: "rtmp" },
    });
    expect(idle!.body).toMatchObject({
      event: "stream.idle",
      webhookId: hook,
      stream: { id: "rtmp-stream" },
    });
    expect(livepeerSignatureValid(idle!, SECRET)).toBe(true);
  });

  it("the event store unavailable: a new stream is still accepted at once; the lost stream.started is counted and logged once", async () => {
    const pod = await client.get<KubeObject & { status?: { podIP?: string } }>(Pods, bed.ns.name, "gw-0");
    const ip = pod.status?.podIP ?? "";
    await stopPostgres();
    const result = await pushStream({
      gateway: `http://${ip}:8935`,
      name: "while-down",
      segments: 1,
      realtime: false,
    });
    expect(result.segments.map((s) => s.status)).toEqual([200]);
    // The node waited on the auth hook less than a second (the hook's budget is 500 ms).
    const served = bed.api.logs
      .map((l) => JSON.parse(l) as { path?: string; ms?: number; msg?: string })
      .filter((l) => l.msg === "request served" && l.path?.endsWith("/auth"));
    expect(served.at(-1)?.ms).toBeLessThan(1_000);
    await expect
      .poll(
        async () => {
          const metrics = await (await fetch(`${new URL(bed.api.url).origin}/metrics`)).text();
          return Number(
            /^livepeer_stream_events_total\{event="stream.started",result="unrecorded"\} (\d+)$/m.exec(
              metrics,
            )?.[1] ?? 0,
          );
        },
        { timeout: 15_000, interval: 500 },
      )
      .toBeGreaterThanOrEqual(1);
    expect(bed.api.logs.filter((l) => l.includes("cannot record stream events"))).toHaveLength(1);
  });
});
