// Live AI on the real control plane: an Orchestrator's spec.ai.live apps run as runner
// StatefulSets on the encoder-less A100 (kwok pods on loopback IPs, each served by the live
// runner simulator as `npm start` serves it: src/dev/live-runner-simulators.ts, configured from
// the pod's env alone), registered with the node statically (-liveRunnerConfig from an owned
// Secret: the node simulator polls each runner's health_url) or dynamically (-useLiveRunners,
// the orchestrator secret handed to the node and the runners, which heartbeat). The status reads
// the node's GET /discovery and the runners' /health; a runner whose health fails is named with
// the reason; removing an app removes its runners and its registration.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { liveRunnerSimulatorFactory } from "../../src/dev/live-runner-simulators.ts";
import { ConfigMaps, type KubeObject, Pods, Secrets, Services, StatefulSets } from "../../src/kube/index.ts";
import { readLiveDiscovery } from "../../src/node/client/index.ts";
import type { StoredGateway } from "../../src/schema/gateway.ts";
import { nodeHookPath } from "../../src/schema/node-hooks.ts";
import type { StoredOrchestrator } from "../../src/schema/orchestrator.ts";
import { Gateways } from "../../src/schema/resources.ts";
import { getOrchestrator } from "../../src/simulator/testing/wire.ts";
import { kubeClient, kubectl } from "./support/cluster.ts";
import { type NodeBed, startNodeBed } from "./support/node-bed.ts";
import { condition, orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();
const A100 = "NVIDIA-A100-SXM4-40GB";
/** go-livepeer's Capability_LiveVideoToVideo. */
const LIVE_CAPABILITY = 35;

let bed: NodeBed;

beforeAll(async () => {
  bed = await startNodeBed({
    name: "orch-live",
    nodes: ["gpu-a100", "cpu-only"],
    liveRunnerSimulator: liveRunnerSimulatorFactory(),
    doctorPeriodMs: 1_000,
  });
});
afterAll(async () => {
  await bed?.stop();
  await kc.close();
});

const context = () => bed.context(/live/i);
const kit = orchestratorKit(client, () => bed.ns.name, context);

type PodView = KubeObject & { spec?: { nodeName?: string }; status?: { podIP?: string } };
const livePods = (orch: string) =>
  client
    .list<PodView>(Pods, {
      namespace: bed.ns.name,
      labelSelector: `app.kubernetes.io/instance=${orch},app.kubernetes.io/component=live-runner`,
    })
    .then((l) => l.items.sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? "")));
const liveApps = (o: StoredOrchestrator) => o.status?.ai?.live ?? [];
const app = (o: StoredOrchestrator, id: string) => liveApps(o).find((a) => a.id === id);
const configOf = async (orch: string) =>
  (await client.get<KubeObject & { data: Record<string, string> }>(ConfigMaps, bed.ns.name, `${orch}-config`))
    .data["livepeer.conf"]!;

const noop = (replicas: number) => ({
  id: "noop",
  gpus: 1,
  gpuProduct: A100,
  replicas,
  price: { usd: "0.50", unit: "hour" },
  warmUpSeconds: 30,
});
const second = { id: "second", gpus: 1, gpuProduct: A100, replicas: 1, price: { usd: "1", unit: "fixed" } };

describe("static registration", () => {
  it("runs each app's runners as a StatefulSet on the A100, behind a headless Service", async () => {
    await kit.apply("live", { ai: { only: true, live: { apps: [noop(2), second] } } }, bed.pool);
    let pods: PodView[] = [];
    await waitFor(
      "three live runner pods placed",
      async () => {
        pods = await livePods("live");
        return pods.length === 3 && pods.every((p) => !!p.spec?.nodeName);
      },
      60_000,
      context,
    );
    expect(pods.map((p) => p.metadata?.name)).toEqual([
      "live-live-noop-0",
      "live-live-noop-1",
      "live-live-second-0",
    ]);
    for (const p of pods) expect(p.spec?.nodeName).toBe(`${bed.pool.name}-gpu-a100`);
    const sets = await client.list<KubeObject & { spec: { replicas: number; serviceName: string } }>(
      StatefulSets,
      {
        namespace: bed.ns.name,
        labelSelector: "app.kubernetes.io/instance=live,app.kubernetes.io/component=live-runner",
      },
    );
    expect(sets.items.map((s) => [s.metadata?.name, s.spec.replicas, s.spec.serviceName]).sort()).toEqual([
      ["live-live-noop", 2, "live-live-noop"],
      ["live-live-second", 1, "live-live-second"],
    ]);
    const svc = await client.get<KubeObject & { spec: { clusterIP: string } }>(
      Services,
      bed.ns.name,
      "live-live-noop",
    );
    expect(svc.spec.clusterIP).toBe("None");
  }, 180_000);

  it("renders -liveRunnerConfig into an owned Secret, one entry per runner pod, and starts the node with it", async () => {
    const secret = await client.get<KubeObject & { data: Record<string, string> }>(
      Secrets,
      bed.ns.name,
      "live-live-runners",
    );
    expect(secret.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Orchestrator", name: "live" });
    const config = JSON.parse(Buffer.from(secret.data["liveRunners.json"]!, "base64").toString()) as {
      runners: Record<string, unknown>[];
    };
    expect(config.runners.map((r) => [r.label, r.runner_url, r.health_url, r.app, r.capacity])).toEqual([
      ...[0, 1].map((i) => [
        `live-live-noop-${i}`,
        `http://live-live-noop-${i}.live-live-noop.${bed.ns.name}.svc.cluster.local:8000`,
        "/health",
        "live-video-to-video/noop",
        1,
      ]),
      [
        "live-live-second-0",
        `http://live-live-second-0.live-live-second.${bed.ns.name}.svc.cluster.local:8000`,
        "/health",
        "live-video-to-video/second",
        1,
      ],
    ]);
    expect(config.runners[0]?.price_info).toEqual({ price: 0.5, currency: "usd", unit: "hour" });
    const conf = await configOf("live");
    expect(conf).toMatch(/^liveRunnerConfig \/var\/run\/secrets\/livepeer\/live-runners\/liveRunners.json$/m);
    expect(conf).not.toMatch(/^useLiveRunners$/m);
  }, 180_000);

  it("LiveAIReady once the node offers every runner; status.ai.live counts them per app", async () => {
    const o = await kit.until("live", (x) => condition(x, "LiveAIReady")?.status === "True", 120_000);
    expect(app(o, "noop")).toMatchObject({
      app: "live-video-to-video/noop",
      desired: 2,
      registered: 2,
      healthy: 2,
      inSession: 0,
      capacity: 2,
      price: "0.50 USD/hour",
      ready: true,
    });
    expect(app(o, "second")).toMatchObject({ desired: 1, healthy: 1, price: "1 USD/fixed" });
    expect(condition(o, "LiveAIReady")?.message).toMatch(
      /live-video-to-video\/noop \(2 runner\(s\), 0.50 USD\/hour\)/,
    );
    expect(o.status?.maxSessionsReason).toMatch(
      /live AI: 3 session\(s\) on 3 runner pod\(s\) with 3 GPU\(s\)/,
    );
  }, 180_000);

  it("a runner whose health fails is named with the reason, and comes back", async () => {
    const [pod] = await livePods("live");
    const steer = (body: unknown) =>
      fetch(`http://${pod!.status!.podIP}:8000/__sim/actions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(5_000),
      }).then((r) => expect(r.status).toBe(200));
    await steer({ fail: true });
    const o = await kit.until("live", (x) => app(x, "noop")?.healthy === 1, 60_000);
    expect(condition(o, "LiveAIReady")).toMatchObject({ status: "False", reason: "RunnersNotHealthy" });
    expect(app(o, "noop")?.reason).toMatch(/live-live-noop-0: health failing/);
    await steer({ fail: false });
    await kit.until("live", (x) => condition(x, "LiveAIReady")?.status === "True", 60_000);
  }, 180_000);

  it("removing an app removes its runners and its registration", async () => {
    await kit.apply("live", { ai: { only: true, live: { apps: [noop(2)] } } }, bed.pool);
    await waitFor(
      "the second app's StatefulSet, Service and pod gone",
      async () => {
        const gone = (p: Promise<unknown>) =>
          p.then(
            () => false,
            () => true,
          );
        return (
          (await gone(client.get(StatefulSets, bed.ns.name, "live-live-second"))) &&
          (await gone(client.get(Services, bed.ns.name, "live-live-second"))) &&
          (await livePods("live")).every((p) => !p.metadata?.name?.startsWith("live-live-second"))
        );
      },
      60_000,
      context,
    );
    const secret = await client.get<KubeObject & { data: Record<string, string> }>(
      Secrets,
      bed.ns.name,
      "live-live-runners",
    );
    const text = Buffer.from(secret.data["liveRunners.json"]!, "base64").toString();
    expect(text).not.toContain("second");
    const o = await kit.until(
      "live",
      (x) => liveApps(x).length === 1 && condition(x, "LiveAIReady")?.status === "True",
      120_000,
    );
    expect(liveApps(o).map((a) => a.id)).toEqual(["noop"]);
    // The node itself no longer offers the app: neither in GetOrchestrator (what the SDK's
    // start_lv2v selects by) nor in GET /discovery.
    let offered: { models: string[]; runners: string[] } | undefined;
    await waitFor(
      "the node offering noop alone",
      async () => {
        const node = await client.get<PodView>(Pods, bed.ns.name, "live-0");
        const url = `https://${node.status?.podIP}:8935`;
        try {
          const info = await getOrchestrator(url);
          const runners = await readLiveDiscovery(url, { timeoutMs: 2_000 });
          offered = {
            models: Object.keys(
              info.capabilities?.constraints?.PerCapability?.[LIVE_CAPABILITY]?.models ?? {},
            ),
            runners: runners.map((r) => `${r.route} ${r.app}`).sort(),
          };
        } catch {
          return false;
        }
        return offered.models.join() === "noop" && offered.runners.length === 2;
      },
      60_000,
      () => `${JSON.stringify(offered)}\n${context()}`,
    );
    expect(offered?.runners).toEqual([
      "live-live-noop-0 live-video-to-video/noop",
      "live-live-noop-1 live-video-to-video/noop",
    ]);
  }, 180_000);
});

describe("a Gateway declaring live apps", () => {
  const readGateway = () => client.get<StoredGateway>(Gateways, bed.ns.name, "gw").catch(() => undefined);
  const finding = (g: StoredGateway | undefined) =>
    g?.status?.findings?.find((f) => f.id === "NoLiveCapableOrchestrator");

  it("is given the live orchestrator with its app, warns for an app none offers, and its discovery filters by the SDK's caps", async () => {
    await kubectl(["label", "orchestrator", "live", "-n", bed.ns.name, "pool=gw-live", "--overwrite"]);
    const body = {
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Gateway",
      metadata: { name: "gw", namespace: bed.ns.name },
      spec: {
        podTemplate: { nodeSelector: bed.pool.nodeSelector, tolerations: bed.pool.tolerations },
        orchestrators: { selector: { matchLabels: { pool: "gw-live" } } },
        ai: { liveApps: ["noop", "comfyui"] },
      },
    };
    await kubectl(["apply", "--server-side", "--field-manager=test", "-f", "-"], JSON.stringify(body));
    let gw: StoredGateway | undefined;
    await waitFor(
      "Gateway gw given live with its capabilities, and the finding",
      async () => {
        gw = await readGateway();
        const given = gw?.status?.orchestrators?.find((o) => o.name === "live");
        return !!given?.capabilities?.includes("live-video-to-video/noop") && !!finding(gw);
      },
      120_000,
      () => `${JSON.stringify(gw?.status, null, 1)}\n${context()}`,
    );
    expect(finding(gw)?.message).toMatch(
      /offers live-video-to-video\/comfyui: live sessions for it are refused/,
    );
    expect(finding(gw)?.message).not.toMatch(/live-video-to-video\/noop/);
    // The discovery hook as the SDK's discover_orchestrators(discovery_url=...) calls it.
    const secret = await client.get<KubeObject & { data: Record<string, string> }>(
      Secrets,
      bed.ns.name,
      "gw-node-hooks",
    );
    const token = Buffer.from(secret.data.token!, "base64").toString();
    const hook = `${new URL(bed.api.url).origin}${nodeHookPath(bed.ns.name, "gw", "orchestrators")}?token=${encodeURIComponent(token)}`;
    const ask = async (caps: string) => {
      const res = await fetch(`${hook}${caps}`, { signal: AbortSignal.timeout(5_000) });
      expect(res.status).toBe(200);
      return ((await res.json()) as { address: string }[]).length;
    };
    expect(await ask("&caps=live-video-to-video/noop")).toBe(1);
    expect(await ask("&caps=live-video-to-video/comfyui")).toBe(0);
    expect(await ask("&caps=live-video-to-video/comfyui&caps=live-video-to-video/noop")).toBe(1);
  }, 180_000);
});

describe("dynamic registration", () => {
  it("hands the orchestrator secret to the node and the runners; the runners heartbeat and are offered", async () => {
    await kit.apply(
      "dyn",
      { ai: { only: true, live: { registration: "dynamic", apps: [noop(1)] } } },
      bed.pool,
    );
    const o = await kit
      .until("dyn", (x) => condition(x, "LiveAIReady")?.status === "True", 120_000)
      .catch(async (err: Error) => {
        const logs = async (pod: string) =>
          kubectl(["logs", "-n", bed.ns.name, pod, "--tail=30"]).catch((e: Error) => e.message);
        throw new Error(
          `${err.message}\nrunner:\n${await logs("dyn-live-noop-0")}\nnode:\n${await logs("dyn-0")}`,
        );
      });
    expect(app(o, "noop")).toMatchObject({ desired: 1, registered: 1, healthy: 1 });
    const conf = await configOf("dyn");
    expect(conf).toMatch(/^useLiveRunners$/m);
    expect(conf).toMatch(/^orchSecret \/var\/run\/secrets\/livepeer\/orch-secret\/secret$/m);
    expect(conf).toMatch(
      new RegExp(
        `^liveRunnerAddr https://dyn-0\\.dyn-pods\\.${bed.ns.name}\\.svc\\.cluster\\.local:8935$`,
        "m",
      ),
    );
    expect(conf).not.toMatch(/^liveRunnerConfig/m);
    const [pod] = await livePods("dyn");
    const env = (
      await client.get<
        KubeObject & { spec: { containers: { env: { name: string; valueFrom?: unknown }[] }[] } }
      >(Pods, bed.ns.name, pod!.metadata!.name!)
    ).spec.containers[0]!.env;
    expect(env.find((e) => e.name === "ORCH_SECRET")?.valueFrom).toEqual({
      secretKeyRef: { name: "dyn-orch-secret", key: "secret" },
    });
    await expect(client.get(Secrets, bed.ns.name, "dyn-live-runners")).rejects.toThrow();
  }, 180_000);

  it("removing spec.ai.live removes its runners and the condition", async () => {
    await kit.apply("dyn", { ai: { only: true } }, bed.pool);
    await waitFor(
      "dyn's runner StatefulSet gone",
      async () =>
        client.get(StatefulSets, bed.ns.name, "dyn-live-noop").then(
          () => false,
          () => true,
        ),
      60_000,
      context,
    );
    const o = await kit.until("dyn", (x) => !condition(x, "LiveAIReady") && !x.status?.ai?.live, 60_000);
    expect(o.status?.ai?.live).toBeUndefined();
  }, 180_000);
});

describe("bad live apps", () => {
  it.each([
    [
      "replicas with onePerGpu",
      { id: "sd", replicas: 2, onePerGpu: true, price: { usd: "1" } },
      /live app sd sets both replicas and onePerGpu: true; keep one of them/,
    ],
    ["a price of 0", { id: "sd", price: { usd: "0.0" } }, /live price.usd is 0.0: it must be above 0/],
    [
      "onePerGpu without GPUs",
      { id: "sd", gpus: 0, onePerGpu: true, price: { usd: "1" } },
      /has onePerGpu: true but gpus: 0/,
    ],
  ])("are rejected at apply with the reason and the fix: %s", async (_, bad, message) => {
    const body = {
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Orchestrator",
      metadata: { name: "bad-live", namespace: bed.ns.name },
      spec: { ai: { only: true, live: { apps: [bad] } } },
    };
    const error = await kubectl(
      ["apply", "--server-side", "--field-manager=test", "-f", "-"],
      JSON.stringify(body),
    ).then(
      () => "",
      (err: Error) => err.message,
    );
    expect(error).toMatch(message);
  });
});
