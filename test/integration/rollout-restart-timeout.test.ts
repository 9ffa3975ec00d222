// An in-place restart that never comes, on the real control plane: only an Orchestrator's config
// file changes, so the controller asks its node to restart in place (the pod's restart-request
// annotations); the pod is annotated so that the simulator fleet plays a kubelet that never
// refreshes its mounted config (STALE_MOUNT, src/dev/liveness-probe.ts), whose liveness probe
// never restarts the node. Once the controller's in-place restart timeout passes (shortened here
// from 5 min by its inPlaceRestartTimeoutMs option) the pod is replaced instead, with a Warning.
// Its own file: the timeout is the controller's option, so it needs its own Manager.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { REQUESTED_AT } from "../../src/controller/node-pod/in-place.ts";
import { orchestratorController } from "../../src/controller/orchestrator/controller.ts";
import type { Manager } from "../../src/controller/runtime/index.ts";
import { createNodePool, type NodePool } from "../../src/dev/cluster/fleet.ts";
import { defaultFleet } from "../../src/dev/cluster/nodes.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { STALE_MOUNT } from "../../src/dev/liveness-probe.ts";
import { type SimulatorFleet, startSimulatorFleet } from "../../src/dev/simulators.ts";
import type { StoredOrchestrator } from "../../src/schema/orchestrator.ts";
import { kubeClient, kubeConfig, kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";
import { type EventAbout, eventsAbout } from "./support/events.ts";
import { FAST_DOCTOR, startTestManager } from "./support/manager.ts";
import { condition, isServing, orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();
let ns: Awaited<ReturnType<typeof testNamespace>>;
let manager: Manager;
let pool: NodePool;
let sims: SimulatorFleet;
const simDir = mkdtempSync(path.join(tmpdir(), "restart-timeout-sims-"));
const simLog: string[] = [];
const controllerLog: string[] = [];
/**
 * The controller's in-place restart timeout here (production: 5 min): long enough for the test to
 * read RestartingInPlace on a loaded machine before the replacement.
 */
const TIMEOUT_MS = 10_000;

beforeAll(async () => {
  ns = await testNamespace("restart-timeout");
  await installCrds(kubectl);
  pool = await createNodePool(kubeConfig(), `${ns.name}-cpu`, [
    defaultFleet.find((n) => n.name === "cpu-only")!,
  ]);
  sims = startSimulatorFleet(kubeConfig(), simDir, (l) => simLog.push(l), { namespace: ns.name });
  manager = await startTestManager(
    "restart-timeout-test",
    ns.name,
    [
      orchestratorController({
        defaultImage: "livepeer/go-livepeer:test",
        doctor: FAST_DOCTOR,
        inPlaceRestartTimeoutMs: TIMEOUT_MS,
      }),
    ],
    controllerLog,
  );
});
afterEach((ctx) => {
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
/** A change in the node's config file only (its renditions): its node is asked to restart in place. */
const RECONFIGURED = { transcodingOptions: "P144p30fps16x9" };

const rollout = (o: StoredOrchestrator) => condition(o, "RolloutPending");
const atGeneration = (o: StoredOrchestrator) => o.status?.observedGeneration === o.metadata?.generation;

interface PodView {
  uid: string;
  ip: string;
  ready: boolean;
  revision: string;
  restarts: number;
  annotations: Record<string, string>;
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
    restarts: p.status?.containerStatuses?.[0]?.restartCount ?? 0,
    annotations: p.metadata.annotations ?? {},
  };
}

describe("an in-place restart that does not come within the controller's timeout", () => {
  it("restarts in place first (RestartingInPlace), then replaces the pod with a Warning InPlaceRestartTimedOut, and the Orchestrator is Ready on the new config", async () => {
    await apply("stuck", {});
    await until("stuck", (o) => isServing(o) && rollout(o)?.reason === "UpToDate");
    const before = (await pod("stuck-0"))!;
    // The kubelet of this pod will never refresh its mounted config: the probe never restarts it.
    await kubectl(["annotate", "pod", "stuck-0", "-n", ns.name, `${STALE_MOUNT}=true`]);

    await apply("stuck", RECONFIGURED);
    // First what kubectl shows: the node restarting in place, with the time it is given.
    const restarting = await until(
      "stuck",
      (o) =>
        atGeneration(o) &&
        rollout(o)?.reason === "RestartingInPlace" &&
        /not restarted by/.test(rollout(o)!.message),
    );
    expect(rollout(restarting)?.message).toMatch(
      /^restarting the node of pod stuck-0 in place \(only its config changed; pod, node and GPUs kept\).*; not restarted by \S+Z, the pod is replaced instead/,
    );
    expect(restarting.status?.rollout).toMatchObject({ replicas: 1, updatedReplicas: 0, inPlace: true });
    // Asked for on the pod itself; the same pod, not restarted.
    const asked = (await pod("stuck-0"))!;
    expect(asked).toMatchObject({ uid: before.uid, revision: before.revision, restarts: before.restarts });
    const askedAt = Date.parse(asked.annotations[REQUESTED_AT] ?? "");
    expect(askedAt).not.toBeNaN();

    // The timeout passes: a new pod on the same revision (the template did not change).
    let replaced: PodView | undefined;
    await waitFor(
      "stuck-0 replaced by a new pod, Ready",
      async () => {
        replaced = await pod("stuck-0");
        return !!replaced && replaced.uid !== before.uid && replaced.ready;
      },
      60_000,
      () => JSON.stringify(replaced),
    );
    expect(replaced).toMatchObject({ revision: before.revision, restarts: 0 });
    expect(replaced?.annotations[STALE_MOUNT]).toBeUndefined();

    let events: EventAbout[] = [];
    await waitFor(
      "a Warning InPlaceRestartTimedOut about stuck",
      async () => {
        events = (await eventsAbout(client, ns.name, "stuck")).filter(
          (e) => e.reason === "InPlaceRestartTimedOut",
        );
        return events.length > 0;
      },
      30_000,
      () => JSON.stringify(events),
    );
    expect(events).toHaveLength(1);
    expect(events[0]?.type).toBe("Warning");
    expect(events[0]?.note).toMatch(
      new RegExp(
        `^replaced pod stuck-0 \\(StatefulSet stuck revision \\S+, config -> \\S+\\): its node did not restart in place within ${TIMEOUT_MS / 1000} s of the request at \\S+Z`,
      ),
    );
    expect(events[0]?.note).toMatch(/kubectl describe pod stuck-0/);
    // Not before the timeout: the request's time plus the timeout (whole seconds in the annotation).
    const waited = /\(waited (\d+) s\)/.exec(events[0]?.note ?? "");
    expect(Number(waited?.[1])).toBeGreaterThanOrEqual(TIMEOUT_MS / 1000);

    // The new pod runs the new config: no restart asked of it, and the rollout is over.
    const done = await until(
      "stuck",
      (o) => isServing(o) && rollout(o)?.status === "False" && o.status?.rollout?.updatedReplicas === 1,
    );
    expect(rollout(done)?.reason).toBe("UpToDate");
    expect(done.status?.rollout?.inPlace).toBeUndefined();
    await waitFor(
      "the new pod's node serves the new renditions",
      async () => {
        const r = await fetch(`http://${replaced!.ip}:7935/getBroadcastConfig`).catch(() => undefined);
        return (
          ((await r?.json().catch(() => ({}))) as { TranscodingOptions?: string })?.TranscodingOptions ===
          RECONFIGURED.transcodingOptions
        );
      },
      30_000,
    );
    expect((await pod("stuck-0"))?.annotations[REQUESTED_AT]).toBeUndefined();
  });
});
