// Live sessions through Orchestrators the controller made: two Orchestrators with spec.ai.live on
// the real control plane (kwok pods on loopback IPs: node pods run the node simulator, live runner
// pods the pass-through live runner simulator, as `npm start` serves them), and the official
// Python SDK (livepeer-gateway) as the client. start_lv2v starts a session on the cluster's node,
// a clip ffmpeg made is published over trickle and the runner's frames come back; the status
// counts the session; a full runner refuses the next one with the node's error and the SDK fails
// with it, or moves on to another orchestrator given one; removing an app removes its runners and
// the node stops offering it (GetOrchestrator, GET /discovery, start_lv2v). The nodes advertise
// their pods' cluster DNS names, which the SDK is told to look up as the pods' IPs (--resolve: the
// cluster DNS stand-in, as the simulator fleet has one).
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { liveRunnerSimulatorFactory } from "../../src/dev/live-runner-simulators.ts";
import { ensureMediaTools } from "../../src/dev/media-tools.ts";
import { ensureGatewaySdk, GATEWAY_DRIVER, type GatewaySdk } from "../../src/dev/python/environment.ts";
import { type KubeObject, Pods, Secrets, StatefulSets } from "../../src/kube/index.ts";
import { readLiveDiscovery } from "../../src/node/client/index.ts";
import type { StoredOrchestrator } from "../../src/schema/orchestrator.ts";
import { getOrchestrator } from "../../src/simulator/testing/wire.ts";
import { kubeClient, kubectl } from "./support/cluster.ts";
import { type NodeBed, startNodeBed } from "./support/node-bed.ts";
import { condition, orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();
const A100 = "NVIDIA-A100-SXM4-40GB";
/** go-livepeer's Capability_LiveVideoToVideo. */
const LIVE_CAPABILITY = 35;

let bed: NodeBed;
let sdk: GatewaySdk;
let clip: Buffer;

beforeAll(async () => {
  const [s] = await Promise.all([ensureGatewaySdk(() => {}), ensureMediaTools()]);
  sdk = s;
  // Two seconds of a 320x240 test pattern at 30 fps, H.264 in MPEG-TS.
  clip = execFileSync("ffmpeg", [
    ...["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30"],
    ...["-t", "2", "-c:v", "libx264", "-g", "15", "-pix_fmt", "yuv420p", "-f", "mpegts", "pipe:1"],
  ]);
  bed = await startNodeBed({
    name: "orch-live-sdk",
    nodes: ["gpu-a100", "cpu-only"],
    liveRunnerSimulator: liveRunnerSimulatorFactory(),
    doctorPeriodMs: 1_000,
  });
}, 600_000);
afterAll(async () => {
  await bed?.stop();
  await kc.close();
});

const context = () => bed.context(/live/i);
const kit = orchestratorKit(client, () => bed.ns.name, context);
const app = (o: StoredOrchestrator, id: string) => o.status?.ai?.live?.find((a) => a.id === id);
const liveApp = (id: string) => ({
  id,
  gpus: 1,
  gpuProduct: A100,
  replicas: 1,
  price: { usd: "0.50", unit: "hour" },
});

/** The node as the SDK reaches it: its advertised service URI, and its pod's DNS name -> IP. */
interface NodeAddress {
  url: string;
  ip: string;
  resolve: string;
}
async function nodeOf(orch: string): Promise<NodeAddress> {
  const o = await kit.read(orch);
  const pod = await client.get<KubeObject & { status?: { podIP?: string } }>(Pods, bed.ns.name, `${orch}-0`);
  const address = o?.status?.serviceAddr;
  const ip = pod.status?.podIP;
  if (!address || !ip) throw new Error(`${orch}: no serviceAddr (${address}) or pod IP (${ip}) yet`);
  const host = address.replace(/:\d+$/, "");
  return { url: `https://${address}`, ip, resolve: `${host}:${ip}` };
}
const dialled = (n: NodeAddress) => `https://${n.ip}:8935`;

async function driver(args: string[], nodes: NodeAddress[], input = "") {
  const resolve = nodes.flatMap((n) => ["--resolve", n.resolve]);
  const r = await sdk.run(GATEWAY_DRIVER, [...args, ...resolve], { timeoutMs: 120_000, input });
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1) || "{}") as Record<string, unknown>;
  return { code: r.code, out, stderr: r.stderr };
}
const logs = (pod: string) =>
  kubectl(["logs", "-n", bed.ns.name, pod, "--tail=200"]).catch((e: Error) => e.message);
const offeredModels = async (n: NodeAddress) =>
  Object.keys(
    (await getOrchestrator(dialled(n))).capabilities?.constraints?.PerCapability?.[LIVE_CAPABILITY]?.models ??
      {},
  ).sort();

let a: NodeAddress;
let b: NodeAddress;

describe("live sessions through the cluster's orchestrators", () => {
  it("both Orchestrators become LiveAIReady with their runners offered", async () => {
    await kit.apply(
      "lva",
      { ai: { only: true, live: { apps: [liveApp("noop"), liveApp("extra")] } } },
      bed.pool,
    );
    await kit.apply("lvb", { ai: { only: true, live: { apps: [liveApp("noop")] } } }, bed.pool);
    for (const name of ["lva", "lvb"])
      await kit.until(name, (x) => condition(x, "LiveAIReady")?.status === "True", 180_000);
    a = await nodeOf("lva");
    b = await nodeOf("lvb");
    expect(a.url).toBe(`https://lva-0.lva-pods.${bed.ns.name}.svc.cluster.local:8935`);
    expect(await offeredModels(a)).toEqual(["extra", "noop"]);
    expect(await offeredModels(b)).toEqual(["noop"]);
  }, 300_000);

  it("start_lv2v on the cluster's orchestrator publishes a clip and gets the runner's frames back", async () => {
    const r = await driver(
      ["lv2v", "--orch-url", dialled(a), "--model-id", "noop", "--control", '{"prompt": "a test"}'],
      [a],
      clip.toString("base64"),
    );
    const why = async () =>
      `${JSON.stringify(r.out)}\n${r.stderr.slice(-2000)}\nnode:\n${await logs("lva-0")}\nrunner:\n${await logs("lva-live-noop-0")}`;
    expect(r.code, await why()).toBe(0);
    const job = r.out.job as Record<string, string>;
    // The node's own service URI (its pod's DNS name), as go-livepeer answers with it.
    expect(job.publish_url).toBe(`${a.url}/ai/trickle/${job.manifest_id}`);
    expect(job.subscribe_url).toBe(`${a.url}/ai/trickle/${job.manifest_id}-out`);
    expect(r.out.published).toBe(60);
    expect(r.out.received as number, await why()).toBeGreaterThan(0);
    expect(r.out.sizes).toEqual(["320x240"]);
    expect(r.out.event).toMatchObject({ event: { type: "runner_receive_stream_request" } });
    // The session went through the node to the runner pod the controller made.
    expect(await logs("lva-live-noop-0")).toContain(
      "Received control message with params: {'prompt': 'a test'}",
    );
    expect(await logs("lva-0")).toContain("Processed request cap=Live video to video modelID=noop");
    // The client closed its input: the session ends and the status says the runner is free.
    const o = await kit.until("lva", (x) => app(x, "noop")?.inSession === 0, 60_000);
    expect(app(o, "noop")).toMatchObject({ healthy: 1, ready: true });
  }, 300_000);

  it("removing an app removes its runners and the node no longer offers it", async () => {
    await kit.apply("lva", { ai: { only: true, live: { apps: [liveApp("noop")] } } }, bed.pool);
    await waitFor(
      "lva's extra StatefulSet gone, and its node offering noop alone",
      async () => {
        const setGone = await client.get(StatefulSets, bed.ns.name, "lva-live-extra").then(
          () => false,
          () => true,
        );
        if (!setGone) return false;
        try {
          a = await nodeOf("lva");
          const runners = await readLiveDiscovery(dialled(a), { timeoutMs: 2_000 });
          return (
            JSON.stringify(await offeredModels(a)) === '["noop"]' &&
            runners.length === 1 &&
            runners[0]?.app === "live-video-to-video/noop"
          );
        } catch {
          return false;
        }
      },
      120_000,
      context,
    );
    const secret = await client.get<KubeObject & { data: Record<string, string> }>(
      Secrets,
      bed.ns.name,
      "lva-live-runners",
    );
    expect(Buffer.from(secret.data["liveRunners.json"]!, "base64").toString()).not.toContain("extra");
    // The SDK finds no orchestrator for the removed app, and still starts the other.
    const gone = await driver(["lv2v-start", "--orch-url", dialled(a), "--model-id", "extra"], [a]);
    expect(gone.code, JSON.stringify(gone.out)).toBe(1);
    expect(gone.out.type).toBe("NoOrchestratorAvailableError");
    const o = await kit.until(
      "lva",
      (x) => (x.status?.ai?.live ?? []).length === 1 && condition(x, "LiveAIReady")?.status === "True",
      60_000,
    );
    expect(app(o, "noop")).toMatchObject({ desired: 1, healthy: 1 });
  }, 300_000);

  it("a full runner refuses the next session with the node's error, and the SDK fails with it", async () => {
    const first = await driver(["lv2v-start", "--orch-url", dialled(b), "--model-id", "noop"], [b]);
    expect(first.code, `${JSON.stringify(first.out)}\n${first.stderr.slice(-1500)}`).toBe(0);
    const o = await kit.until("lvb", (x) => app(x, "noop")?.inSession === 1, 60_000);
    expect(app(o, "noop")?.reason).toMatch(/capacity full: all 1 runner\(s\) in session/);
    const second = await driver(["lv2v-start", "--orch-url", dialled(b), "--model-id", "noop"], [b]);
    expect(second.code, JSON.stringify(second.out)).toBe(1);
    expect(second.out.type).toBe("NoOrchestratorAvailableError");
    expect(JSON.stringify(second.out.rejections)).toContain("insufficient capacity");
    expect(await logs("lvb-0")).toContain(
      "Insufficient capacity for pipeline=live-video-to-video modelID=noop",
    );
  }, 300_000);

  it("given a second orchestrator, the SDK moves on to it when the first is full", async () => {
    const r = await driver(
      ["lv2v-start", "--orch-url", dialled(b), dialled(a), "--model-id", "noop"],
      [a, b],
    );
    expect(r.code, `${JSON.stringify(r.out)}\n${r.stderr.slice(-1500)}`).toBe(0);
    const job = r.out.job as Record<string, string>;
    expect(job.publish_url).toBe(`${a.url}/ai/trickle/${job.manifest_id}`);
    // The new session is on lva's runner; lvb's first session holds its runner still.
    await kit.until("lva", (x) => app(x, "noop")?.inSession === 1, 60_000);
    expect(app((await kit.read("lvb"))!, "noop")?.inSession).toBe(1);
  }, 300_000);
});
