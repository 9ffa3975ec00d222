// Session-aware rollouts on the real control plane: kwok pods on loopback IPs served by node
// simulators, the Orchestrator controller in-process with a fast node doctor. A test opens a real
// transcode session on an orchestrator pod over the node's wire protocol (GetOrchestrator, then a
// segment on POST /segment; EndTranscodingSession ends it), which the node reports in /metrics
// (livepeer_current_sessions_total) and the controller's doctor reads. Then the spec changes what
// the node runs: its image (the pod template: the StatefulSet, updateStrategy OnDelete, gets a new
// revision, a new pod) or only its config file (the node restarted in place, its pod, node and GPUs
// kept; the fleet plays the liveness probe that restarts it), and spec.rollout decides when.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { gatewayController } from "../../src/controller/gateway/controller.ts";
import type { GatewayReconciler } from "../../src/controller/gateway/reconcile.ts";
import { orchestratorController } from "../../src/controller/orchestrator/controller.ts";
import type { OrchestratorReconciler } from "../../src/controller/orchestrator/reconcile.ts";
import type { Manager } from "../../src/controller/runtime/index.ts";
import { createNodePool, type NodePool } from "../../src/dev/cluster/fleet.ts";
import { defaultFleet } from "../../src/dev/cluster/nodes.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { type SimulatorFleet, startSimulatorFleet } from "../../src/dev/simulators.ts";
import { keyFor } from "../../src/kube/index.ts";
import { pushStream } from "../../src/media/push-stream.ts";
import { TestStream } from "../../src/media/test-stream.ts";
import { NodeConnection } from "../../src/node/wire/connection.ts";
import type { StoredGateway } from "../../src/schema/gateway.ts";
import type { StoredOrchestrator } from "../../src/schema/orchestrator.ts";
import { Gateways } from "../../src/schema/resources.ts";
import { encodeHeader, segmentHash } from "../../src/simulator/segment-protocol.ts";
import { kubeClient, kubeConfig, kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";
import { eventsAbout } from "./support/events.ts";
import { startTestManager } from "./support/manager.ts";
import { condition, isServing, orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();
let ns: Awaited<ReturnType<typeof testNamespace>>;
let manager: Manager;
let reconciler: OrchestratorReconciler | undefined;
let gatewayReconciler: GatewayReconciler | undefined;
let pool: NodePool;
let gpuPool: NodePool;
let sims: SimulatorFleet;
const simDir = mkdtempSync(path.join(tmpdir(), "rollouts-sims-"));
const simLog: string[] = [];
const controllerLog: string[] = [];
const sessions: Session[] = [];

beforeAll(async () => {
  ns = await testNamespace("rollouts");
  await installCrds(kubectl);
  pool = await createNodePool(kubeConfig(), `${ns.name}-cpu`, [
    defaultFleet.find((n) => n.name === "cpu-only")!,
  ]);
  gpuPool = await createNodePool(kubeConfig(), `${ns.name}-gpu`, [
    defaultFleet.find((n) => n.name === "gpu-rtx3090-a")!,
  ]);
  // A session lasts until the test ends it (the node's own timeout is 70 s without a segment).
  sims = startSimulatorFleet(kubeConfig(), simDir, (l) => simLog.push(l), {
    namespace: ns.name,
    // A gateway's stream ends 3 s after its last segment.
    timings: { sessionTimeoutMs: 600_000, streamTimeoutMs: 3_000 },
  });
  const doctor = { periodMs: 1_000, retryMs: 500, tickMs: 100, endpointTimeoutMs: 1_000 };
  const def = orchestratorController({ defaultImage: "livepeer/go-livepeer:test", doctor });
  const gw = gatewayController({ defaultImage: "livepeer/go-livepeer:test", doctor });
  manager = await startTestManager(
    "rollouts-test",
    ns.name,
    [
      { ...def, setup: (ctx) => (reconciler = def.setup(ctx) as OrchestratorReconciler) },
      { ...gw, setup: (ctx) => (gatewayReconciler = gw.setup(ctx) as GatewayReconciler) },
    ],
    controllerLog,
  );
});
afterEach((ctx) => {
  for (const s of sessions.splice(0)) s.close();
  if (ctx.task.result?.state === "fail") {
    process.stderr.write(
      `--- controller ---\n${controllerLog.slice(-40).join("\n")}\n--- simulators ---\n${simLog.slice(-20).join("\n")}\n`,
    );
  }
  controllerLog.length = 0;
  simLog.length = 0;
});
afterAll(async () => {
  await manager?.stop("tests done");
  await sims?.stop();
  await pool?.delete();
  await gpuPool?.delete();
  await ns?.remove();
  await kc.close();
  rmSync(simDir, { recursive: true, force: true });
});

const kit = orchestratorKit(
  client,
  () => ns.name,
  () => controllerLog.slice(-10).join("\n"),
);
const { until } = kit;
const apply = (name: string, spec: Record<string, unknown>) => kit.apply(name, spec, pool);
/** A new node release: a new revision of its StatefulSet, a new pod. */
const CHANGED = { image: "livepeer/go-livepeer:test-next" };
/** A change in the node's config file only (its renditions): its node restarted in place. */
const RECONFIGURED = { transcodingOptions: "P144p30fps16x9" };

interface PodView {
  uid: string;
  ip: string;
  ready: boolean;
  revision: string;
  node: string;
  restarts: number;
}

async function pod(name: string): Promise<PodView | undefined> {
  const out = await kubectl(["get", "pod", name, "-n", ns.name, "-o", "json"]).catch(() => "");
  if (!out) return undefined;
  const p = JSON.parse(out);
  if (p.metadata.deletionTimestamp) return undefined;
  return {
    uid: p.metadata.uid,
    ip: p.status?.podIP ?? "",
    ready: (p.status?.conditions ?? []).some(
      (c: { type: string; status: string }) => c.type === "Ready" && c.status === "True",
    ),
    revision: p.metadata.labels?.["controller-revision-hash"] ?? "",
    node: p.spec?.nodeName ?? "",
    restarts: p.status?.containerStatuses?.[0]?.restartCount ?? 0,
  };
}

async function untilPod(name: string, ok: (p: PodView) => boolean, what: string): Promise<PodView> {
  let last: PodView | undefined;
  await waitFor(
    `pod ${name}: ${what}`,
    async () => {
      last = await pod(name);
      return !!last && ok(last);
    },
    60_000,
    () => JSON.stringify(last),
  );
  return last!;
}

async function updateRevision(sts: string): Promise<string> {
  return JSON.parse(await kubectl(["get", "sts", sts, "-n", ns.name, "-o", "json"])).status.updateRevision;
}

async function untilEvent(name: string, reason: string, pattern: RegExp): Promise<string> {
  let notes: string[] = [];
  await waitFor(
    `an Event ${reason} about ${name} matching ${pattern}`,
    async () => {
      notes = (await eventsAbout(client, ns.name, name))
        .filter((e) => e.reason === reason)
        .map((e) => e.note ?? "");
      return notes.some((n) => pattern.test(n));
    },
    30_000,
    () => JSON.stringify(notes),
  );
  return notes.find((n) => pattern.test(n))!;
}

interface Session {
  end(): Promise<void>;
  close(): void;
}

/** A transcode session on an orchestrator pod, as a gateway opens one: its first segment. */
async function openSession(ip: string): Promise<Session> {
  const connection = new NodeConnection(`https://${ip}:8935`, "any");
  const info = await connection.call(
    "GetOrchestrator",
    { type: "OrchestratorRequest", value: { address: Buffer.alloc(0) } },
    "OrchestratorInfo",
  );
  const body = Buffer.from(new TestStream({ segmentSeconds: 2 }).segment(0));
  const headers = {
    "content-type": "video/MP2T",
    "livepeer-segment": encodeHeader("SegData", {
      manifestId: Buffer.from("rollout-test"),
      seq: 0,
      hash: segmentHash(body),
      duration: 2000,
      ...(info.authToken ? { authToken: info.authToken } : {}),
      fullProfiles3: [
        { name: "P240p30fps16x9", width: 426, height: 240, bitrate: 600_000, fps: 30, fpsDen: 1 },
      ],
    }),
    "livepeer-payment": encodeHeader("Payment", {
      sender: Buffer.from("3333333333333333333333333333333333333333", "hex"),
    }),
  };
  const r = await connection.request("POST", "/segment", headers, body);
  expect(r.status).toBe(200);
  const session = {
    end: async () => {
      await connection.call(
        "EndTranscodingSession",
        { type: "EndTranscodingSessionRequest", value: { authToken: info.authToken } },
        "EndTranscodingSessionResponse",
      );
    },
    close: () => connection.close(),
  };
  sessions.push(session);
  return session;
}

/** Waits until the controller's own node doctor has read `sessions` on the pod (its freshest reading). */
async function untilDoctorReads(orch: string, podName: string, sessions: number): Promise<void> {
  await waitFor(
    `the node doctor reads ${sessions} session(s) on ${podName}`,
    async () =>
      [...reconciler!.doctor.latestReadings(keyFor(ns.name, orch)).values()].some(
        (r) => r.pod === podName && r.sessions === sessions,
      ),
    30_000,
  );
}

const rollout = (o: StoredOrchestrator) => condition(o, "RolloutPending");
const atGeneration = (o: StoredOrchestrator) => o.status?.observedGeneration === o.metadata?.generation;

/** Two Orchestrators Ready, one of them with a session open; returns their pods. */
async function busyAndIdle(busy: string, idle: string, spec: Record<string, unknown>) {
  await Promise.all([apply(busy, spec), apply(idle, spec)]);
  await Promise.all([until(busy, isServing), until(idle, isServing)]);
  const [busyPod, idlePod] = [await pod(`${busy}-0`), await pod(`${idle}-0`)];
  const session = await openSession(busyPod!.ip);
  await untilDoctorReads(busy, `${busy}-0`, 1);
  return { busyPod: busyPod!, idlePod: idlePod!, session };
}

describe("spec.rollout.strategy whenIdle (the default)", () => {
  it("replaces the idle pod at once; the busy one keeps its revision while its session is open, and rolls once it ends", async () => {
    const { busyPod, idlePod, session } = await busyAndIdle("busy", "idle", {});
    await Promise.all([apply("busy", CHANGED), apply("idle", CHANGED)]);

    // The idle one rolls: a new pod on the StatefulSet's new revision, and the rollout is over.
    const newRevision = await updateRevision("idle");
    expect(newRevision).not.toBe(idlePod.revision);
    const replaced = await untilPod("idle-0", (p) => p.uid !== idlePod.uid && p.ready, "replaced, Ready");
    expect(replaced.revision).toBe(newRevision);
    await until("idle", (o) => atGeneration(o) && rollout(o)?.status === "False");
    expect(
      await untilEvent("idle", "RolloutPodReplaced", /replaced pod idle-0 .*it carried no session/),
    ).toMatch(/0 more pod\(s\) to go/);

    // The busy one: the controller has reconciled this generation and says it waits for the session.
    const waiting = await until(
      "busy",
      (o) =>
        atGeneration(o) &&
        rollout(o)?.reason === "SessionsOpen" &&
        /1 session\(s\) open/.test(rollout(o)!.message),
    );
    expect(rollout(waiting)?.message).toMatch(
      /^sessions open on pod busy-0 \(1 session\(s\) open\): waiting for them to end, with no deadline/,
    );
    expect(waiting.status?.rollout).toMatchObject({ replicas: 1, updatedReplicas: 0 });
    expect(waiting.status?.rollout?.pendingSince).toMatch(/Z$/);
    const kept = await pod("busy-0");
    expect(kept).toMatchObject({ uid: busyPod.uid, revision: busyPod.revision });
    expect(kept?.revision).not.toBe(await updateRevision("busy"));

    // The session ends: the pod goes and comes back on the new revision.
    await session.end();
    const rolled = await untilPod("busy-0", (p) => p.uid !== busyPod.uid && p.ready, "replaced once idle");
    expect(rolled.revision).toBe(await updateRevision("busy"));
    const done = await until(
      "busy",
      (o) => rollout(o)?.status === "False" && o.status?.rollout?.updatedReplicas === 1,
    );
    expect(rollout(done)?.reason).toBe("UpToDate");
    expect(done.status?.rollout?.pendingSince).toBeUndefined();
    await untilEvent("busy", "RolloutPodReplaced", /replaced pod busy-0 .*it carried no session/);
  });

  it("maxWait: a busy pod is replaced anyway once the deadline passes, with a Warning", async () => {
    await apply("deadline", { rollout: { maxWait: "3s" } });
    await until("deadline", isServing);
    const before = (await pod("deadline-0"))!;
    await openSession(before.ip);
    await untilDoctorReads("deadline", "deadline-0", 1);
    await apply("deadline", { rollout: { maxWait: "3s" }, ...CHANGED });
    const forced = await untilPod(
      "deadline-0",
      (p) => p.uid !== before.uid && p.ready,
      "replaced at the deadline",
    );
    expect(forced.revision).toBe(await updateRevision("deadline"));
    expect(
      await untilEvent("deadline", "RolloutForced", /replaced pod deadline-0 with 1 session\(s\) open/),
    ).toMatch(/spec.rollout.maxWait passed since/);
  });
});

describe("a rollout does not give a pod's GPUs away", () => {
  it("whenIdle: an idle GPU pod waits while another pod waits for GPUs, and rolls once that one is gone", async () => {
    const gpu = (count: number) => ({ gpu: { count, product: "NVIDIA-GeForce-RTX-3090" } });
    await kit.apply("held", gpu(2), gpuPool);
    await until("held", isServing);
    await kit.apply("queued", gpu(1), gpuPool);
    const queued = await until("queued", (o) => condition(o, "Scheduled")?.reason === "Unschedulable");
    expect(condition(queued, "Scheduled")?.message).toMatch(/Insufficient nvidia.com\/gpu/);
    const before = (await pod("held-0"))!;
    await untilDoctorReads("held", "held-0", 0);

    await kit.apply("held", { ...gpu(2), ...CHANGED }, gpuPool);
    const waiting = await until("held", (o) => atGeneration(o) && rollout(o)?.reason === "GpuContested");
    expect(rollout(waiting)?.message).toMatch(
      /^replacing pod held-0 would free its GPU\(s\) while pod\(s\) queued-0 wait for GPUs .*with no deadline/,
    );
    // Idle and read as idle after the change: without the GPU check it would have gone.
    await untilDoctorReads("held", "held-0", 0);
    await until("held", (o) => atGeneration(o) && rollout(o)?.reason === "GpuContested");
    expect(await pod("held-0")).toMatchObject({ uid: before.uid, revision: before.revision });

    await kubectl(["delete", "orchestrator", "queued", "-n", ns.name, "--wait=false"]);
    const after = await untilPod(
      "held-0",
      (p) => p.uid !== before.uid && p.ready,
      "replaced once no pod waits",
    );
    expect(after.revision).toBe(await updateRevision("held"));
    await until("held", (o) => rollout(o)?.status === "False" && isServing(o));
  });

  it("whenIdle: gpu.count raised on a full pool keeps the old pod (WaitingForGpuSlot), and rolls once a GPU frees", async () => {
    const gpu = (count: number) => ({ gpu: { count, product: "NVIDIA-GeForce-RTX-3090" } });
    // The pool's two GPUs, free again: one for each of two Orchestrators.
    await kubectl(["delete", "orchestrator", "held", "-n", ns.name, "--ignore-not-found", "--wait=false"]);
    await waitFor("held-0 gone", async () => (await pod("held-0")) === undefined, 60_000);
    await Promise.all([kit.apply("grow", gpu(1), gpuPool), kit.apply("filler", gpu(1), gpuPool)]);
    await Promise.all([until("grow", isServing), until("filler", isServing)]);
    const before = (await pod("grow-0"))!;
    await untilDoctorReads("grow", "grow-0", 0);

    // Two GPUs for the next pod: the one grow-0 frees and none besides (filler-0 holds the other).
    await kit.apply("grow", gpu(2), gpuPool);
    const waiting = await until("grow", (o) => atGeneration(o) && rollout(o)?.reason === "WaitingForGpuSlot");
    expect(rollout(waiting)?.status).toBe("True");
    expect(rollout(waiting)?.message).toMatch(
      /^pod grow-0 is not replaced: its replacement needs 2 GPU\(s\) and no node its template may run on has them free \(free now, counting the GPUs pod grow-0 frees: \S+-gpu-rtx3090-a 1 of 2\); waiting for a free slot, with no deadline .*; to roll: free 2 GPU\(s\) on one of those nodes, add a node .*or set spec.rollout.strategy: immediate/,
    );
    // Idle and read as idle after the change: without the slot check it would have gone.
    await untilDoctorReads("grow", "grow-0", 0);
    await until("grow", (o) => atGeneration(o) && rollout(o)?.reason === "WaitingForGpuSlot");
    // The old pod still serves.
    expect(await pod("grow-0")).toMatchObject({ uid: before.uid, revision: before.revision, ready: true });
    expect(await updateRevision("grow")).not.toBe(before.revision);

    // A GPU frees: the rollout goes on, and the new pod gets both GPUs.
    await kubectl(["delete", "orchestrator", "filler", "-n", ns.name, "--wait=false"]);
    const after = await untilPod(
      "grow-0",
      (p) => p.uid !== before.uid && p.ready,
      "replaced once a GPU is free",
    );
    expect(after.revision).toBe(await updateRevision("grow"));
    expect(after.node).toBe(before.node);
    await untilEvent("grow", "RolloutPodReplaced", /replaced pod grow-0 .*it carried no session/);
    await until("grow", (o) => rollout(o)?.status === "False" && isServing(o));
    await kubectl(["delete", "orchestrator", "grow", "-n", ns.name, "--wait=false"]);
    await waitFor("grow-0 gone", async () => (await pod("grow-0")) === undefined, 60_000);
  });

  it("immediate: gpu.count raised on a full pool replaces the pod at once, with a Warning that its replacement may stay Pending", async () => {
    const spec = (count: number) => ({
      gpu: { count, product: "NVIDIA-GeForce-RTX-3090" },
      rollout: { strategy: "immediate" },
    });
    await Promise.all([kit.apply("eager", spec(1), gpuPool), kit.apply("occupant", spec(1), gpuPool)]);
    await Promise.all([until("eager", isServing), until("occupant", isServing)]);
    const before = (await pod("eager-0"))!;

    await kit.apply("eager", spec(2), gpuPool);
    expect(
      await untilEvent(
        "eager",
        "RolloutWithoutGpuSlot",
        /^replaced pod eager-0 \(StatefulSet eager revision \S+ -> \S+\): spec.rollout.strategy is immediate; its replacement needs 2 GPU\(s\)/,
      ),
    ).toMatch(
      /\S+-gpu-rtx3090-a 1 of 2\): the replacement may stay Pending until a GPU frees or a node is added/,
    );
    // As said: the new pod waits for GPUs while the other Orchestrator holds one.
    const pending = await until("eager", (o) => condition(o, "Scheduled")?.reason === "Unschedulable");
    expect(condition(pending, "Scheduled")?.message).toMatch(/Insufficient nvidia.com\/gpu/);
    expect((await pod("eager-0"))?.uid).not.toBe(before.uid);

    await kubectl(["delete", "orchestrator", "occupant", "-n", ns.name, "--wait=false"]);
    await untilPod("eager-0", (p) => p.ready, "placed once a GPU is free");
    await kubectl(["delete", "orchestrator", "eager", "-n", ns.name, "--wait=false"]);
    await waitFor(
      "eager-0 and occupant-0 gone",
      async () => (await pod("eager-0")) === undefined && (await pod("occupant-0")) === undefined,
      60_000,
    );
  });
});

describe("a change in the config file only restarts the node in place", () => {
  it("whenIdle: waits for the session, then restarts the node: same pod, node and GPUs (a pod waiting for GPUs gets none), the new config served", async () => {
    const gpu = (count: number) => ({ gpu: { count, product: "NVIDIA-GeForce-RTX-3090" } });
    // The GPU pool's two GPUs, free again.
    await kubectl(["delete", "orchestrator", "held", "-n", ns.name, "--ignore-not-found", "--wait=false"]);
    await waitFor("held-0 gone", async () => (await pod("held-0")) === undefined, 60_000);
    await kit.apply("kept", gpu(2), gpuPool);
    await until("kept", isServing);
    const before = (await pod("kept-0"))!;
    await kit.apply("hungry", gpu(1), gpuPool);
    await until("hungry", (o) => condition(o, "Scheduled")?.reason === "Unschedulable");
    const session = await openSession(before.ip);
    await untilDoctorReads("kept", "kept-0", 1);
    const revision = await updateRevision("kept");

    await kit.apply("kept", { ...gpu(2), ...RECONFIGURED }, gpuPool);
    const waiting = await until("kept", (o) => atGeneration(o) && rollout(o)?.reason === "SessionsOpen");
    expect(rollout(waiting)?.message).toMatch(
      /kept-0 \(1 session\(s\) open\).*its node restarts in place \(pod, node and GPUs kept\)/,
    );
    expect(waiting.status?.rollout).toMatchObject({ replicas: 1, updatedReplicas: 0, inPlace: true });
    // No new revision: the pod template did not change.
    expect(await updateRevision("kept")).toBe(revision);
    expect(await pod("kept-0")).toMatchObject({ uid: before.uid, restarts: before.restarts });

    await session.end();
    const after = await untilPod(
      "kept-0",
      (p) => p.restarts === before.restarts + 1 && p.ready,
      "its node restarted in place",
    );
    expect(after).toMatchObject({
      uid: before.uid,
      node: before.node,
      ip: before.ip,
      revision: before.revision,
    });
    expect(
      await untilEvent("kept", "RolloutNodeRestarted", /restarting the node of pod kept-0 in place/),
    ).toMatch(/pod, node \S+ and its GPUs kept\): it carried no session; only its config changed/);
    // The node restarted on the new config file.
    await waitFor(
      "the restarted node serves the new renditions",
      async () => {
        const r = await fetch(`http://${after.ip}:7935/getBroadcastConfig`).catch(() => undefined);
        return (
          ((await r?.json().catch(() => ({}))) as { TranscodingOptions?: string })?.TranscodingOptions ===
          RECONFIGURED.transcodingOptions
        );
      },
      30_000,
    );
    const done = await until(
      "kept",
      (o) => rollout(o)?.status === "False" && o.status?.rollout?.updatedReplicas === 1,
    );
    expect(done.status?.rollout?.inPlace).toBeUndefined();
    // The GPUs stayed with the pod: the other one still waits for them.
    expect(condition((await kit.read("hungry"))!, "Scheduled")?.reason).toBe("Unschedulable");
    await kubectl(["delete", "orchestrator", "kept", "hungry", "-n", ns.name, "--wait=false"]);
  });

  it("a template change still replaces the pod (a new revision)", async () => {
    await apply("swap", {});
    await until("swap", isServing);
    const before = (await pod("swap-0"))!;
    await untilDoctorReads("swap", "swap-0", 0);
    await apply("swap", { ...CHANGED, ...RECONFIGURED });
    const after = await untilPod("swap-0", (p) => p.uid !== before.uid && p.ready, "replaced");
    expect(after.revision).toBe(await updateRevision("swap"));
    await untilEvent("swap", "RolloutPodReplaced", /replaced pod swap-0 .*it carried no session/);
  });
});

describe("a Gateway with a stream live", () => {
  it("whenIdle: keeps its node running while the stream runs, and restarts it in place (a new orchestrator list) once the stream has ended", async () => {
    await apply("upstream", {});
    await until("upstream", isServing);
    const orchIp = (await pod("upstream-0"))!.ip;
    const gatewaySpec = (addresses: string[]) => ({
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Gateway",
      metadata: { name: "gw", namespace: ns.name },
      spec: {
        orchestrators: { addresses },
        podTemplate: { nodeSelector: pool.nodeSelector, tolerations: pool.tolerations },
      },
    });
    const applyGateway = (addresses: string[]) =>
      kubectl(
        ["apply", "--server-side", "--field-manager=test", "-f", "-"],
        JSON.stringify(gatewaySpec(addresses)),
      );
    const readGateway = () => client.get<StoredGateway>(Gateways, ns.name, "gw");
    await applyGateway([`${orchIp}:8935`]);
    const before = await untilPod("gw-0", (p) => p.ready, "Ready");
    /** Waits until the controller's doctor has read `n` live streams on gw-0 (its node answers then). */
    const gatewayStreams = (n: number) =>
      waitFor(
        `the node doctor reads ${n} live stream(s) on gw-0`,
        async () =>
          [...gatewayReconciler!.doctor.latestReadings(keyFor(ns.name, "gw")).values()].some(
            (r) => r.pod === "gw-0" && r.sessions === n,
          ),
        30_000,
      );
    await gatewayStreams(0);

    // A stream pushed in real time until the test stops it: the gateway lists it in /status Manifests.
    const stop = new AbortController();
    const pushing = pushStream({
      gateway: `http://${before.ip}:8935`,
      name: "live-during-rollout",
      segments: 1_000,
      segmentSeconds: 1,
      signal: stop.signal,
    }).catch((err: Error) => (stop.signal.aborted ? undefined : Promise.reject(err)));
    try {
      await gatewayStreams(1);
      await applyGateway([`${orchIp}:8935`, "127.0.0.1:8935"]);
      let last: StoredGateway | undefined;
      await waitFor(
        "the Gateway waits for its stream at the new generation",
        async () => {
          last = await readGateway();
          const c = last.status?.conditions?.find((x) => x.type === "RolloutPending");
          return (
            last.status?.observedGeneration === last.metadata?.generation &&
            c?.reason === "SessionsOpen" &&
            /gw-0 \(1 session\(s\) open\)/.test(c.message)
          );
        },
        30_000,
        () => JSON.stringify(last?.status?.conditions),
      );
      expect(await pod("gw-0")).toMatchObject({ uid: before.uid, revision: before.revision });
    } finally {
      stop.abort();
      await pushing;
    }
    // The stream ends (no segment for the node's stream timeout): only the gateway's config
    // changed (its orchestrator list), so its node restarts in place: the same pod.
    const after = await untilPod(
      "gw-0",
      (p) => p.restarts === before.restarts + 1 && p.ready,
      "its node restarted in place once the stream ended",
    );
    expect(after).toMatchObject({ uid: before.uid, node: before.node, revision: before.revision });
    await untilEvent(
      "gw",
      "RolloutNodeRestarted",
      /restarting the node of pod gw-0 in place .*it carried no session/,
    );
  });
});

describe("spec.rollout.strategy immediate", () => {
  it("replaces a pod with a session open at once", async () => {
    await apply("now", { rollout: { strategy: "immediate" } });
    await until("now", isServing);
    const before = (await pod("now-0"))!;
    await openSession(before.ip);
    await untilDoctorReads("now", "now-0", 1);
    await apply("now", { rollout: { strategy: "immediate" }, ...CHANGED });
    const after = await untilPod("now-0", (p) => p.uid !== before.uid && p.ready, "replaced");
    expect(after.revision).toBe(await updateRevision("now"));
    await untilEvent("now", "RolloutPodReplaced", /replaced pod now-0 .*spec.rollout.strategy is immediate/);
  });
});

describe("spec.rollout.strategy onDelete", () => {
  it("never replaces an idle pod by itself; says so; the pod deleted by hand comes back on the new revision", async () => {
    await apply("manual", { rollout: { strategy: "onDelete" } });
    await until("manual", isServing);
    const before = (await pod("manual-0"))!;
    await untilDoctorReads("manual", "manual-0", 0);
    await apply("manual", { rollout: { strategy: "onDelete" }, ...CHANGED });
    const waiting = await until(
      "manual",
      (o) => atGeneration(o) && rollout(o)?.reason === "WaitingForDelete",
    );
    expect(rollout(waiting)?.message).toMatch(
      /pod\(s\) manual-0 run an older rendering.*kubectl delete pod manual-0/,
    );
    // Idle and read as idle (a whenIdle rollout would have replaced it): still the same pod.
    await untilDoctorReads("manual", "manual-0", 0);
    const again = await until("manual", (o) => atGeneration(o) && rollout(o)?.reason === "WaitingForDelete");
    expect(again.status?.rollout?.updatedReplicas).toBe(0);
    expect(await pod("manual-0")).toMatchObject({ uid: before.uid, revision: before.revision });
    // What kubectl users see: -o wide shows the pods on the current rendering and what the rollout waits for.
    const wide = (await kubectl(["get", "orchestrator", "manual", "-n", ns.name, "-o", "wide"])).split("\n");
    expect(wide[0]).toMatch(/\bUPDATED\s+ROLLOUT\b/);
    expect(wide[1]).toMatch(/\s0\s+WaitingForDelete\s/);

    await kubectl(["delete", "pod", "manual-0", "-n", ns.name, "--wait=false"]);
    const after = await untilPod("manual-0", (p) => p.uid !== before.uid && p.ready, "re-created");
    expect(after.revision).toBe(await updateRevision("manual"));
    await until("manual", (o) => rollout(o)?.status === "False" && o.status?.rollout?.updatedReplicas === 1);
  });
});
