// An Orchestrator over its life on the real local control plane: chain settings from a devnet
// deployment ConfigMap, a service address from the Service's external address, a new session
// limit set on the running node (the node simulator on the fake pod's loopback IP) instead of a
// restart, and a rollout stuck on a broken revision recovered once the spec is fixed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { devnetConfigMap } from "../../src/controller/devnet/deployment-config-map.ts";
import { orchestratorController } from "../../src/controller/orchestrator/controller.ts";
import type { Manager } from "../../src/controller/runtime/index.ts";
import { createNodePool, type NodePool } from "../../src/dev/cluster/fleet.ts";
import { defaultFleet } from "../../src/dev/cluster/nodes.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { type SimulatorFleet, startSimulatorFleet } from "../../src/dev/simulators.ts";
import { ConfigMaps, isNotFound, type KubeObject, StatefulSets } from "../../src/kube/index.ts";
import { readStatus } from "../../src/node/client/index.ts";
import type { StoredOrchestrator } from "../../src/schema/orchestrator.ts";
import { kubeClient, kubeConfig, kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";
import { startTestManager } from "./support/manager.ts";
import { condition, orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();
let ns: Awaited<ReturnType<typeof testNamespace>>;
let manager: Manager;
let sims: SimulatorFleet;
let simDir: string;
const simLog: string[] = [];
const controllerLog: string[] = [];
const pools: NodePool[] = [];
const cpuOnly = defaultFleet.find((n) => n.name === "cpu-only")!;
const GOOD_IMAGE = "livepeer/go-livepeer:test";
const CONTROLLER_A = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const CONTROLLER_B = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";

beforeAll(async () => {
  ns = await testNamespace("orch-life");
  await installCrds(kubectl);
  manager = await startTestManager(
    "orchestrator-lifecycle-test",
    ns.name,
    [orchestratorController({ defaultImage: GOOD_IMAGE, stuckPodGraceMs: 3_000, liveCallTimeoutMs: 2_000 })],
    controllerLog,
  );
  simDir = mkdtempSync(path.join(tmpdir(), "orch-life-sims-"));
  sims = startSimulatorFleet(kubeConfig(), simDir, (l) => simLog.push(l), { namespace: ns.name });
});
// A failure shows what the controller and the simulators said meanwhile.
afterEach((ctx) => {
  if (ctx.task.result?.state === "fail") {
    const tail = (lines: string[], n: number) => lines.slice(-n).join("\n");
    process.stderr.write(
      `--- controller ---\n${tail(controllerLog, 60)}\n--- simulators ---\n${tail(simLog, 20)}\n`,
    );
  }
  controllerLog.length = 0;
  simLog.length = 0;
});
afterAll(async () => {
  await manager?.stop("tests done");
  await sims?.stop();
  if (simDir) rmSync(simDir, { recursive: true, force: true });
  await Promise.all(pools.map((p) => p.delete()));
  await ns.remove();
  await kc.close();
});

async function cpuPool(name: string): Promise<NodePool> {
  const p = await createNodePool(kubeConfig(), `${ns.name}-${name}`, [cpuOnly]);
  pools.push(p);
  return p;
}

const kit = orchestratorKit(client, () => ns.name);
const { read, until } = kit;
const apply = (name: string, spec: Record<string, unknown>, p: NodePool, podTemplate = {}) =>
  kit.apply(name, spec, p, podTemplate);

const current = (o: StoredOrchestrator) => o.status?.observedGeneration === o.metadata?.generation;
const readyFor = (reason: string) => (o: StoredOrchestrator) =>
  current(o) && condition(o, "Ready")?.reason === reason;

async function config(name: string): Promise<string | undefined> {
  const cm = await client
    .get<KubeObject & { data?: Record<string, string> }>(ConfigMaps, ns.name, `${name}-config`)
    .catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
  return cm?.data?.["livepeer.conf"];
}

async function statefulSet(name: string) {
  return client
    .get<KubeObject & { spec?: { template?: { metadata?: { annotations?: Record<string, string> } } } }>(
      StatefulSets,
      ns.name,
      name,
    )
    .catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
}

interface PodView {
  uid: string;
  ip: string;
  ready: boolean;
  revision: string;
  image: string;
  simulated: boolean;
  /** The pod's status as JSON, for matching a waiting reason or a scheduler message. */
  statusText: string;
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
    ready: p.status?.conditions?.some(
      (c: { type: string; status: string }) => c.type === "Ready" && c.status === "True",
    ),
    revision: p.metadata.labels?.["controller-revision-hash"] ?? "",
    image: p.spec.containers[0].image,
    simulated: p.metadata.annotations?.["livepeer.org/simulated"] === "true",
    statusText: JSON.stringify(p.status ?? {}),
    restarts: p.status?.containerStatuses?.[0]?.restartCount ?? 0,
  };
}

async function untilPod(
  name: string,
  ok: (p: PodView) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<PodView> {
  let last: PodView | undefined;
  await waitFor(
    `pod ${name}: ${what}`,
    async () => {
      last = await pod(name);
      return !!last && ok(last);
    },
    timeoutMs,
    () => JSON.stringify(last),
  );
  return last!;
}

async function events(reason: string): Promise<string[]> {
  const out = JSON.parse(await kubectl(["get", "events.events.k8s.io", "-n", ns.name, "-o", "json"]));
  return (out.items as { reason?: string; note?: string }[])
    .filter((e) => e.reason === reason)
    .map((e) => e.note ?? "");
}

async function untilEvent(reason: string, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  let found: string | undefined;
  await waitFor(
    `an Event ${reason} matching ${pattern}`,
    async () => {
      found = (await events(reason)).find((n) => pattern.test(n));
      return found !== undefined;
    },
    timeoutMs,
  );
  return found!;
}

async function sessionLimitOf(ip: string): Promise<number | undefined> {
  return (await readStatus(`http://${ip}:7935`, { timeoutMs: 2000 }).catch(() => undefined))?.sessionLimit;
}

describe("spec.devnet: chain settings from a devnet deployment ConfigMap", () => {
  it("holds the rollout until the ConfigMap is readable, says what to fix, and follows its changes", async () => {
    const p = await cpuPool("devnet");
    await kubectl(
      ["apply", "--server-side", "--field-manager=test", "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "ks", namespace: ns.name },
        stringData: { "key.json": "{}", password: "dev" },
      }),
    );
    await apply("chain", { network: "devnet", devnet: "dn", keystoreSecret: "ks", pricePerUnit: "1000" }, p);

    let o = await until("chain", readyFor("DevnetDeploymentUnavailable"));
    expect(condition(o, "Ready")?.message).toMatch(
      new RegExp(
        `ConfigMap ${ns.name}/dn \\(spec.devnet\\) not found: create it .*devnet configmap --name dn`,
      ),
    );
    expect(await statefulSet("chain")).toBeUndefined();
    expect(await config("chain")).toBeUndefined();

    // Present but without the labels the operator's cache selects, and without ethUrl.
    const cm = devnetConfigMap({
      name: "dn",
      namespace: ns.name,
      ethUrl: "http://127.0.0.1:8545",
      chainId: 1337,
      contracts: { Controller: { address: CONTROLLER_A, abi: [] } },
    });
    const { ethUrl: _dropped, ...withoutUrl } = cm.data!;
    await kubectl(
      ["apply", "--server-side", "--field-manager=test", "-f", "-"],
      JSON.stringify({ ...cm, metadata: { name: "dn", namespace: ns.name }, data: withoutUrl }),
    );
    o = await until("chain", (x) => /lacks the labels/.test(condition(x, "Ready")?.message ?? ""), 45_000);
    expect(condition(o, "Ready")?.message).toContain(
      `kubectl label configmap dn -n ${ns.name} app.kubernetes.io/managed-by=livepeer-operator app.kubernetes.io/component=devnet-deployment`,
    );

    // Labelled: the ConfigMap's own events wake the Orchestrator (well before its 30 s requeue).
    await kubectl([
      "label",
      "configmap",
      "dn",
      "-n",
      ns.name,
      "app.kubernetes.io/managed-by=livepeer-operator",
      "app.kubernetes.io/component=devnet-deployment",
    ]);
    o = await until("chain", (x) => /has no key ethUrl/.test(condition(x, "Ready")?.message ?? ""), 15_000);
    expect(condition(o, "Ready")).toMatchObject({ status: "False", reason: "DevnetDeploymentUnavailable" });
    expect(await statefulSet("chain")).toBeUndefined();

    await kubectl([
      "patch",
      "configmap",
      "dn",
      "-n",
      ns.name,
      "--type=merge",
      "-p",
      JSON.stringify({ data: { ethUrl: "http://127.0.0.1:8545" } }),
    ]);
    await waitFor(
      "the node's config and StatefulSet, once the devnet's chain is known",
      async () => !!(await config("chain")) && !!(await statefulSet("chain")),
      15_000,
    );
    const conf = (await config("chain"))!;
    expect(conf).toMatch(/^ethUrl http:\/\/127\.0\.0\.1:8545$/m);
    expect(conf).toMatch(new RegExp(`^ethController ${CONTROLLER_A}$`, "m"));
    // The config hash of the ConfigMap: a change restarts the node in place (node-pod/in-place.ts).
    const configHash = async () =>
      (
        await client
          .get<KubeObject & { data?: Record<string, string> }>(ConfigMaps, ns.name, "chain-config")
          .catch(() => undefined)
      )?.data?.["config-hash"];
    const hashA = await configHash();
    expect(hashA).toBeDefined();
    const podHashA = (await statefulSet("chain"))?.spec?.template?.metadata?.annotations?.[
      "livepeer.org/pod-hash"
    ];

    // A new deployment (another Controller) re-renders the config: the node restarts in place.
    await kubectl([
      "patch",
      "configmap",
      "dn",
      "-n",
      ns.name,
      "--type=merge",
      "-p",
      JSON.stringify({ data: { "Controller.json": JSON.stringify({ address: CONTROLLER_B, abi: [] }) } }),
    ]);
    await waitFor(
      "the config to follow the ConfigMap's Controller",
      async () => new RegExp(`^ethController ${CONTROLLER_B}$`, "m").test((await config("chain")) ?? ""),
      15_000,
    );
    await waitFor(
      "the config hash to change (a new Controller restarts the node)",
      async () => (await configHash()) !== hashA,
      15_000,
    );
    // Only the config file changed: the same pod template.
    expect(
      (await statefulSet("chain"))?.spec?.template?.metadata?.annotations?.["livepeer.org/pod-hash"],
    ).toBe(podHashA);

    // Explicit spec fields win over the deployment.
    await apply(
      "chain",
      {
        network: "devnet",
        devnet: "dn",
        keystoreSecret: "ks",
        pricePerUnit: "1000",
        ethUrl: "http://chain.example:8545",
      },
      p,
    );
    await waitFor(
      "spec.ethUrl to win",
      async () => /^ethUrl http:\/\/chain\.example:8545$/m.test((await config("chain")) ?? ""),
      15_000,
    );
    expect(await config("chain")).toMatch(new RegExp(`^ethController ${CONTROLLER_B}$`, "m"));
  });
});

describe("serviceAddr from the Service's external address", () => {
  it("LoadBalancer: nothing starts until the load balancer has an address, then the node advertises it", async () => {
    const p = await cpuPool("lb");
    await apply("lb", { service: { type: "LoadBalancer" } }, p);
    const o = await until("lb", readyFor("ServiceAddressPending"));
    expect(condition(o, "Ready")?.message).toMatch(
      /waiting for the LoadBalancer Service to get an external address/,
    );
    expect(o.status?.serviceAddr).toBeUndefined();
    expect(await statefulSet("lb")).toBeUndefined();

    // What a cloud's load balancer controller does (this control plane runs none).
    await kubectl([
      "patch",
      "service",
      "lb",
      "-n",
      ns.name,
      "--subresource=status",
      "--type=merge",
      "-p",
      JSON.stringify({ status: { loadBalancer: { ingress: [{ ip: "198.51.100.7" }] } } }),
    ]);
    const done = await until("lb", (x) => x.status?.serviceAddr === "198.51.100.7:8935" && current(x));
    expect(condition(done, "Ready")?.reason).not.toBe("ServiceAddressPending");
    const conf = await config("lb");
    expect(conf).toMatch(/^serviceAddr 198\.51\.100\.7:8935$/m);
    // The node does not ping an external address from inside the pod (it may not hairpin).
    expect(conf).toMatch(/^startupAvailabilityCheck false$/m);
    expect(await statefulSet("lb")).toBeDefined();
  });

  it("NodePort: starts with the in-cluster address, restarts once with its node's address and node port", async () => {
    const p = await cpuPool("np");
    await apply("np", { service: { type: "NodePort" } }, p);
    let nodePort = 0;
    await waitFor(
      "the NodePort Service's node port",
      async () => {
        const out = await kubectl(["get", "service", "np", "-n", ns.name, "-o", "json"]).catch(() => "");
        const port = out
          ? JSON.parse(out).spec.ports.find((x: { name: string }) => x.name === "service")
          : undefined;
        nodePort = port?.nodePort ?? 0;
        return nodePort > 0;
      },
      30_000,
    );
    const node = JSON.parse(await kubectl(["get", "node", p.nodes[0]!, "-o", "json"]));
    const addresses = node.status.addresses as { type: string; address: string }[];
    const host = (addresses.find((a) => a.type === "ExternalIP") ??
      addresses.find((a) => a.type === "InternalIP"))!.address;
    const want = `${host}:${nodePort}`;

    const o = await until("np", (x) => x.status?.serviceAddr === want && current(x));
    expect(await config("np")).toMatch(new RegExp(`^serviceAddr ${want.replace(/\./g, "\\.")}$`, "m"));
    expect(await config("np")).toMatch(/^startupAvailabilityCheck false$/m);
    // Created with the in-cluster address: the address is in the config file only, so the node
    // restarts in place and the pod template never changes (generation 1). The reconcile that
    // first sees the pod stamps it with the in-cluster address's config before it writes its
    // node's address, so the node restarts exactly once (needlessly if it had mounted the new file
    // already: a restart too many, never one missed).
    const generation = async () => (await statefulSet("np"))?.metadata?.generation;
    expect(await generation()).toBe(1);
    // UpToDate says every node pod runs the current config: by then the node has restarted into
    // it (it used to say so from the reconcile that changed the config, before any restart).
    await until("np", (x) => condition(x, "RolloutPending")?.reason === "UpToDate" && current(x));
    expect((await pod("np-0"))?.restarts).toBe(1);
    await untilEvent("RolloutNodeRestarted", /^restarting the node of pod np-0 in place/);
    const final = await untilPod("np-0", (x) => x.ready, "Ready on the NodePort address");
    expect(final.restarts).toBe(1);
    // Two more reconciles of "np", each worked off: one that wanted another roll or restart would
    // have bumped the StatefulSet's generation or the pod's restartCount by then.
    const controller = manager.controllers.find((c) => c.name === "orchestrator")!;
    const reconciles = async () =>
      (await manager.metrics.reconcileTotal.get()).values
        .filter((v) => v.labels.controller === "orchestrator")
        .reduce((n, v) => n + v.value, 0);
    for (let round = 0; round < 2; round++) {
      const seen = await reconciles();
      controller.enqueue(`${ns.name}/np`);
      await waitFor(
        "the orchestrator controller to reconcile np again",
        async () =>
          (await reconciles()) > seen &&
          (controller.queue?.len() ?? 0) === 0 &&
          !controller.queue?.processing().length,
        30_000,
      );
    }
    expect(await generation()).toBe(1);
    expect(await pod("np-0")).toMatchObject({ uid: final.uid, restarts: final.restarts });
    expect((await read("np"))?.status?.serviceAddr).toBe(o.status?.serviceAddr);
  });

  it("a serving Orchestrator switched to NodePort takes the node port its own write was given", async () => {
    const p = await cpuPool("tonp");
    await apply("tonp", {}, p);
    await until("tonp", readyFor("Serving"));
    // The API server allocates the node port in the very apply that makes the Service NodePort;
    // that write's echo wakes no one, and nothing else changes: the controller must look again
    // by itself (it used to wait for the slow not-Ready recheck, five minutes).
    await apply("tonp", { service: { type: "NodePort" } }, p);
    const node = JSON.parse(await kubectl(["get", "node", p.nodes[0]!, "-o", "json"]));
    const addresses = node.status.addresses as { type: string; address: string }[];
    const host = (addresses.find((a) => a.type === "ExternalIP") ??
      addresses.find((a) => a.type === "InternalIP"))!.address;
    const o = await until(
      "tonp",
      (x) => current(x) && x.status?.serviceAddr?.startsWith(`${host}:`) === true,
      30_000,
    );
    const nodePort = JSON.parse(
      await kubectl(["get", "service", "tonp", "-n", ns.name, "-o", "json"]),
    ).spec.ports.find((x: { name: string }) => x.name === "service").nodePort;
    expect(o.status?.serviceAddr).toBe(`${host}:${nodePort}`);
  });
});

describe("a new session limit is set on the running node, not by a restart", () => {
  it("spec.maxSessions change: same pod, the node's /status SessionLimit follows; a failed live call restarts the pod", async () => {
    const p = await cpuPool("live");
    await apply("live", { maxSessions: 3 }, p);
    const first = await untilPod(
      "live-0",
      (x) => x.ready && x.simulated,
      "Ready and backed by a node simulator",
    );
    await waitFor(
      "the simulator to run with 3 sessions",
      async () => (await sessionLimitOf(first.ip)) === 3,
      30_000,
    );
    const generation = (await statefulSet("live"))?.metadata?.generation;

    await apply("live", { maxSessions: 7 }, p);
    await until("live", (o) => o.status?.maxSessions === 7 && current(o));
    await waitFor(
      "the running node to take 7 sessions",
      async () => (await sessionLimitOf(first.ip)) === 7,
      30_000,
    );
    expect((await pod("live-0"))?.uid).toBe(first.uid);
    expect((await statefulSet("live"))?.metadata?.generation).toBe(generation);
    expect(await config("live")).toMatch(/^maxSessions 7$/m);
    expect(await untilEvent("SessionLimitSetLive", /session limit 3 -> 7 set live on live-0/)).toBeTruthy();

    // The node refuses the call: the pod is restarted and reads the new limit from its config.
    const fault = await fetch(`http://${first.ip}:7935/__sim/actions`, {
      method: "POST",
      body: JSON.stringify({ fail: { path: "/setMaxSessions", status: 500 } }),
    });
    expect(fault.ok).toBe(true);
    await apply("live", { maxSessions: 9 }, p);
    const second = await untilPod("live-0", (x) => x.uid !== first.uid && x.ready && x.simulated, "replaced");
    await waitFor(
      "the new pod to start with 9 sessions",
      async () => (await sessionLimitOf(second.ip)) === 9,
      30_000,
    );
    expect(
      await untilEvent("SessionLimitNotSetLive", /could not set the session limit 7 -> 9 live on pod live-0/),
    ).toMatch(/restarting the pod so it reads the new limit from its config file/);
  });
});

describe("a rollout stuck on a broken revision is recovered once the spec is fixed", () => {
  it.each([
    ["a crash-looping image", { image: "crashloop.kwok.invalid/livepeer:broken" }, {}, /CrashLoopBackOff/],
    [
      "an image that cannot be pulled",
      { image: "missing.kwok.invalid/livepeer:typo" },
      {},
      /ImagePullBackOff/,
    ],
    ["a pod no node can take", {}, { nodeSelector: { "livepeer.org/no-such-node": "x" } }, /Unschedulable/],
  ])("%s", async (what, badSpec, badTemplate, cause) => {
    const name = `stuck-${what.split(" ")[1]!.replace(/[^a-z]/g, "")}`;
    const p = await cpuPool(name);
    await apply(name, {}, p);
    await untilPod(`${name}-0`, (x) => x.ready, "Ready on the good revision");

    await apply(name, badSpec, p, badTemplate);
    await untilPod(`${name}-0`, (x) => cause.test(x.statusText), "stuck on the broken revision");

    await apply(name, {}, p);
    const healed = await untilPod(
      `${name}-0`,
      (x) => x.ready && x.image === GOOD_IMAGE,
      "the fixed revision Running and Ready, without a manual delete",
      90_000,
    );
    const sts = JSON.parse(await kubectl(["get", "sts", name, "-n", ns.name, "-o", "json"]));
    expect(healed.revision).toBe(sts.status.updateRevision);
    expect(
      await untilEvent("StuckRolloutRecovered", new RegExp(`deleted pod ${name}-0 .*\\(${cause.source}`)),
    ).toMatch(/kubernetes\/kubernetes#67250/);
  });
});
