// A simulated gateway and simulated orchestrators on loopback, talking real HTTP to each other and
// to webhook servers of the test: streams in, HLS out, sessions, caps, discovery and auth.
import { execFile, execFileSync } from "node:child_process";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { promisify } from "node:util";
import { Wallet } from "ethers";
import { afterEach, describe, expect, it } from "vitest";
import { pushStream } from "../../media/push-stream.ts";
import { TestStream } from "../../media/test-stream.ts";
import { LogClassifier } from "../../node/diagnosis/classifier.ts";
import { type NodeSimulator, type NodeSimulatorOptions, startNodeSimulator } from "../simulator.ts";
import { getOrchestrator, priceOf } from "../testing/wire.ts";

const running: NodeSimulator[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise<void>((r) => s.close(() => r()));
    }),
  );
});

const PORTS = ["-cliAddr=127.0.0.1:0", "-httpAddr=127.0.0.1:0"];

interface Sim {
  sim: NodeSimulator;
  lines: string[];
  /** The address a gateway is given for this orchestrator. */
  address: string;
}

async function start(argv: string[], extra: Partial<NodeSimulatorOptions> = {}): Promise<Sim> {
  const lines: string[] = [];
  const sim = await startNodeSimulator({ argv, log: (l) => lines.push(l), ...extra });
  running.push(sim);
  return { sim, lines, address: sim.urls.http ?? "" };
}

const orchestrator = (...flags: string[]) =>
  start([
    "-orchestrator",
    "-transcoder",
    "-serviceAddr=127.0.0.1:8935",
    "-startupAvailabilityCheck=false",
    ...PORTS,
    ...flags,
  ]);

const gateway = (flags: string[], extra: Partial<NodeSimulatorOptions> = {}) =>
  start(["-gateway", ...PORTS, "-rtmpAddr=127.0.0.1:0", ...flags], extra);

const json = async (url: string) => (await (await fetch(url)).json()) as Record<string, unknown>;
const form = (url: string, fields: Record<string, string>) =>
  fetch(url, { method: "POST", body: new URLSearchParams(fields) }).then(async (r) => ({
    status: r.status,
    text: await r.text(),
  }));
const push = (g: Sim, name: string, segments = 1, firstSeq = 0) =>
  pushStream({ gateway: g.sim.urls.http!, name, segments, firstSeq, realtime: false });

/** A test HTTP server on loopback; handler answers each request. */
async function webhookServer(
  handler: (req: IncomingMessage, body: string) => { status: number; body: string },
) {
  const seen: { method: string; url: string; contentType: string; body: string }[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    seen.push({
      method: req.method ?? "",
      url: req.url ?? "",
      contentType: req.headers["content-type"] ?? "",
      body,
    });
    const answer = handler(req, body);
    res.writeHead(answer.status, { "Content-Type": "application/json" });
    res.end(answer.body);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const findings = (lines: string[]) => {
  const classifier = new LogClassifier();
  for (const l of lines) classifier.push(l);
  return classifier.findings().map((f) => f.id);
};

async function until<T>(read: () => Promise<T> | T, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
}

const hasFfprobe = (() => {
  try {
    execFileSync("ffprobe", ["-version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe("gateway simulator: a stream through the simulated network", () => {
  it("an HTTP-pushed stream reaches an orchestrator and comes back as an HLS presentation of every rendition", async () => {
    const o = await orchestrator("-pricePerUnit=1000");
    const other = await orchestrator("-pricePerUnit=1000");
    const g = await gateway([`-orchAddr=${o.address},${other.address}`]);
    const pushed = await push(g, "demo", 3);
    expect(pushed.segments.map((s) => s.status)).toEqual([200, 200, 200]);

    const master = await (await fetch(pushed.playlistUrl)).text();
    expect(master).toBe(
      [
        "#EXTM3U",
        "#EXT-X-VERSION:3",
        "#EXT-X-STREAM-INF:PROGRAM-ID=0,BANDWIDTH=4000000,RESOLUTION=64x64",
        "demo/source.m3u8",
        "#EXT-X-STREAM-INF:PROGRAM-ID=0,BANDWIDTH=600000,RESOLUTION=426x240",
        "demo/P240p30fps16x9.m3u8",
        "#EXT-X-STREAM-INF:PROGRAM-ID=0,BANDWIDTH=1200000,RESOLUTION=640x360",
        "demo/P360p30fps16x9.m3u8",
        "",
      ].join("\n"),
    );
    const media = await (await fetch(`${g.sim.urls.http}/stream/demo/P240p30fps16x9.m3u8`)).text();
    expect(media).toContain(
      "#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.000,\n/stream/demo/P240p30fps16x9/0.ts",
    );
    // Pass-through transcoding: each rendition is the pushed segment itself.
    const rendition = new Uint8Array(
      await (await fetch(`${g.sim.urls.http}/stream/demo/P240p30fps16x9/2.ts`)).arrayBuffer(),
    );
    const stream = new TestStream();
    for (const i of [0, 1]) stream.segment(i); // the muxer's counters run on: build what came before
    expect(Buffer.from(rendition).equals(Buffer.from(stream.segment(2)))).toBe(true);

    const gatewayLog = g.lines.join("\n");
    expect(gatewayLog).toMatch(
      /manifestID=demo nonce=\d+ seqNo=2 clientIP=127\.0\.0\.1 Trying to transcode segment using sessions=1/,
    );
    expect(gatewayLog).toMatch(
      new RegExp(
        `orchestrator=${o.address} clientIP=127\\.0\\.0\\.1 Successfully transcoded segment segName= seqNo=0 orch=${o.address} dur=`,
      ),
    );
    expect(o.lines.join("\n")).toContain(
      "pass-through transcoding: each rendition (P240p30fps16x9,P360p30fps16x9) is the source segment",
    );
    const status = await json(`${g.sim.urls.cli}/status`);
    expect(Object.keys(status.Manifests as object)).toEqual(["demo"]);
    expect((status.StreamInfo as Record<string, { SourceBytes: number }>).demo?.SourceBytes).toBe(
      3 * rendition.length,
    );
    // One session on the first orchestrator for the whole stream; the other one stays idle.
    expect((await json(`${o.sim.urls.cli}/__sim/state`)).currentSessions).toBe(1);
    expect((await json(`${other.sim.urls.cli}/__sim/state`)).currentSessions).toBe(0);
    expect(g.lines.filter((l) => l.includes("Done fetching orch info orchs=2/2 responses=2/2"))).toHaveLength(
      1,
    );
  });

  it.skipIf(!hasFfprobe)("ffprobe reads the gateway's HLS output as H.264 video", async () => {
    const o = await orchestrator();
    const g = await gateway([`-orchAddr=${o.address}`]);
    const { playlistUrl } = await push(g, "probe", 2);
    const { stdout } = await promisify(execFile)(
      "ffprobe",
      [
        "-v",
        "error",
        "-show_entries",
        "stream=codec_name,width,height",
        "-of",
        "csv=p=0",
        `${g.sim.urls.http}/stream/probe/source.m3u8`,
      ],
      { encoding: "utf8", timeout: 20_000 },
    );
    // One line per program and per stream, each the same.
    expect(new Set(stdout.trim().split(/\n+/))).toEqual(new Set(["h264,64,64"]));
    expect(playlistUrl).toBe(`${g.sim.urls.http}/stream/probe.m3u8`);
  });

  it("an orchestrator at its session limit refuses GetOrchestrator, as the node's CheckCapacity does; the gateway uses the next one", async () => {
    const full = await orchestrator("-maxSessions=1");
    const spare = await orchestrator("-maxSessions=5");
    const g = await gateway([`-orchAddr=${full.address},${spare.address}`]);
    expect((await push(g, "first")).segments[0]?.status).toBe(200);
    await expect(getOrchestrator(full.address)).rejects.toThrow(
      /gRPC UNKNOWN: Invalid orchestrator request: OrchestratorCapped/,
    );
    expect((await push(g, "second", 2)).segments.map((s) => s.status)).toEqual([200, 200]);
    expect(g.lines.join("\n")).toMatch(
      /manifestID=second .*Done fetching orch info orchs=1\/2 responses=1\/2/,
    );
    expect((await json(`${full.sim.urls.cli}/__sim/state`)).currentSessions).toBe(1);
    expect((await json(`${spare.sim.urls.cli}/__sim/state`)).currentSessions).toBe(1);
    expect(g.lines.filter((l) => l.includes("OrchestratorCapped"))).toHaveLength(0);
  });

  it("a session the orchestrator dropped meets its limit: POST /segment answers 403 OrchestratorCapped; the gateway logs it and uses the next one", async () => {
    const full = await start(
      ["-orchestrator", "-transcoder", "-startupAvailabilityCheck=false", ...PORTS, "-maxSessions=1"],
      { timings: { sessionTimeoutMs: 100 } },
    );
    const spare = await orchestrator("-maxSessions=5");
    const g = await gateway([`-orchAddr=${full.address},${spare.address}`]);
    expect((await push(g, "second")).segments[0]?.status).toBe(200);
    // The orchestrator ends the idle session (transcodeLoopTimeout), then steering fills it.
    await until(
      async () => (await json(`${full.sim.urls.cli}/__sim/state`)).currentSessions,
      (n) => n === 0,
    );
    full.sim.control.reachSessionLimit();
    expect((await push(g, "second", 1, 1)).segments[0]?.status).toBe(200);

    const capped = g.lines.find((l) => l.includes("OrchestratorCapped"));
    expect(capped).toMatch(
      new RegExp(
        `^E\\d{4} .* segment_rpc\\.go:576\\] manifestID=second nonce=\\d+ seqNo=1 orchSessionID=\\w+ orchestrator=${full.address} clientIP=127\\.0\\.0\\.1 Error submitting segment statusCode=403 orch=${full.address} err="OrchestratorCapped\\\\n"$`,
      ),
    );
    expect(findings(g.lines)).toContain("OrchestratorCapped");
    expect(full.lines.join("\n")).toMatch(
      /manifestID=second orchSessionID=\w+ clientIP=127\.0\.0\.1 sender=0x0{40} Cannot process manifest err="OrchestratorCapped"/,
    );
    expect((await json(`${spare.sim.urls.cli}/__sim/state`)).currentSessions).toBe(1);
    expect(g.lines.filter((l) => l.includes("OrchestratorCapped"))).toHaveLength(1);
  });

  it("a cap below every price: no orchestrator is used, the node's lines say why; raised live, the next segment goes through", async () => {
    const a = await orchestrator("-pricePerUnit=1000");
    const b = await orchestrator("-pricePerUnit=1200");
    const g = await gateway([`-orchAddr=${a.address},${b.address}`, "-maxPricePerUnit=100"]);
    const refused = await push(g, "cheap");
    expect(refused.segments[0]).toMatchObject({ status: 503, body: "No sessions available\n" });
    const text = g.lines.join("\n");
    expect(text).toContain(`Orchestrator ${a.address} is above max price 100.000, price=1000.000`);
    expect(text).toContain(`Orchestrator ${b.address} is above max price 100.000, price=1200.000`);
    expect(text).toMatch(
      /No sessions available name=0\.ts url=http:\/\/127\.0\.0\.1:\d+\/live\/cheap\/0\.ts statusCode=503/,
    );
    expect(findings(g.lines)).toContain("PriceCapTooLow");
    expect((await json(`${a.sim.urls.cli}/__sim/state`)).currentSessions).toBe(0);

    expect(
      await form(`${g.sim.urls.cli}/setBroadcastConfig`, { maxPricePerUnit: "1100", pixelsPerUnit: "1" }),
    ).toEqual({
      status: 200,
      text: "",
    });
    expect((await push(g, "cheap", 1, 1)).segments[0]?.status).toBe(200);
    expect((await json(`${a.sim.urls.cli}/__sim/state`)).currentSessions).toBe(1);
    expect((await json(`${b.sim.urls.cli}/__sim/state`)).currentSessions).toBe(0);
  });

  it("with no orchestrators given, segments are answered 503 and the node says so", async () => {
    const g = await gateway([]);
    expect((await push(g, "alone")).segments[0]?.status).toBe(503);
    expect(g.lines.join("\n")).toContain("No orchestrator specified; transcoding will not happen");
    expect(g.lines.join("\n")).toMatch(
      /manifestID=alone nonce=\d+ seqNo=0 clientIP=127\.0\.0\.1 No orchestrators specified; not transcoding/,
    );
  });

  it("a stream ends after the push timeout without segments: the node's line, gone from /status, sessions freed", async () => {
    const o = await orchestrator();
    const g = await gateway([`-orchAddr=${o.address}`], { timings: { streamTimeoutMs: 150 } });
    await push(g, "brief");
    expect((await json(`${o.sim.urls.cli}/__sim/state`)).currentSessions).toBe(1);
    const ended = await until(
      () => g.lines.find((l) => l.includes("Ended stream")),
      (l) => l !== undefined,
    );
    expect(ended).toMatch(
      /^I\d{4} .* mediaserver\.go:609\] Ended stream with manifestID=brief external manifestID=brief$/,
    );
    expect(Object.keys((await json(`${g.sim.urls.cli}/status`)).Manifests as object)).toEqual([]);
    expect((await fetch(`${g.sim.urls.http}/stream/brief.m3u8`)).status).toBe(404);
    expect(
      await until(
        async () => (await json(`${o.sim.urls.cli}/__sim/state`)).currentSessions,
        (n) => n === 0,
      ),
    ).toBe(0);
  });
});

describe("gateway simulator: discovery and auth webhooks", () => {
  it("-orchWebhookUrl: a changed list reaches /status OrchestratorPool without a restart; a failed refresh keeps the last list", async () => {
    let list: unknown = [
      { address: "https://10.0.0.1:8935", score: 0.5 },
      { address: "" },
      { address: "not a url" },
    ];
    let status = 200;
    const hook = await webhookServer(() => ({ status, body: JSON.stringify(list) }));
    const g = await gateway([`-orchWebhookUrl=${hook.url}/discover?secret=s3cret`], {
      timings: { orchWebhookRefreshMs: 150 },
    });
    const pool = async () => (await json(`${g.sim.urls.cli}/status`)).OrchestratorPool;
    expect(await pool()).toEqual(["https://10.0.0.1:8935"]);
    expect(hook.seen[0]).toMatchObject({ method: "GET", url: "/discover?secret=s3cret" });
    list = [{ address: "https://10.0.0.2:8935" }, { address: "https://10.0.0.3:8935" }];
    expect(await until(pool, (p) => JSON.stringify(p).includes("10.0.0.3"))).toEqual([
      "https://10.0.0.2:8935",
      "https://10.0.0.3:8935",
    ]);
    status = 500;
    const asked = hook.seen.length;
    // Reads of /status ask the hook again once the list is older than the refresh interval: read
    // until a refresh has failed (its own log line), keeping every answer read meanwhile.
    const refreshFailed = () => g.lines.some((l) => l.includes("Unable to refresh orchestrator webhook"));
    const reads: unknown[] = [];
    expect(
      await until(
        async () => {
          reads.push(await pool());
          return refreshFailed();
        },
        (failed) => failed,
      ),
    ).toBe(true);
    expect(hook.seen.length).toBeGreaterThan(asked);
    const last = ["https://10.0.0.2:8935", "https://10.0.0.3:8935"];
    expect(reads).toEqual(reads.map(() => last));
    expect(await pool()).toEqual(last);
    const text = g.lines.join("\n");
    expect(text).toContain(`Using orchestrator webhook URL ${hook.url}/discover?secret=xxxxx`);
    expect(text).not.toContain("s3cret");
    expect(text).toContain('Unable to parse address  "not a url"');
    expect(text).toContain(
      "Unable to refresh orchestrator webhook; using cached orchestrator list: orchestrator webhook returned HTTP status 500 Internal Server Error",
    );
  });

  it("a stream's first segment calls -authWebhookUrl with the ingest URL; a non-200 answer refuses the stream", async () => {
    const o = await orchestrator();
    const hook = await webhookServer((_req, body) =>
      (JSON.parse(body) as { url: string }).url.includes("/live/denied/")
        ? { status: 403, body: "no such key" }
        : { status: 200, body: "" },
    );
    const g = await gateway([`-orchAddr=${o.address}`, `-authWebhookUrl=${hook.url}/auth`]);
    expect((await push(g, "allowed", 2)).segments.map((s) => s.status)).toEqual([200, 200]);
    expect(hook.seen).toHaveLength(1);
    expect(hook.seen[0]).toMatchObject({
      method: "POST",
      url: "/auth",
      contentType: "application/json",
      body: JSON.stringify({ url: `${g.sim.urls.http}/live/allowed/0.ts` }),
    });
    const denied = await push(g, "denied");
    expect(denied.segments[0]).toMatchObject({
      status: 403,
      body: `Could not create stream ID: url=${g.sim.urls.http}/live/denied/0.ts\n`,
    });
    expect(g.lines.join("\n")).toMatch(
      /manifestID=denied nonce=\d+ clientIP=127\.0\.0\.1 Forbidden: Authentication denied for streamID url=http:\/\/.*\/live\/denied\/0\.ts err="status=403 error=no such key"/,
    );
    expect(Object.keys((await json(`${g.sim.urls.cli}/status`)).Manifests as object)).toEqual(["allowed"]);
  });

  it("an auth answer naming a manifestID streams under that name", async () => {
    const o = await orchestrator();
    const hook = await webhookServer(() => ({
      status: 200,
      body: JSON.stringify({ manifestID: "internal-7" }),
    }));
    const g = await gateway([`-orchAddr=${o.address}`, `-authWebhookUrl=${hook.url}/auth`]);
    expect((await push(g, "key-abc")).segments[0]?.status).toBe(200);
    const status = await json(`${g.sim.urls.cli}/status`);
    expect(status.InternalManifests).toEqual({ "key-abc": "internal-7" });
    expect((await fetch(`${g.sim.urls.http}/stream/internal-7.m3u8`)).status).toBe(200);
    expect(g.lines.join("\n")).toContain(`Stream authentication for authURL=${hook.url}/auth url=`);
  });
});

describe("gateway simulator: HTTP ingest refuses what the node refuses", () => {
  it("wrong method, unknown extension, data that is not MPEG-TS, and streams beyond -maxSessions", async () => {
    const o = await orchestrator();
    const g = await gateway([`-orchAddr=${o.address}`, "-maxSessions=1"]);
    const live = `${g.sim.urls.http}/live`;
    const get = await fetch(`${live}/x/0.ts`);
    expect(get.status).toBe(405);
    const bad = await fetch(`${live}/x/0.flv`, { method: "PUT", body: "x" });
    expect([bad.status, await bad.text()]).toEqual([400, "ignoring file extension: .flv\n"]);
    const junk = await fetch(`${live}/x/0.ts`, { method: "PUT", body: "definitely not video" });
    expect(junk.status).toBe(422);
    expect((await push(g, "one")).segments[0]?.status).toBe(200);
    const two = await push(g, "two");
    expect(two.segments[0]).toMatchObject({
      status: 500,
      body: `Could not create stream ID: url=${live}/two/0.ts\n`,
    });
    expect(g.lines.join("\n")).toContain(
      `Too many connections for streamID url=${live}/two/0.ts err=%!q(<nil>)`,
    );
    expect(await form(`${g.sim.urls.cli}/setMaxSessions`, { maxSessions: "2" })).toMatchObject({
      status: 200,
    });
    expect((await push(g, "two")).segments[0]?.status).toBe(200);
  });
});

describe("simulators: live price changes on the CLI port show in /status", () => {
  it("a gateway's caps: /setBroadcastConfig, /getBroadcastConfig, /setMaxPriceForCapability", async () => {
    const g = await gateway(["-maxPricePerUnit=1000", "-pixelsPerUnit=3"]);
    const cli = g.sim.urls.cli;
    expect((await json(`${cli}/status`)).BroadcastConfig).toEqual({
      MaxPrice: "1000/3",
      TranscodingOptions: "P240p30fps16x9,P360p30fps16x9",
    });
    expect(await form(`${cli}/setBroadcastConfig`, { maxPricePerUnit: "2000", pixelsPerUnit: "1" })).toEqual({
      status: 200,
      text: "",
    });
    expect(await form(`${cli}/setBroadcastConfig`, { transcodingOptions: "P144p30fps16x9" })).toEqual({
      status: 200,
      text: "",
    });
    expect(await json(`${cli}/getBroadcastConfig`)).toMatchObject({
      MaxPrice: "2000",
      TranscodingOptions: "P144p30fps16x9",
    });
    expect((await json(`${cli}/status`)).BroadcastConfig).toEqual({
      MaxPrice: "2000",
      TranscodingOptions: "P144p30fps16x9",
    });
    expect(g.lines.join("\n")).toContain("Maximum transcoding price: 2000.000 wei per pixel");
    expect(await form(`${cli}/setBroadcastConfig`, { maxPricePerUnit: "5" })).toEqual({
      status: 400,
      text: "missing form params (maxPricePerUnit AND pixelsPerUnit) or transcodingOptions\n",
    });
    expect(
      await form(`${cli}/setBroadcastConfig`, { maxPricePerUnit: "5", pixelsPerUnit: "1", currency: "USD" }),
    ).toEqual({
      status: 400,
      text: "error converting price: PriceFeedWatcher is not initialized\n",
    });
    expect(
      await form(`${cli}/setBroadcastConfig`, { maxPricePerUnit: "0", pixelsPerUnit: "1" }),
    ).toMatchObject({ status: 200 });
    expect((await json(`${cli}/status`)).BroadcastConfig).toMatchObject({ MaxPrice: null });

    const capability = {
      maxPricePerUnit: "4768371",
      pixelsPerUnit: "1",
      pipeline: "text-to-image",
      modelID: "ByteDance/SDXL-Lightning",
    };
    expect(await form(`${cli}/setMaxPriceForCapability`, capability)).toEqual({
      status: 400,
      text: "missing form param: currency\n",
    });
    expect(await form(`${cli}/setMaxPriceForCapability`, { ...capability, currency: "wei" })).toEqual({
      status: 200,
      text: "",
    });
    expect((await json(`${cli}/status`)).MaxPricePerCapability).toEqual({
      "text-to-image": { "ByteDance/SDXL-Lightning": "4768371" },
    });
    expect(
      await form(`${cli}/setMaxPriceForCapability`, { ...capability, currency: "wei", pipeline: "juggling" }),
    ).toEqual({
      status: 400,
      text: "pipeline not supported\n",
    });
  });

  it("an orchestrator's prices: /setPriceForBroadcaster (any network) and /setOrchestratorConfig (on chain) reach /status and GetOrchestrator", async () => {
    // On chain the orchestrator answers only signed requests: the gateway and anyone else sign.
    const gatewayWallet = Wallet.createRandom() as unknown as Wallet;
    const gatewayAddress = gatewayWallet.address.toLowerCase();
    const anyone = Wallet.createRandom() as unknown as Wallet;
    // On chain with no chain behind -ethUrl: prices still answer (ticket parameters are left out).
    const o = await orchestrator(
      "-network=devnet",
      "-ethUrl=http://127.0.0.1:8545",
      "-ethController=0x77A0865438f2EfD65667362D4a8937537CA7a5EF",
      `-ethKeystorePath=${tmpdir()}`,
      "-ethPassword=secret",
      "-pricePerUnit=1200",
      "-pixelsPerUnit=1",
    );
    const info = (asker: Wallet = anyone) => getOrchestrator(o.sim.urls.http!, asker).then(priceOf);
    // On chain, -autoAdjustPrice (default on) adds the nominal 1 % ticket overhead.
    expect(await info()).toEqual({ pricePerUnit: 1212, pixelsPerUnit: 1 });
    expect(
      await form(`${o.sim.urls.cli}/setPriceForBroadcaster`, {
        pricePerUnit: "900",
        pixelsPerUnit: "1",
        broadcasterEthAddr: gatewayAddress,
      }),
    ).toEqual({
      status: 200,
      text: `Price per pixel set to 900 wei for 1 pixels for broadcaster ${gatewayAddress}\n`,
    });
    expect((await json(`${o.sim.urls.cli}/status`)).BroadcasterPrices).toEqual({
      default: "1200",
      [gatewayAddress]: "900",
    });
    expect(await info(gatewayWallet)).toEqual({ pricePerUnit: 909, pixelsPerUnit: 1 });
    expect(
      await form(`${o.sim.urls.cli}/setOrchestratorConfig`, { pricePerUnit: "3000", pixelsPerUnit: "4" }),
    ).toMatchObject({ status: 200 });
    expect((await json(`${o.sim.urls.cli}/status`)).PricePerUnit).toBe(3000);
    expect(await info()).toEqual({ pricePerUnit: 1515, pixelsPerUnit: 2 }); // 3000 / 4 * 1.01 = 757.5 wei per pixel
    const g = await gateway([]);
    expect(
      await form(`${g.sim.urls.cli}/setPriceForBroadcaster`, {
        pricePerUnit: "1",
        pixelsPerUnit: "1",
        broadcasterEthAddr: gatewayAddress,
      }),
    ).toEqual({ status: 400, text: "Node must be orchestrator node to set price for broadcaster\n" });
  });
});
