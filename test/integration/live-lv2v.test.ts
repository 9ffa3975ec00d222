// Live video-to-video end to end on loopback: a simulated orchestrator with live runners on
// (-useLiveRunners -orchSecret), a live runner simulator that registers by heartbeat with a
// pass-through pipeline, and the official Python SDK (livepeer-gateway, installed by the suite) as
// the client: start_lv2v starts a session, MediaPublish publishes a clip ffmpeg made over trickle,
// and media_output() decodes the frames the runner passed back. A runner whose capacity is taken
// refuses the next session with the node's error, and the SDK fails with it.
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureMediaTools } from "../../src/dev/media-tools.ts";
import { ensureGatewaySdk, GATEWAY_DRIVER, type GatewaySdk } from "../../src/dev/python/environment.ts";
import { freePort } from "../../src/process/ports.ts";
import {
  type LiveRunnerSimulator,
  startLiveRunnerSimulator,
} from "../../src/simulator/live-runner/live-runner.ts";
import type { NodeSimulator } from "../../src/simulator/simulator.ts";
import { getOrchestrator, loopbackOrchestrator } from "../../src/simulator/testing/wire.ts";

const SECRET = "live-s3cret";
let sdk: GatewaySdk;
let orch: { sim: NodeSimulator; lines: string[] };
let runner: LiveRunnerSimulator;
const runnerLines: string[] = [];
let clip: Buffer;
let url: string;

beforeAll(async () => {
  const [s] = await Promise.all([ensureGatewaySdk(() => {}), ensureMediaTools()]);
  sdk = s;
  // Two seconds of a 320x240 test pattern at 30 fps, H.264 in MPEG-TS.
  clip = execFileSync("ffmpeg", [
    ...["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30"],
    ...["-t", "2", "-c:v", "libx264", "-g", "15", "-pix_fmt", "yuv420p", "-f", "mpegts", "pipe:1"],
  ]);
  const port = await freePort();
  orch = await loopbackOrchestrator(
    `-httpAddr=127.0.0.1:${port}`,
    `-serviceAddr=127.0.0.1:${port}`,
    "-useLiveRunners",
    `-orchSecret=${SECRET}`,
  );
  url = orch.sim.urls.http!;
  runner = startLiveRunnerSimulator({
    pipeline: "live-video-to-video",
    modelId: "noop",
    port: 0,
    orchUrl: url,
    orchSecret: SECRET,
    log: (l) => runnerLines.push(l),
  });
  await runner.registered;
}, 600_000);

afterAll(async () => {
  await runner?.stop();
  await orch?.sim.stop();
});

const context = () =>
  `orchestrator:\n${orch.lines.slice(-30).join("\n")}\nrunner:\n${runnerLines.slice(-30).join("\n")}`;

async function driver(args: string[], input = "") {
  const r = await sdk.run(GATEWAY_DRIVER, args, { timeoutMs: 120_000, input });
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1) || "{}") as Record<string, unknown>;
  return { code: r.code, out, stderr: r.stderr };
}

const liveCapacity = async () => {
  const info = await getOrchestrator(url);
  const model = info.capabilities?.constraints?.PerCapability?.[35]?.models?.noop;
  return { capacity: info.capabilities?.capacities?.[35], model };
};

describe("live video-to-video through the simulated network", () => {
  it("registers the runner and advertises its app in GetOrchestrator and /discovery", async () => {
    expect(runnerLines.join("\n")).toContain(`Live runner registration using orchestrator ${url}`);
    expect(orch.lines.join("\n")).toMatch(
      /INFO live runner registered runner_id=runner_\w+ app=live-video-to-video\/noop/,
    );
    const live = await liveCapacity();
    expect(live.capacity).toBe(1);
    expect(live.model).toMatchObject({ warm: true, capacity: 1, capacityInUse: 0 });
  });

  it("start_lv2v publishes a clip and gets the frames back from the pass-through runner", async () => {
    const r = await driver(
      ["lv2v", "--orch-url", url, "--model-id", "noop", "--control", '{"prompt": "a test"}'],
      clip.toString("base64"),
    );
    expect(r.code, `${JSON.stringify(r.out)}\n${r.stderr.slice(-2000)}\n${context()}`).toBe(0);
    const job = r.out.job as Record<string, string>;
    expect(job.publish_url).toBe(`${url}/ai/trickle/${job.manifest_id}`);
    expect(job.subscribe_url).toBe(`${url}/ai/trickle/${job.manifest_id}-out`);
    expect(job.control_url).toBe(`${url}/ai/trickle/${job.manifest_id}-control`);
    expect(job.events_url).toBe(`${url}/ai/trickle/${job.manifest_id}-events`);
    expect(r.out.published).toBe(60);
    // Every segment completed before the client closed comes back (the one still open goes with
    // the session): at least the first, at most all that were published.
    expect(r.out.received as number).toBeGreaterThan(0);
    expect(r.out.received as number).toBeLessThanOrEqual(60);
    expect(r.out.sizes).toEqual(["320x240"]);
    expect(runner.snapshot().segmentsPassed).toBeGreaterThan(0);
    // The events channel carries the runner's event; the control channel reached the runner.
    expect(r.out.event).toMatchObject({
      event: { type: "runner_receive_stream_request" },
      queue_event_type: "stream_trace",
    });
    expect(runnerLines.join("\n")).toContain("Received control message with params: {'prompt': 'a test'}");
    expect(orch.lines.join("\n")).toContain("Processed request cap=Live video to video modelID=noop");
    // The client closed its input channel: the session ends and the runner's slot is free again.
    await expect.poll(async () => (await liveCapacity()).model?.capacityInUse, { timeout: 15_000 }).toBe(0);
  }, 180_000);

  it("refuses a session on a full runner with the node's error, and the SDK fails with it", async () => {
    const first = await driver(["lv2v-start", "--orch-url", url, "--model-id", "noop"]);
    expect(first.code, `${JSON.stringify(first.out)}\n${context()}`).toBe(0);
    expect((await liveCapacity()).model?.capacityInUse).toBe(1);
    const second = await driver(["lv2v-start", "--orch-url", url, "--model-id", "noop"]);
    expect(second.code).toBe(1);
    expect(second.out.type).toBe("NoOrchestratorAvailableError");
    expect(JSON.stringify(second.out.rejections)).toContain("insufficient capacity");
    expect(orch.lines.join("\n")).toContain(
      "Insufficient capacity for pipeline=live-video-to-video modelID=noop",
    );
    expect(orch.lines.join("\n")).toContain("HTTP Response Error statusCode=503 err=insufficient capacity");
  }, 180_000);
});
