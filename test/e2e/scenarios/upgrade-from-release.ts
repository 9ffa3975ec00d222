// The upgrade from the previous release with live traffic (issue #32): the previous release's chart
// and images (built from its recorded commit by its own build code, see
// src/dev/image/previous-release.ts), two Orchestrators, a Gateway with a stream running through
// them and Webhooks whose deliveries wait for a receiver that is down; then `helm upgrade` to the
// working tree's chart and images, and back.
//
// Why a scenario run last in chart.e2e.test.ts rather than a file of its own: the CRDs are
// cluster-wide and every controller watches every namespace, so the previous release cannot run
// beside the suite's release (its CRDs would be the working tree's, and two controllers would
// fight over the same objects). After the uninstall scenario the cluster holds no release; this
// one deletes the CRDs the working tree left and installs the previous release as a user had it.
// Only a harness that built the previous release (ctx.previous: the real-node one, the kind runner)
// runs it; that harness also gives the directory on the nodes the API's store lives in.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { V1Pod } from "@kubernetes/client-node";
import { dump, load } from "js-yaml";
import { afterAll, describe, expect, it } from "vitest";
import { mintToken } from "../../../src/api/auth/mint.ts";
import { waitFor } from "../../../src/dev/cluster/process.ts";
import { DEFAULT_PORTS } from "../../../src/node/config/addresses.ts";
import { GATEWAY_HTTP_PORT } from "../../../src/schema/gateway.ts";
import {
  APP_NS,
  appNamespaceReady,
  core,
  ctx,
  fetchInCluster,
  getJson,
  helm,
  isReady,
  kubectl,
  kubectlRun,
  podsReport,
  RECEIVER,
  RECEIVER_PORT,
  watchVersions,
} from "../support/cluster.ts";
import {
  type Condition,
  ConditionTimeline,
  changedConditions,
  type PodBefore,
  podFate,
} from "../support/upgrade.ts";

const previous = ctx.previous!;
const NS = "livepeer-upgrade";
const RELEASE = "lpo-up";
const ORCHS = ["e2e-up-orch-a", "e2e-up-orch-b"];
const GW = "e2e-up-gw";
const POOL = { "livepeer.org/pool": "e2e-up" };
const HOOK = "e2e-hook";
const PUSHER = "e2e-pusher";
const CLAIM = "e2e-upgrade-deliveries";
/** The controllers' leader lease (in the release's namespace). */
const LEASE = "livepeer-operator-leader";
const EVENTS = ["e2e-up-evt-1", "e2e-up-evt-2"];

type Resource = {
  metadata: { name: string; uid: string; generation?: number };
  spec?: Record<string, unknown>;
  status?: { conditions?: Condition[]; observedGeneration?: number } & Record<string, unknown>;
};
type StatefulSet = {
  metadata: { name: string; generation: number };
  spec: { updateStrategy?: { type?: string }; template: unknown };
  status?: { observedGeneration?: number; updateRevision?: string };
};

const work = mkdtempSync(path.join(tmpdir(), "e2e-upgrade-"));
/**
 * The API's SQLite store: a hostPath volume that outlives its pod, in a directory the harness made
 * on the nodes (writable by the API's uid); pinned to the node holding it when the harness says so.
 */
const store = ctx.deliveryStore;
const state: {
  pods: Map<string, PodBefore>;
  conditions: Map<string, Condition[]>;
  hooks: string[];
  segmentsBefore: number;
} = { pods: new Map(), conditions: new Map(), hooks: [], segmentsBefore: 0 };

const log = (l: string) => process.stderr.write(`[upgrade] ${l}\n`);

function valuesFile(name: string, images: { operator: string; simulator: string }): string {
  const base = load(readFileSync(ctx.valuesFile, "utf8")) as Record<string, Record<string, unknown>>;
  const [repository, tag] = images.operator.split(":");
  const api = base.api as { delivery: Record<string, unknown> };
  const values = {
    ...base,
    image: { ...base.image, repository, tag },
    nodeImage: images.simulator,
    api: {
      ...api,
      delivery: {
        ...api.delivery,
        sqlite: { existingClaim: CLAIM, persistence: { enabled: false } },
        // Retries every few seconds, so a queued delivery goes soon after the receiver is up.
        retry: { first: "2s", max: "5s" },
      },
    },
  };
  const file = path.join(work, name);
  writeFileSync(file, dump(values));
  return file;
}

const nodeResources = () => [
  ...ORCHS.map((n) => ({ kind: "orchestrators.livepeer.org", name: n })),
  { kind: "gateways.livepeer.org", name: GW },
];

const getResource = (kind: string, name: string) => getJson<Resource>(kind, name, APP_NS);

async function nodePods(): Promise<V1Pod[]> {
  const all = (await core.listNamespacedPod({ namespace: APP_NS })).items;
  return all.filter((p) => p.metadata?.ownerReferences?.some((o) => o.kind === "StatefulSet"));
}

const restarts = (p: V1Pod) => (p.status?.containerStatuses ?? []).reduce((n, c) => n + c.restartCount, 0);

/**
 * When a controller pod on `image` took the leader lease (its acquireTime): the controller it took
 * over from had stopped reconciling by then, so every status written after it is this one's.
 */
async function leaderSince(image: string): Promise<Date> {
  let last = "";
  let since: Date | undefined;
  await waitFor(
    `a controller on ${image} holding the leader lease`,
    async () => {
      const lease = JSON.parse(await kubectl(["get", "lease", LEASE, "-n", NS, "-o", "json"])) as {
        spec: { holderIdentity?: string; acquireTime?: string };
      };
      last = JSON.stringify(lease.spec);
      const holder = lease.spec.holderIdentity;
      const pod =
        holder && (await core.readNamespacedPod({ name: holder, namespace: NS }).catch(() => undefined));
      if (!pod || pod.spec?.containers[0]?.image !== image || !lease.spec.acquireTime) return false;
      since = new Date(lease.spec.acquireTime);
      return true;
    },
    120_000,
    () => last,
  );
  return since!;
}

async function releasePodsReady(component: string, image: string): Promise<void> {
  let last = "";
  await waitFor(
    `the ${RELEASE} ${component} pods Ready on ${image}`,
    async () => {
      const pods = (
        await core.listNamespacedPod({
          namespace: NS,
          labelSelector: `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/component=${component}`,
        })
      ).items;
      last = pods
        .map((p) => `${p.metadata?.name} ${p.spec?.containers[0]?.image} ready=${isReady(p)}`)
        .join(", ");
      return (
        pods.length > 0 &&
        pods.every(
          (p) => !p.metadata?.deletionTimestamp && isReady(p) && p.spec?.containers[0]?.image === image,
        )
      );
    },
    240_000,
    () => last,
  ).catch(async (err: Error) => {
    throw new Error(`${err.message}\n${await podsReport()}`);
  });
}

/** The release's controller pods' last log lines. */
async function controllerLog(lines: number): Promise<string> {
  const selector = `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/component=controller`;
  return kubectl(["logs", "-n", NS, "-l", selector, `--tail=${lines}`, "--prefix"]).catch(
    (e: Error) => e.message,
  );
}

async function apiToken(scope?: string): Promise<string> {
  const secret = await getJson<{ data: Record<string, string> }>("secret", `${RELEASE}-api-jwt`, NS);
  const key = Buffer.from(secret.data["jwt-secret"]!, "base64");
  return mintToken({ secret: key, sub: "alice", ttlSeconds: 900, ...(scope && { scope }) });
}

async function apiBase(): Promise<string> {
  const svc = await getJson<{ spec: { clusterIP: string; ports: { port: number }[] } }>(
    "service",
    `${RELEASE}-api`,
    NS,
  );
  return `http://${svc.spec.clusterIP}:${svc.spec.ports[0]!.port}/api`;
}

/** The push's transcoded segments, from its log ("segment N: 200 transcoded ..."). */
async function transcodedSegments(): Promise<number[]> {
  const out = await kubectl(["logs", "-n", APP_NS, PUSHER]);
  return [...out.matchAll(/segment (\d+): 200 transcoded/g)].map((m) => Number(m[1]));
}

/**
 * What the CRD served does with an Orchestrator carrying spec.rollout (a server-side dry run,
 * kubectl's strict field validation): keeps it, or refuses it naming the unknown field.
 */
async function rolloutRoundTrip(): Promise<{ rollout?: unknown; refused?: string }> {
  const body = {
    apiVersion: "livepeer.org/v1alpha1",
    kind: "Orchestrator",
    metadata: { name: "e2e-up-dry", namespace: APP_NS },
    spec: { pricePerUnit: "1000", rollout: { strategy: "whenIdle", maxWait: "30m" } },
  };
  const r = await kubectlRun(["create", "--dry-run=server", "-o", "json", "-f", "-"], JSON.stringify(body));
  if (r.code !== 0) return { refused: r.out.trim() };
  return { rollout: (JSON.parse(r.out) as Resource).spec?.rollout };
}

const ROLLOUT = { rollout: { strategy: "whenIdle", maxWait: "30m" } };

async function receiverPod(name: string, script: string, image = ctx.operatorImage) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: APP_NS, labels: { app: name } },
    spec: {
      ...ctx.placement,
      terminationGracePeriodSeconds: 1,
      restartPolicy: "Never",
      containers: [
        {
          name: "main",
          image,
          imagePullPolicy: "IfNotPresent",
          command: ["/usr/local/bin/node", ...script.split("\u0000")],
        },
      ],
    },
  };
}

async function podRunning(name: string): Promise<void> {
  let last = "";
  await waitFor(
    `pod ${name} Running`,
    async () => {
      const p = await core.readNamespacedPod({ name, namespace: APP_NS });
      last = JSON.stringify(p.status?.containerStatuses?.map((c) => c.state) ?? p.status?.conditions);
      return p.status?.phase === "Running" && isReady(p);
    },
    120_000,
    () => last,
  );
}

const HOOK_SCRIPT = `require("http").createServer((req, res) => { const c = []; req.on("data", (d) => c.push(d)); req.on("end", () => { console.log(JSON.stringify({ body: Buffer.concat(c).toString() })); res.end("ok"); }); }).listen(${RECEIVER_PORT})`;

describe(`the upgrade from ${previous?.version} with live traffic`, () => {
  afterAll(async () => {
    await kubectlRun(["delete", "namespace", APP_NS, "--wait=true"]);
    await helm(["uninstall", RELEASE, "-n", NS, "--wait"]);
    await kubectlRun(["delete", "namespace", NS, "--wait=true"]);
    await kubectlRun(["delete", "pv", CLAIM, "--wait=true"]);
    rmSync(work, { recursive: true, force: true });
  }, 300_000);

  it(`installs ${previous?.version}'s chart with its own images, its CRDs lacking spec.rollout`, async () => {
    // The working tree's controller applied its CRDs; a user of the previous release had its own.
    const crds = (await kubectl(["get", "crds", "-o", "name"]))
      .split("\n")
      .filter((n) => n.endsWith(".livepeer.org"));
    if (crds.length) await kubectl(["delete", "--wait=true", ...crds]);
    await kubectl(["create", "namespace", NS]);
    // The delivery store outlives the API pod (the nodes have no provisioner): a hostPath volume.
    if (!store) {
      throw new Error(
        "the harness set ctx.previous but no ctx.deliveryStore: give the upgrade scenario a directory on the nodes (LPO_E2E_DELIVERY_STORE)",
      );
    }
    const pinned = store.node && {
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [store.node] }] },
          ],
        },
      },
    };
    const pv = {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: CLAIM },
      spec: {
        capacity: { storage: "1Gi" },
        accessModes: ["ReadWriteOnce"],
        storageClassName: "",
        persistentVolumeReclaimPolicy: "Retain",
        hostPath: { path: store.path, type: "Directory" },
        claimRef: { namespace: NS, name: CLAIM },
        ...pinned,
      },
    };
    const pvc = {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: CLAIM, namespace: NS },
      spec: {
        accessModes: ["ReadWriteOnce"],
        storageClassName: "",
        volumeName: CLAIM,
        resources: { requests: { storage: "1Gi" } },
      },
    };
    await kubectl(["apply", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "List", items: [pv, pvc] }));
    const values = valuesFile("previous.yaml", {
      operator: previous.operatorImage,
      simulator: previous.simulatorImage,
    });
    const r = await helm(["install", RELEASE, previous.chart, "-n", NS, "-f", values]);
    expect(r.code, r.out).toBe(0);
    await releasePodsReady("controller", previous.operatorImage);
    await releasePodsReady("api", previous.operatorImage);
    await appNamespaceReady();
    const old = await rolloutRoundTrip();
    expect(old.refused, "the previous release's CRD does not know spec.rollout").toMatch(
      /unknown field "spec\.rollout"/,
    );
  }, 420_000);

  it("runs two Orchestrators and a Gateway with a stream through them, and queues deliveries for a receiver that is down", async () => {
    const client = await receiverPod(RECEIVER, `-e\u0000setInterval(() => {}, 1 << 30)`);
    const hookService = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: HOOK, namespace: APP_NS },
      spec: { selector: { app: HOOK }, ports: [{ port: RECEIVER_PORT, targetPort: RECEIVER_PORT }] },
    };
    const orchs = ORCHS.map((name) => ({
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Orchestrator",
      metadata: { name, namespace: APP_NS, labels: POOL },
      spec: { pricePerUnit: "1000", gpu: { count: 1 }, podTemplate: ctx.placement },
    }));
    const gateway = {
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Gateway",
      metadata: { name: GW, namespace: APP_NS },
      spec: {
        orchestrators: { selector: { matchLabels: POOL } },
        maxPricePerUnit: "1200",
        pixelsPerUnit: 1,
        ingest: { http: true },
        podTemplate: ctx.placement,
      },
    };
    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({ apiVersion: "v1", kind: "List", items: [client, hookService, ...orchs, gateway] }),
    );
    await podRunning(RECEIVER);
    let last: Resource | undefined;
    for (const { kind, name } of nodeResources()) {
      await waitFor(
        `${name} Ready under ${previous.version}`,
        async () => {
          last = await getResource(kind, name);
          return last.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
        },
        240_000,
        () => JSON.stringify(last?.status, null, 1),
      ).catch(async (err: Error) => {
        throw new Error(`${err.message}\n${await podsReport()}`);
      });
    }

    // Webhooks through the previous release's API, and events for them while nobody listens.
    const base = await apiBase();
    const owner = await apiToken();
    const url = `http://${HOOK}.${APP_NS}.svc.cluster.local:${RECEIVER_PORT}/hook`;
    for (const name of ["up-1", "up-2"]) {
      const created = await fetchInCluster(`${base}/webhook`, {
        method: "POST",
        headers: { authorization: `Bearer ${owner}`, "content-type": "application/json" },
        body: JSON.stringify({ name, url, events: ["stream.started"], sharedSecret: "e2e-up-s3cret" }),
      });
      expect(created.status, created.text).toBe(200);
      state.hooks.push((JSON.parse(created.text) as { id: string }).id);
    }
    const producer = await apiToken("events:write");
    for (const id of EVENTS) {
      const posted = await fetchInCluster(`${base}/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${producer}`, "content-type": "application/json" },
        body: JSON.stringify({ event: "stream.started", streamId: "e2e-up-stream", id }),
      });
      expect(posted.status, posted.text).toBe(202);
    }

    // The stream: a pod pushing realtime 2 s segments for longer than the upgrade takes.
    const gwIp = (await core.readNamespacedPod({ name: `${GW}-0`, namespace: APP_NS })).status!.podIP!;
    let pool = "";
    await waitFor(
      "the gateway node's /status to list both orchestrators",
      async () => {
        const r = await fetchInCluster(`http://${gwIp}:${DEFAULT_PORTS.gatewayCli}/status`);
        pool = r.text;
        const known =
          r.status === 200 ? (JSON.parse(r.text) as { OrchestratorPool?: unknown[] }).OrchestratorPool : [];
        return (known?.length ?? 0) >= ORCHS.length;
      },
      150_000,
      () => pool.slice(0, 500),
    );
    const pusher = await receiverPod(
      PUSHER,
      [
        "/app/dist/cli/main.js",
        "push-stream",
        "--url",
        `http://${gwIp}:${GATEWAY_HTTP_PORT}`,
        "--segments",
        "600",
      ].join("\u0000"),
    );
    await kubectl(["apply", "-f", "-"], JSON.stringify(pusher));
    await waitFor(
      "the stream's first transcoded segments",
      async () => (await transcodedSegments()).length >= 3,
      120_000,
    );

    // What the upgrade must keep: node pods (uid, restarts, rendering) and conditions.
    for (const p of await nodePods()) {
      state.pods.set(p.metadata!.name!, {
        name: p.metadata!.name!,
        uid: p.metadata!.uid!,
        restarts: restarts(p),
        revision: p.metadata!.labels?.["controller-revision-hash"] ?? "",
        statefulSet: p.metadata!.ownerReferences!.find((o) => o.kind === "StatefulSet")!.name,
      });
    }
    expect(state.pods.size).toBe(ORCHS.length + 1);
    for (const { kind, name } of nodeResources()) {
      state.conditions.set(name, (await getResource(kind, name)).status?.conditions ?? []);
    }
    const hooks = await kubectl(["get", "webhooks.livepeer.org", "-n", NS, "-o", "name"]);
    for (const id of state.hooks) expect(hooks).toContain(id);
  }, 600_000);

  it("helm upgrade to the working tree: CRDs updated, busy pods kept, the stream goes on, every queued delivery arrives", async () => {
    state.segmentsBefore = (await transcodedSegments()).length;
    const values = valuesFile("current.yaml", { operator: ctx.operatorImage, simulator: ctx.simulatorImage });
    // Every version of every node resource through the upgrade, from the API server's watch (no
    // write is missed): a condition that leaves its status and comes back shows where it went.
    const timeline = new ConditionTimeline();
    const names = new Set(nodeResources().map((r) => r.name));
    const onVersion = (obj: Resource) => {
      if (names.has(obj.metadata.name)) timeline.observe(obj.metadata.name, obj.status?.conditions ?? []);
    };
    const watches = await Promise.all(
      [...new Set(nodeResources().map((r) => r.kind))].map((kind) => watchVersions(kind, APP_NS, onVersion)),
    );
    const t0 = Date.now();
    const r = await helm(["upgrade", RELEASE, ctx.chart, "-n", NS, "-f", values]);
    expect(r.code, r.out).toBe(0);
    await releasePodsReady("controller", ctx.operatorImage);
    await releasePodsReady("api", ctx.operatorImage);
    log(`helm upgrade: controller and API on the working tree in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    // The working tree's controller applied its CRDs at start: spec.rollout now round-trips.
    await waitFor(
      "spec.rollout served by the Orchestrator CRD",
      async () => !!(await rolloutRoundTrip()),
      60_000,
    );
    expect(await rolloutRoundTrip()).toEqual(ROLLOUT);

    // The new controller has rendered every StatefulSet (OnDelete: it rolls pods itself).
    const sets = new Map<string, StatefulSet>();
    await waitFor(
      "every node StatefulSet rendered by the working tree's controller and observed",
      async () => {
        for (const p of state.pods.values()) {
          sets.set(p.statefulSet, await getJson<StatefulSet>("statefulset", p.statefulSet, APP_NS));
        }
        return [...sets.values()].every(
          (s) =>
            s.spec.updateStrategy?.type === "OnDelete" &&
            (s.status?.observedGeneration ?? 0) >= s.metadata.generation &&
            !!s.status?.updateRevision,
        );
      },
      120_000,
      () => JSON.stringify([...sets.values()].map((s) => [s.metadata.name, s.spec.updateStrategy, s.status])),
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\nthe controller's log:\n${await controllerLog(80)}`);
    });

    // The stream keeps producing segments after the upgrade.
    const target = state.segmentsBefore + 5;
    await waitFor(
      `${target} transcoded segments (${state.segmentsBefore} before the upgrade)`,
      async () => (await transcodedSegments()).length >= target,
      120_000,
    );
    const pushLog = await kubectl(["logs", "-n", APP_NS, PUSHER]);
    expect(pushLog, "a segment failed during the upgrade").not.toMatch(/segment \d+: (?!200 transcoded)/);

    // The idle orchestrator's pod goes under whenIdle once the new controller has read its sessions
    // (a second or two after it leads): wait for that replacement to start before judging.
    let podsNow: V1Pod[] = [];
    await waitFor(
      "a node pod replaced by the new controller (the idle one, whenIdle)",
      async () => {
        podsNow = await nodePods();
        return [...state.pods.values()].some(
          (b) => !podsNow.some((p) => p.metadata?.name === b.name && p.metadata?.uid === b.uid),
        );
      },
      120_000,
      () => JSON.stringify(podsNow.map((p) => [p.metadata?.name, p.metadata?.uid])),
    );
    // Each pod: its rendering unchanged -> same uid and restarts; changed and busy -> kept (whenIdle)
    // with RolloutPending on its resource; changed and idle -> replaced.
    const now = new Map((await nodePods()).map((p) => [p.metadata!.name!, p]));
    const pending = new Map<string, boolean>();
    for (const { kind, name } of nodeResources()) {
      const res = await getResource(kind, name);
      pending.set(name, res.status?.conditions?.find((c) => c.type === "RolloutPending")?.status === "True");
    }
    const fates = [...state.pods.values()].map((before) => {
      const pod = now.get(before.name);
      const sts = sets.get(before.statefulSet)!;
      return podFate(
        before,
        pod && { uid: pod.metadata!.uid!, restarts: restarts(pod) },
        sts.status!.updateRevision!,
      );
    });
    log(`pods: ${JSON.stringify(fates)}; RolloutPending: ${JSON.stringify([...pending])}`);
    for (const f of fates) {
      if (!f.renderingChanged)
        expect(f, `${f.name}: its rendering did not change`).toMatchObject({ kept: true, restarted: false });
    }
    // The Gateway's pod carries the stream: not replaced while it runs, and its resource says why.
    const gwFate = fates.find((f) => f.name === `${GW}-0`)!;
    if (gwFate.renderingChanged) {
      expect(gwFate, "the Gateway pod carrying the stream").toMatchObject({ kept: true, restarted: false });
      expect(pending.get(GW), "the Gateway's RolloutPending while its stream runs").toBe(true);
    }
    for (const f of fates.filter((f) => f.renderingChanged && f.kept)) {
      const owner = f.name.replace(/-0$/, "");
      expect(pending.get(owner), `${owner}: a changed pod kept must say RolloutPending`).toBe(true);
    }

    // Conditions whose status did not change keep their lastTransitionTime on every resource whose
    // node pods were all kept (a replaced pod's Ready really went False and back): a re-stamp is
    // right only where the watch saw the condition leave its status, and no known True/False went
    // back to "not read yet" because the controller restarted.
    // Judged from the working tree's controller's first lease on: what the previous release's
    // controller wrote until it stopped is its own (logged, not judged: it cannot be changed now).
    const since = await leaderSince(ctx.operatorImage);
    for (const w of watches) await w.stop();
    log(
      `watch gaps: ${JSON.stringify(watches.flatMap((w) => w.gaps))}; the new controller leads since ${since.toISOString()}`,
    );
    const replaced = new Set(fates.filter((f) => !f.kept).map((f) => f.name.replace(/-0$/, "")));
    for (const { kind, name } of nodeResources()) {
      const after = (await getResource(kind, name)).status?.conditions ?? [];
      timeline.observe(name, after);
      const before = timeline.at(name, since);
      const diff = changedConditions(before, after);
      const unexplained = timeline.unexplained(
        name,
        diff.restamped.map((type) => ({ type, status: after.find((c) => c.type === type)!.status })),
        since,
      );
      const previousTerm = changedConditions(state.conditions.get(name) ?? [], before);
      log(
        `${name}: under ${previous.version}'s controller during the upgrade: changed ${JSON.stringify(previousTerm.changed)}, re-stamped ${JSON.stringify(previousTerm.unchangedButRestamped)}; under the new one: changed ${JSON.stringify(diff.changed)}, re-stamped ${JSON.stringify(diff.unchangedButRestamped)} (unexplained: ${JSON.stringify(unexplained)}); through the upgrade: ${JSON.stringify(timeline.changes(name))}`,
      );
      if (replaced.has(name)) continue;
      const why = `${name} since ${since.toISOString()}: ${timeline.changes(name, since).join("; ")}`;
      expect(
        timeline.backToUnread(name, since),
        `${name}: known answers back to "not read yet". ${why}`,
      ).toEqual([]);
      expect(unexplained, `${name}: re-stamped with no status change in between. ${why}`).toEqual([]);
    }
    expect(replaced.size, "the scenario replaces at least one idle pod").toBeGreaterThan(0);
    expect(nodeResources().length - replaced.size, "and keeps at least one busy one").toBeGreaterThan(0);

    // Every Webhook is still there, and every queued delivery arrives once the receiver is up.
    const hooks = await kubectl(["get", "webhooks.livepeer.org", "-n", NS, "-o", "name"]);
    for (const id of state.hooks) expect(hooks).toContain(id);
    await kubectl(["apply", "-f", "-"], JSON.stringify(await receiverPod(HOOK, `-e\u0000${HOOK_SCRIPT}`)));
    await podRunning(HOOK);
    const wanted = state.hooks.flatMap((h) => EVENTS.map((e) => `${h}/${e}`));
    let got: string[] = [];
    await waitFor(
      `all ${wanted.length} queued deliveries at the receiver`,
      async () => {
        got = (await kubectl(["logs", "-n", APP_NS, HOOK]))
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map(
            (l) => JSON.parse((JSON.parse(l) as { body: string }).body) as { id: string; webhookId: string },
          )
          .map((d) => `${d.webhookId}/${d.id}`);
        return wanted.every((w) => got.includes(w));
      },
      120_000,
      () => JSON.stringify(got),
    );
    expect(new Set(got).size, "each queued delivery arrives once").toBe(got.length);
  }, 600_000);

  it(`helm rollback to ${previous?.version}: what the older operator does with the newer CRDs`, async () => {
    const r = await helm(["rollback", RELEASE, "1", "-n", NS, "--wait", "--timeout=240s"]);
    log(`helm rollback: exit ${r.code}\n${r.out}`);
    expect(r.code, r.out).toBe(0);
    await releasePodsReady("controller", previous.operatorImage);
    // The CRDs stay the working tree's (Helm never touches crds/ after install; the old controller
    // does not apply CRDs): spec.rollout still round-trips.
    expect(await rolloutRoundTrip()).toEqual(ROLLOUT);
    log(`${previous.version} controller after the rollback:\n${await controllerLog(40)}`);
  }, 420_000);
});
