// The live runners an Orchestrator renders, against go-livepeer's contract: static registration
// as a -liveRunnerConfig document in an owned Secret (one entry per runner pod, its own runner_url
// and a root-relative health_url, a USD price), dynamic as -useLiveRunners with -orchSecret (a
// file of the generated orchestrator Secret the runners get too) and -liveRunnerAddr.
import type { V1StatefulSet } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { OrchestratorSchema, type StoredOrchestrator } from "../../schema/orchestrator.ts";
import type { NodeFacts } from "../node-status/facts.ts";
import { ORCH_SECRET_KEY } from "../orchestrator/names.ts";
import { planOrchestrator } from "../orchestrator/plan.ts";
import { LIVE_RUNNERS_FILE, liveRunnerSetName } from "./names.ts";

const A100 = "NVIDIA-A100-SXM4-40GB";
const nodes: NodeFacts[] = [
  {
    metadata: {
      name: "gpu-a100",
      labels: {
        "nvidia.com/gpu.present": "true",
        "nvidia.com/gpu.product": A100,
        "nvidia.com/gpu.count": "4",
        "nvidia.com/gpu.engines.encoder": "0",
      },
    },
  },
];

function orch(live: unknown): StoredOrchestrator {
  const parsed = OrchestratorSchema.parse({
    apiVersion: "livepeer.org/v1alpha1",
    kind: "Orchestrator",
    metadata: { name: "live" },
    spec: { ai: { only: true, live } },
  });
  return { ...parsed, metadata: { ...parsed.metadata, namespace: "video", uid: "u" } } as StoredOrchestrator;
}

const plan = (live: unknown) =>
  planOrchestrator({ orch: orch(live), nodes, defaultImage: "livepeer/go-livepeer:v0.9.0" });
const sd = { id: "streamdiffusion", gpuProduct: A100, replicas: 2, price: { usd: "0.50", unit: "hour" } };
const podSpec = (s: V1StatefulSet) => s.spec!.template.spec!;

describe("static registration", () => {
  const p = plan({ apps: [sd] });

  it("runs each app as a StatefulSet of runner pods on the A100 (no encoder needed), behind a headless Service", () => {
    expect(p.live.statefulSets.map((s) => [s.metadata?.name, s.spec?.replicas])).toEqual([
      ["live-live-streamdiffusion", 2],
    ]);
    const spec = podSpec(p.live.statefulSets[0]!);
    const c = spec.containers[0]!;
    expect(c.image).toBe("livepeer/ai-runner:live-app-streamdiffusion");
    expect(c.resources?.limits).toEqual({ "nvidia.com/gpu": "1" });
    expect(c.env?.filter((e) => e.value !== undefined).map((e) => [e.name, e.value])).toEqual([
      ["PIPELINE", "live-video-to-video"],
      ["MODEL_ID", "streamdiffusion"],
    ]);
    expect(c.startupProbe?.failureThreshold).toBe(24);
    const terms =
      spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
    expect(terms?.[0]?.matchExpressions).toContainEqual({
      key: "nvidia.com/gpu.product",
      operator: "In",
      values: [A100],
    });
    expect(JSON.stringify(terms)).not.toContain("gpu.engines.encoder");
    expect(p.live.services[0]?.spec).toMatchObject({ clusterIP: "None", publishNotReadyAddresses: true });
  });

  it("renders -liveRunnerConfig into an owned Secret: each runner's URL and health_url, the USD price", () => {
    const config = JSON.parse(p.live.secret!.stringData![LIVE_RUNNERS_FILE]!);
    const host = (i: number) =>
      `http://live-live-streamdiffusion-${i}.live-live-streamdiffusion.video.svc.cluster.local:8000`;
    expect(config.runners).toEqual(
      [0, 1].map((i) => ({
        label: `live-live-streamdiffusion-${i}`,
        routing: "label",
        runner_url: host(i),
        health_url: "/health",
        app: "live-video-to-video/streamdiffusion",
        mode: "persistent",
        capacity: 1,
        price_info: { price: 0.5, currency: "usd", unit: "hour" },
      })),
    );
    expect(p.live.secret?.metadata?.name).toBe("live-live-runners");
  });

  it("starts the node with -liveRunnerConfig from the mounted Secret, no -useLiveRunners", () => {
    expect(p.orchestratorFlags).toMatchObject({
      liveRunnerConfig: "/var/run/secrets/livepeer/live-runners/liveRunners.json",
    });
    expect(p.orchestratorFlags.useLiveRunners).toBeUndefined();
    // Live only (no -transcoder, no -aiWorker): go-livepeer exits without -orchSecret.
    expect(p.orchestratorFlags.orchSecret).toBe("/var/run/secrets/livepeer/orch-secret/secret");
    expect(p.problems).toEqual([]);
    const volumes = podSpec(p.statefulSets[0]!).volumes ?? [];
    expect(volumes.find((v) => v.name === "live-runners")?.secret?.secretName).toBe("live-live-runners");
  });

  it("a registration change rolls the node pod (it reads the file at start); the same spec does not", () => {
    const hash = (x: ReturnType<typeof plan>) =>
      x.statefulSets[0]!.spec!.template.metadata!.annotations!["livepeer.org/pod-hash"];
    expect(hash(plan({ apps: [sd] }))).toBe(hash(p));
    expect(hash(plan({ apps: [{ ...sd, replicas: 3 }] }))).not.toBe(hash(p));
  });

  it("says the live capacity beside the session limit", () => {
    expect(p.sessionLimit.reason).toMatch(/live AI: 2 session\(s\) on 2 runner pod\(s\) with 2 GPU\(s\)/);
  });
});

describe("dynamic registration", () => {
  const p = plan({ registration: "dynamic", apps: [sd] });

  it("starts the node with -useLiveRunners, -orchSecret (a file) and -liveRunnerAddr (in-cluster)", () => {
    expect(p.orchestratorFlags).toMatchObject({
      useLiveRunners: true,
      orchSecret: "/var/run/secrets/livepeer/orch-secret/secret",
      liveRunnerAddr: "https://live-0.live-pods.video.svc.cluster.local:8935",
    });
    expect(p.orchestratorFlags.liveRunnerConfig).toBeUndefined();
    expect(p.live.secret).toBeUndefined();
    expect(p.orchSecretName).toBe("live-orch-secret");
    expect(p.problems).toEqual([]);
  });

  it("hands the same orchestrator secret to the runners, with where and as what to register", () => {
    const env = podSpec(p.live.statefulSets[0]!).containers[0]!.env ?? [];
    expect(env.find((e) => e.name === "ORCH_SECRET")?.valueFrom?.secretKeyRef).toEqual({
      name: "live-orch-secret",
      key: ORCH_SECRET_KEY,
    });
    const values = Object.fromEntries(env.filter((e) => e.value).map((e) => [e.name, e.value]));
    expect(values).toMatchObject({
      ORCH_URL: "https://live-0.live-pods.video.svc.cluster.local:8935",
      RUNNER_ID: "$(POD_NAME)",
      RUNNER_URL: "http://$(POD_NAME).live-live-streamdiffusion.video.svc.cluster.local:8000",
      CAPACITY: "1",
      PRICE: "0.50",
      PRICE_UNIT: "hour",
    });
  });
});

describe("names", () => {
  it.each([
    ["live", "sd", "live-live-sd"],
    [
      "an-orchestrator-with-a-long-name",
      "streamdiffusion-sdxl",
      /^an-orchestrator-with-a-long-name-live-streamd-[0-9a-f]{6}$/,
    ],
  ])("%s / %s", (o, id, want) => {
    const name = liveRunnerSetName(o, id);
    expect(name.length).toBeLessThanOrEqual(52);
    if (typeof want === "string") expect(name).toBe(want);
    else expect(name).toMatch(want);
  });
});

describe("a dual orchestrator with static live runners", () => {
  it("transcodes itself, so it needs no orchestrator secret", () => {
    const o = orch({ apps: [sd] });
    o.spec.ai!.only = false;
    const p = planOrchestrator({ orch: o, nodes, defaultImage: "livepeer/go-livepeer:v0.9.0" });
    expect(p.orchestratorFlags.transcoder).toBe(true);
    expect(p.orchestratorFlags.orchSecret).toBeUndefined();
    expect(p.orchSecretName).toBeUndefined();
    expect(p.problems).toEqual([]);
  });
});
