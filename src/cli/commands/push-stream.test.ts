// `livepeer-operator push-stream` through the CLI's own entry point against simulated nodes on
// loopback (a gateway and an orchestrator talking real HTTP): what a user sees and the exit code.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type NodeSimulator, startNodeSimulator } from "../../simulator/simulator.ts";
import { main } from "../main.ts";

const running: NodeSimulator[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

const PORTS = ["-cliAddr=127.0.0.1:0", "-httpAddr=127.0.0.1:0"];

async function sim(argv: string[]): Promise<NodeSimulator> {
  const s = await startNodeSimulator({ argv, log: () => undefined });
  running.push(s);
  return s;
}

async function gatewayWithOrchestrator(): Promise<NodeSimulator> {
  const orch = await sim([
    "-orchestrator",
    "-transcoder",
    "-serviceAddr=127.0.0.1:8935",
    "-startupAvailabilityCheck=false",
    ...PORTS,
  ]);
  return sim(["-gateway", ...PORTS, "-rtmpAddr=127.0.0.1:0", `-orchAddr=${orch.urls.http}`]);
}

/** Runs the CLI, collecting what it writes. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
  const code = await main(args);
  vi.restoreAllMocks();
  return { code, out, err };
}

describe("push-stream against a simulated gateway", () => {
  it("HTTP ingest: each segment's answer, then the HLS playlist, which plays", async () => {
    const g = await gatewayWithOrchestrator();
    const r = await cli(["push-stream", "--url", g.urls.http!, "--segments", "3", "--no-realtime"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^segment 0: 200 transcoded in \d+ ms\nsegment 1: 200 .*\nsegment 2: 200 /);
    const playlist = `${g.urls.http}/stream/test-stream.m3u8`;
    expect(r.out).toContain(`3 of 3 segments transcoded\nHLS playlist: ${playlist}`);
    const master = await fetch(playlist);
    expect(master.status).toBe(200);
    expect(await master.text()).toMatch(/^#EXTM3U[\s\S]*test-stream\/source\.m3u8/);
  });

  it("a gateway with no orchestrator: exit 1 with its answer and where to look", async () => {
    const lonely = await sim(["-gateway", ...PORTS]);
    const r = await cli(["push-stream", "--url", lonely.urls.http!, "--segments", "2", "--no-realtime"]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^segment 0: 503 refused in \d+ ms: No sessions available\n/);
    expect(r.err).toMatch(
      /no segment was transcoded: the gateway answered 503 "No sessions available" \(segment 1\).*kubectl get gw/,
    );
  });

  it("RTMP: segments are reported as the HLS playlists name them", async () => {
    const g = await gatewayWithOrchestrator();
    const rtmpPort = new URL(g.urls.rtmp!.replace(/^rtmp:/, "http:")).port;
    const r = await cli([
      "push-stream",
      "--url",
      g.urls.http!,
      "--rtmp",
      "--rtmp-port",
      rtmpPort,
      "--name",
      "cam",
      "--segments",
      "3",
    ]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain(`publishing rtmp://127.0.0.1:${rtmpPort}/live/cam\n`);
    expect(r.out).toMatch(/segment 0: in the HLS playlist \(source, /);
  });

  it("a gateway that does not answer: exit 1 naming the address", async () => {
    const g = await sim(["-gateway", ...PORTS]);
    const url = g.urls.http!;
    await g.stop();
    running.splice(running.indexOf(g), 1);
    const r = await cli(["push-stream", "--url", url, "--segments", "1"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`cannot reach the gateway at ${url} (ECONNREFUSED)`);
  });

  it("--gateway with a cluster that does not answer: exit 1 naming the Gateway (namespace from the context) and the kubeconfig", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "push-stream-"));
    const file = path.join(dir, "kubeconfig");
    // Port 1 on loopback: nothing listens there.
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [
          { name: "c", cluster: { server: "https://127.0.0.1:1", "insecure-skip-tls-verify": true } },
        ],
        contexts: [{ name: "c", context: { cluster: "c", user: "u", namespace: "video" } }],
        "current-context": "c",
        users: [{ name: "u", user: { token: "t" } }],
      }),
    );
    try {
      const r = await cli(["push-stream", "--gateway", "main", "--kubeconfig", file]);
      expect(r.code).toBe(1);
      expect(r.err).toContain(`cannot read Gateway video/main and its pod through the kubeconfig (${file})`);
      expect(r.err).toContain("ECONNREFUSED");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
