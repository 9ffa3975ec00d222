// RTMP ingest of the simulated gateway, with our own publisher and, when installed, ffmpeg.
import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { publishRtmp } from "../../media/rtmp/publisher.ts";
import { type NodeSimulator, startNodeSimulator } from "../simulator.ts";

const running: NodeSimulator[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

async function start(argv: string[]) {
  const lines: string[] = [];
  const sim = await startNodeSimulator({ argv, log: (l) => lines.push(l) });
  running.push(sim);
  return { sim, lines };
}

async function network(extra: string[] = []) {
  const o = await start([
    "-orchestrator",
    "-transcoder",
    "-serviceAddr=127.0.0.1:8935",
    "-startupAvailabilityCheck=false",
    "-cliAddr=127.0.0.1:0",
    "-httpAddr=127.0.0.1:0",
  ]);
  const g = await start([
    "-gateway",
    "-cliAddr=127.0.0.1:0",
    "-httpAddr=127.0.0.1:0",
    "-rtmpAddr=127.0.0.1:0",
    `-orchAddr=${o.sim.urls.http}`,
    ...extra,
  ]);
  return { o, g };
}

async function authServer(refuse: boolean) {
  const bodies: string[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    bodies.push(Buffer.concat(chunks).toString("utf8"));
    res.writeHead(refuse ? 401 : 200);
    res.end(refuse ? "bad stream key" : "");
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth`, bodies };
}

async function until<T>(read: () => Promise<T> | T, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const installed = (tool: string) => {
  try {
    execFileSync(tool, ["-version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

describe("gateway simulator: RTMP ingest", () => {
  it("a publish is authorised with its rtmp URL, cut into 2 s segments that reach an orchestrator and HLS, and ends with the connection", async () => {
    const auth = await authServer(false);
    const { o, g } = await network([`-authWebhookUrl=${auth.url}`]);
    const published = publishRtmp({
      url: `${g.sim.urls.rtmp}/live/cam`,
      segments: 3,
      segmentSeconds: 1,
      realtime: true,
    });
    const media = await until(
      () => fetch(`${g.sim.urls.http}/stream/cam/P360p30fps16x9.m3u8`).then((r) => (r.ok ? r.text() : "")),
      (t) => t.includes("/stream/cam/P360p30fps16x9/0.ts"),
    );
    expect(media).toContain("#EXTINF:2.000,\n/stream/cam/P360p30fps16x9/0.ts");
    expect(await published).toEqual({ pictures: 30 });
    const ended = await until(
      () => g.lines.find((l) => l.includes("Ended stream")),
      (l) => l !== undefined,
    );
    expect(ended).toMatch(/Ended stream with manifestID=cam external manifestID=cam$/);
    expect(auth.bodies).toEqual([JSON.stringify({ url: `${g.sim.urls.rtmp}/live/cam` })]);
    const text = g.lines.join("\n");
    expect(text).toContain("mediaserver.go:464] \n\nVideo Created With ManifestID: cam\n\n");
    // 3 s of pictures: a 2 s segment, then the last second when the publisher stops.
    expect(text).toMatch(
      /manifestID=cam nonce=\d+ seqNo=1 orchSessionID=\w+ orchestrator=.* Successfully transcoded segment segName= seqNo=1/,
    );
    expect(o.lines.join("\n")).toContain("manifestID=cam");
  });

  it("a refused publish gets the node's refusal in onStatus and the node's log line", async () => {
    const auth = await authServer(true);
    const { g } = await network([`-authWebhookUrl=${auth.url}`]);
    await expect(
      publishRtmp({ url: `${g.sim.urls.rtmp}/live/nope`, segments: 1, realtime: false }),
    ).rejects.toThrow("publish refused: NetStream.Publish.BadName: status=401 error=bad stream key");
    expect(g.lines.join("\n")).toMatch(
      /Forbidden: Authentication denied for streamID url=rtmp:\/\/127\.0\.0\.1:\d+\/live\/nope err="status=401 error=bad stream key"/,
    );
  });

  it.skipIf(!installed("ffmpeg") || !installed("ffprobe"))(
    "ffmpeg publishes H.264 and AAC by RTMP; the gateway's segments carry both",
    { timeout: 40_000 },
    async () => {
      const { g } = await network();
      const ffmpeg = spawn(
        "ffmpeg",
        [
          ...["-hide_banner", "-loglevel", "error", "-re"],
          ...["-f", "lavfi", "-i", "testsrc=size=128x72:rate=10", "-f", "lavfi", "-i", "sine=frequency=440"],
          ...["-t", "7", "-c:v", "libx264", "-preset", "ultrafast", "-g", "10", "-c:a", "aac", "-b:a", "32k"],
          ...["-f", "flv", `${g.sim.urls.rtmp}/live/ff`],
        ],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      let stderr = "";
      ffmpeg.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      const exited = new Promise<number | null>((r) => ffmpeg.on("exit", r));
      try {
        const playlist = await until(
          () => fetch(`${g.sim.urls.http}/stream/ff/source.m3u8`).then((r) => (r.ok ? r.text() : "")),
          (t) => t.includes("/stream/ff/source/1.ts"),
        );
        expect(playlist, stderr).toContain("/stream/ff/source/1.ts");
        const segment = Buffer.from(
          await (await fetch(`${g.sim.urls.http}/stream/ff/source/1.ts`)).arrayBuffer(),
        );
        const dir = mkdtempSync(path.join(tmpdir(), "rtmp-ff-"));
        try {
          const file = path.join(dir, "segment.ts");
          writeFileSync(file, segment);
          const { stdout } = await promisify(execFile)(
            "ffprobe",
            ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", file],
            { encoding: "utf8" },
          );
          expect(new Set(stdout.trim().split(/\n+/))).toEqual(new Set(["h264", "aac"]));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      } finally {
        if (ffmpeg.exitCode === null) ffmpeg.kill("SIGKILL");
        await exited;
      }
    },
  );
});
