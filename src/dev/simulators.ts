// The embedded default's stand-in for go-livepeer: every node pod the operator creates on a fake
// (kwok) node gets a node simulator listening on that pod's own loopback IP and ports, started
// with the pod's real arguments and config files, logging into the file `kubectl logs` reads.
// The pod is annotated `livepeer.org/simulated=true`, which the resource's status reports as
// Simulated=True: a simulated node is never passed off as a real one. kwok runs no probes, so the
// fleet plays an AI runner pod's startupProbe (not Ready until its runner answers /health) and a
// node pod's liveness probe's in-place restart (liveness-probe.ts). A test that needs an in-place
// restart that never happens annotates the pod `livepeer.org/simulated-stale-mount=true`
// (STALE_MOUNT): the fleet then plays a kubelet that never refreshes the pod's mounted config,
// whose probe never restarts the node, and the controller's restart timeout replaces the pod.
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import {
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
} from "@kubernetes/client-node";
import { CONFIG_HASH_KEY } from "../controller/node-pod/in-place.ts";
import { type NodeSimulatorOptions, startNodeSimulator } from "../simulator/simulator.ts";
import { attachPodLogs } from "./cluster/fleet.ts";
import { criLogLine } from "./cluster/kwok.ts";
import { inPlaceRestartDue, restartedStatus, wantedOf } from "./liveness-probe.ts";
import { resolvePodHosts } from "./pod-dns.ts";
import { routeModelsFile, serviceEndpoint, serviceKey, servicesInModelsFile } from "./service-urls.ts";
import { playStartupProbe } from "./startup-probe.ts";

const SIMULATED = "livepeer.org/simulated";
/** Runner pods of an Orchestrator's spec.ai (see src/controller/ai/names.ts). */
const RUNNER_COMPONENT = "ai-runner";
/** Runner pods of an Orchestrator's spec.ai.live (see src/controller/live-ai/names.ts). */
const LIVE_RUNNER_COMPONENT = "live-runner";
const RUNNER_PORT = 8000;

/** A simulated AI runner serving one runner pod. */
export interface RunnerSimulator {
  stop(): Promise<void>;
}

/**
 * Starts an AI runner simulator for a runner pod: the ai-runner's HTTP API on host:port, its model
 * from the pod's PIPELINE and MODEL_ID, its bearer token from AUTH_TOKEN, log lines to `log`.
 */
export type RunnerSimulatorFactory = (o: {
  host: string;
  port: number;
  env: Record<string, string>;
  log: (line: string) => void;
  /** `text` with each pod DNS name in it replaced by the pod's IP (no cluster DNS here). */
  routePodHosts?: (text: string) => Promise<string>;
}) => Promise<RunnerSimulator>;

interface Running {
  sim?: { stop(): Promise<void> };
  dir: string;
  /** Aborted when the pod goes (or the fleet stops) while its simulator is still starting. */
  abort: AbortController;
  /** A node simulator's restart request at its start (its container's env), see liveness-probe.ts. */
  startedWanted?: string;
  /** Being restarted in place. */
  restarting?: boolean;
}

const isRunnerPod = (pod: V1Pod) =>
  pod.metadata?.labels?.["app.kubernetes.io/component"] === RUNNER_COMPONENT;
const isLiveRunnerPod = (pod: V1Pod) =>
  pod.metadata?.labels?.["app.kubernetes.io/component"] === LIVE_RUNNER_COMPONENT;

/** Resolves once nothing listens on ip:port for each port, or after `timeoutMs` (then the start says why). */
async function portsFree(ip: string, ports: number[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, ip, () => server.close(() => resolve(true)));
    });
  for (const port of ports) {
    while (!(await free(port)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  }
}

export interface SimulatorFleet {
  stop(): Promise<void>;
}

/** Writes the pod's ConfigMap and Secret volumes under `dir`; returns mount path -> local path. */
async function materializeVolumes(
  core: CoreV1Api,
  pod: V1Pod,
  dir: string,
  signal: AbortSignal,
): Promise<Map<string, string>> {
  const ns = pod.metadata?.namespace ?? "default";
  const mounts = new Map<string, string>();
  const container = pod.spec?.containers[0];
  for (const m of container?.volumeMounts ?? []) {
    const volume = pod.spec?.volumes?.find((v) => v.name === m.name);
    let files: Record<string, string> | undefined;
    if (volume?.configMap?.name) {
      files = (await core.readNamespacedConfigMap({ name: volume.configMap.name, namespace: ns })).data;
    } else if (volume?.secret?.secretName) {
      const data =
        (await core.readNamespacedSecret({ name: volume.secret.secretName, namespace: ns })).data ?? {};
      files = Object.fromEntries(
        Object.entries(data).map(([k, v]) => [k, Buffer.from(v, "base64").toString()]),
      );
    } else if (volume?.emptyDir || volume?.persistentVolumeClaim) {
      files = {};
    }
    if (!files) continue;
    const local = path.join(dir, "mounts", m.name);
    mkdirSync(local, { recursive: true });
    for (const [k, v] of Object.entries(files)) writeFileSync(path.join(local, k), v, { mode: 0o600 });
    mounts.set(m.mountPath, local);
  }
  // Config files name other mounted files (keystore, orchSecret, aiModels): point them here too.
  // Pod DNS names (-liveRunnerAddr, the live runners' runner_url) go to the pods' IPs.
  for (const local of mounts.values()) {
    for (const file of ["livepeer.conf", LIVE_RUNNERS_FILE]) {
      const p = path.join(local, file);
      let text: string;
      try {
        text = readFileSync(p, "utf8");
      } catch {
        continue;
      }
      for (const [from, to] of mounts) text = text.split(from).join(to);
      // In the config only -liveRunnerAddr: the node keeps advertising its DNS service address.
      const lines = await Promise.all(
        text
          .split("\n")
          .map((line) =>
            file === LIVE_RUNNERS_FILE || /^\s*-?liveRunnerAddr\b/.test(line)
              ? resolvePodHosts(core, line, RUNNER_POD_WAIT_MS, signal)
              : line,
          ),
      );
      writeFileSync(p, lines.join("\n"), { mode: 0o600 });
    }
  }
  for (const local of mounts.values()) await routeRunnerUrls(core, path.join(local, AI_MODELS_FILE), signal);
  return mounts;
}

const AI_MODELS_FILE = "aiModels.json";
const LIVE_RUNNERS_FILE = "liveRunners.json";
/** How long a node's start waits for the runner pods behind its aiModels.json to be running. */
const RUNNER_POD_WAIT_MS = 60_000;
/** How long a runner's lookup of a pod named in a request (its session's node) waits for the pod's IP. */
const POD_HOST_WAIT_MS = 5_000;

/** Points the local aiModels.json's runner Service URLs at their pods (no cluster DNS here). */
async function routeRunnerUrls(core: CoreV1Api, file: string, signal: AbortSignal): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return;
  }
  const endpoints = new Map<string, string | undefined>();
  for (const service of servicesInModelsFile(text)) {
    endpoints.set(serviceKey(service), await serviceEndpoint(core, service, RUNNER_POD_WAIT_MS, signal));
  }
  writeFileSync(
    file,
    routeModelsFile(text, (service) => endpoints.get(serviceKey(service))),
    { mode: 0o600 },
  );
}

/**
 * The container's environment as the kubelet would set it: plain values and Secret or ConfigMap
 * keys (the node reads LP_* variables; a gateway's hook URLs come from its Secret this way).
 */
async function containerEnv(core: CoreV1Api, pod: V1Pod): Promise<Record<string, string>> {
  const ns = pod.metadata?.namespace ?? "default";
  const env: Record<string, string> = {};
  for (const e of pod.spec?.containers[0]?.env ?? []) {
    // $(VAR) of a variable defined above, as the kubelet expands it.
    if (e.value !== undefined)
      env[e.name] = e.value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (all, v: string) => env[v] ?? all);
    const field = e.valueFrom?.fieldRef?.fieldPath;
    if (field === "metadata.name") env[e.name] = pod.metadata?.name ?? "";
    if (field === "metadata.namespace") env[e.name] = ns;
    if (field === "status.podIP") env[e.name] = pod.status?.podIP ?? "";
    const secretKey = e.valueFrom?.secretKeyRef;
    if (secretKey?.name) {
      const data = (await core.readNamespacedSecret({ name: secretKey.name, namespace: ns })).data ?? {};
      const value = data[secretKey.key];
      if (value !== undefined) env[e.name] = Buffer.from(value, "base64").toString();
    }
    const configKey = e.valueFrom?.configMapKeyRef;
    if (configKey?.name) {
      const value = (await core.readNamespacedConfigMap({ name: configKey.name, namespace: ns })).data?.[
        configKey.key
      ];
      if (value !== undefined) env[e.name] = value;
    }
  }
  return env;
}

function rewrite(args: string[], mounts: Map<string, string>): string[] {
  return args.map((a) => {
    for (const [from, to] of mounts) if (a.startsWith(from)) return to + a.slice(from.length);
    return a;
  });
}

export function startSimulatorFleet(
  kc: KubeConfig,
  baseDir: string,
  log: (line: string) => void,
  options: {
    /** Only this namespace's pods (a test's own, so test files running at once do not compete). */
    namespace?: string;
    /** The simulators' timings (tests shorten the gateway's one-minute discovery refresh). */
    timings?: NodeSimulatorOptions["timings"];
    /** Serves AI runner pods (component ai-runner); absent: they are left unserved, and said so. */
    runnerSimulator?: RunnerSimulatorFactory;
    /** Serves live runner pods (component live-runner); absent: they are left unserved, and said so. */
    liveRunnerSimulator?: RunnerSimulatorFactory;
  } = {},
): SimulatorFleet {
  const core = kc.makeApiClient(CoreV1Api);
  const running = new Map<string, Running>();
  let stopped = false;

  /** False once the pod is gone or the fleet stopped while its simulator was starting. */
  const current = (uid: string, entry: Running) => !stopped && running.get(uid) === entry;

  async function start(pod: V1Pod): Promise<void> {
    const uid = pod.metadata!.uid!;
    const dir = path.join(baseDir, uid);
    const entry: Running = { dir, abort: new AbortController() };
    running.set(uid, entry);
    mkdirSync(dir, { recursive: true });
    const logFile = path.join(dir, "node.log");
    writeFileSync(logFile, "");
    await attachPodLogs(kc, { namespace: pod.metadata!.namespace!, pod: pod.metadata!.name!, file: logFile });
    if (isRunnerPod(pod)) return startRunner(pod, entry, logFile, options.runnerSimulator, "AI runner");
    if (isLiveRunnerPod(pod))
      return startRunner(pod, entry, logFile, options.liveRunnerSimulator, "live runner");
    return startNode(pod, entry, logFile);
  }

  async function startNode(pod: V1Pod, entry: Running, logFile: string): Promise<void> {
    const uid = pod.metadata!.uid!;
    const name = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    entry.startedWanted = wantedOf(pod);
    const mounts = await materializeVolumes(core, pod, entry.dir, entry.abort.signal);
    // The in-cluster service address has no DNS here: skip the node's self-check of it.
    const argv = [...rewrite(pod.spec?.containers[0]?.args ?? [], mounts), "-startupAvailabilityCheck=false"];
    // Another fleet (a test file running beside this one) may not have stopped the simulator of
    // the pod that held this IP before: wait for its ports rather than log a bind failure the
    // node doctor would rightly report.
    await portsFree(pod.status!.podIP!, [1935, 5935, 7935, 8935], 15_000);
    const env = await containerEnv(core, pod);
    try {
      const sim = await startNodeSimulator({
        argv,
        env,
        ...(options.timings ? { timings: options.timings } : {}),
        host: pod.status!.podIP!,
        // A line after the pod's simulator was stopped (its directory removed) has nowhere to go.
        log: (line) => {
          if (running.get(uid) === entry) appendFileSync(logFile, criLogLine(line));
        },
        availabilityCheckDelayMs: 0,
        signal: entry.abort.signal,
      });
      entry.sim = sim;
      if (!current(uid, entry)) return void (await sim.stop());
      await core.patchNamespacedPod(
        {
          name: pod.metadata!.name!,
          namespace: pod.metadata!.namespace!,
          body: { metadata: { annotations: { [SIMULATED]: "true" } } },
        },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
      log(`[simulator] ${name}: node simulator on ${pod.status?.podIP} (${sim.urls.cli})`);
    } catch (err) {
      if (!current(uid, entry)) return;
      appendFileSync(logFile, criLogLine(`node simulator refused to start: ${(err as Error).message}`));
      log(`[simulator] ${name}: could not start: ${(err as Error).message}`);
    }
  }

  async function startRunner(
    pod: V1Pod,
    entry: Running,
    logFile: string,
    factory: RunnerSimulatorFactory | undefined,
    what: string,
  ): Promise<void> {
    const name = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    if (!factory) {
      log(`[simulator] ${name}: ${what} pod left unserved (no ${what} simulator in this fleet)`);
      return;
    }
    const uid = pod.metadata!.uid!;
    await portsFree(pod.status!.podIP!, [RUNNER_PORT], 15_000);
    // Not Ready until the runner answers its startupProbe (kwok made the pod Ready at once).
    void playStartupProbe(core, pod, entry.abort.signal).catch((err: Error) => {
      if (current(uid, entry)) log(`[simulator] ${name}: startupProbe: ${err.message}`);
    });
    try {
      // Pod DNS names in the env (a live runner's ORCH_URL and RUNNER_URL) go to the pods' IPs.
      const env = Object.fromEntries(
        await Promise.all(
          Object.entries(await containerEnv(core, pod)).map(
            async ([k, v]) =>
              [k, await resolvePodHosts(core, v, RUNNER_POD_WAIT_MS, entry.abort.signal)] as const,
          ),
        ),
      );
      const sim = await factory({
        host: pod.status!.podIP!,
        port: RUNNER_PORT,
        env,
        log: (line) => {
          if (running.get(uid) === entry) appendFileSync(logFile, criLogLine(line));
        },
        routePodHosts: (text) => resolvePodHosts(core, text, POD_HOST_WAIT_MS, entry.abort.signal),
      });
      entry.sim = sim;
      if (!current(uid, entry)) return void (await sim.stop());
      await core.patchNamespacedPod(
        {
          name: pod.metadata!.name!,
          namespace: pod.metadata!.namespace!,
          body: { metadata: { annotations: { [SIMULATED]: "true" } } },
        },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
      log(`[simulator] ${name}: ${what} simulator on ${pod.status?.podIP}:${RUNNER_PORT}`);
    } catch (err) {
      if (!current(uid, entry)) return;
      appendFileSync(logFile, criLogLine(`${what} simulator refused to start: ${(err as Error).message}`));
      log(`[simulator] ${name}: could not start the ${what} simulator: ${(err as Error).message}`);
    }
  }

  /** The liveness probe's part: restarts the pod's node in place once it is due. */
  async function probeLiveness(pod: V1Pod): Promise<void> {
    const uid = pod.metadata!.uid!;
    const entry = running.get(uid);
    if (!entry?.sim || entry.restarting || entry.startedWanted === undefined) return;
    if (wantedOf(pod) === entry.startedWanted) return;
    const cm = pod.spec?.volumes?.find((v) => v.name === "config")?.configMap?.name;
    const mounted = cm
      ? (await core.readNamespacedConfigMap({ name: cm, namespace: pod.metadata!.namespace! })).data?.[
          CONFIG_HASH_KEY
        ]
      : undefined;
    if (!inPlaceRestartDue(pod, entry.startedWanted, mounted) || !current(uid, entry)) return;
    entry.restarting = true;
    const name = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    const logFile = path.join(entry.dir, "node.log");
    appendFileSync(
      logFile,
      criLogLine(`liveness probe failed: config ${wantedOf(pod)} is mounted and wanted: restarting`),
    );
    entry.abort.abort();
    await entry.sim.stop().catch(() => undefined);
    if (!current(uid, entry)) return;
    const next: Running = { dir: entry.dir, abort: new AbortController() };
    running.set(uid, next);
    await core.patchNamespacedPodStatus(
      {
        name: pod.metadata!.name!,
        namespace: pod.metadata!.namespace!,
        body: restartedStatus(pod, new Date()),
      },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    log(`[simulator] ${name}: restarting the node in place (config ${wantedOf(pod)})`);
    await startNode(pod, next, logFile);
  }

  async function stopOne(uid: string): Promise<void> {
    const entry = running.get(uid);
    running.delete(uid);
    entry?.abort.abort();
    await entry?.sim?.stop().catch(() => undefined);
    if (entry) rmSync(entry.dir, { recursive: true, force: true });
  }

  async function sync(): Promise<void> {
    const labelSelector = "app.kubernetes.io/managed-by=livepeer-operator";
    const pods = options.namespace
      ? await core.listNamespacedPod({ namespace: options.namespace, labelSelector })
      : await core.listPodForAllNamespaces({ labelSelector });
    const live = pods.items.filter(
      (pod) =>
        pod.metadata?.uid &&
        !pod.metadata.deletionTimestamp &&
        pod.status?.phase === "Running" &&
        pod.status.podIP?.startsWith("127."),
    );
    const uids = new Set(live.map((pod) => pod.metadata!.uid!));
    // Gone pods first: a replacement pod often gets the same IP, and its ports must be free.
    for (const uid of [...running.keys()]) if (!uids.has(uid)) await stopOne(uid);
    // Not awaited: a node's start waits for its AI runners (their pods, then their cold start),
    // which this loop starts too.
    for (const pod of live) {
      if (running.has(pod.metadata!.uid!))
        void probeLiveness(pod).catch((e: Error) => {
          if (!stopped && running.has(pod.metadata!.uid!)) log(`[simulator] liveness: ${e.message}`);
        });
      if (!running.has(pod.metadata!.uid!))
        // A start cut short by the pod going away has nothing to report.
        void start(pod).catch((e: Error) => {
          if (!stopped && running.has(pod.metadata!.uid!)) log(`[simulator] ${e.message}`);
        });
    }
  }

  const loop = (async () => {
    while (!stopped) {
      await sync().catch((e: Error) => log(`[simulator] sync: ${e.message}`));
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();

  return {
    async stop() {
      stopped = true;
      await loop;
      await Promise.all([...running.keys()].map(stopOne));
    },
  };
}
