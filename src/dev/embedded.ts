// The embedded default (`npm start`): everything the product needs on one machine with no
// cluster, or on the cluster KUBECONFIG names. Each part is a named step that starts something
// and returns how to stop it; they stop in reverse order on Ctrl-C.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { KubeConfig } from "@kubernetes/client-node";
import { mintToken } from "../api/auth/mint.ts";
import { webhookNamespacePolicy } from "../schema/webhook-namespace-policy.ts";
import { runKubectl, startControlPlane } from "./cluster/control-plane.ts";
import { applyFleet } from "./cluster/fleet.ts";
import { defaultFleet } from "./cluster/nodes.ts";
import { freePorts } from "./cluster/ports.ts";
import { type EmbeddedChain, startEmbeddedChain } from "./devnet.ts";
import { liveRunnerSimulatorFactory } from "./live-runner-simulators.ts";
import { announceReady, clearState, type DevState, stateFile } from "./ready.ts";
import { aiRunnerSimulatorFactory } from "./runner-simulators.ts";
import { startCommand, waitHealthy } from "./services.ts";
import { startSimulatorFleet } from "./simulators.ts";

const CRD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../deploy/crds");
/** Where the embedded default keeps Webhooks (the API's namespace). */
export const DEV_NAMESPACE = "livepeer-system";

export interface EmbeddedOptions {
  /** Directory holding `.dev/` (the current directory by default). */
  baseDir: string;
  /** Use this cluster instead of starting the local control plane. */
  kubeconfig?: string;
  /**
   * The devnet's round ticker (a block every `blockIntervalMs`, a round every `roundLength`
   * blocks); false: no chain. Only with the local control plane: an existing cluster's pods
   * cannot reach this machine's loopback.
   */
  chain?: { blockIntervalMs: number; roundLength: number } | false;
  log?: (line: string) => void;
}

export interface Running {
  state: DevState;
  stop(): Promise<void>;
}

export async function startEmbedded(opts: EmbeddedOptions): Promise<Running> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((e: Error) => log(`[dev] stopping: ${e.message}`));
    clearState(opts.baseDir);
  };
  try {
    let kubeconfig = opts.kubeconfig;
    let kubectl = "kubectl";
    let track: (pid: number) => void = () => undefined;
    let untrack: (pid: number) => void = () => undefined;
    let trackCleanup: (argv: string[]) => void = () => undefined;
    if (kubeconfig) {
      log(`[dev] using the cluster in ${kubeconfig} (KUBECONFIG); no local control plane`);
    } else {
      const dir = path.join(opts.baseDir, ".dev", "cluster");
      rmSync(dir, { recursive: true, force: true });
      const t0 = Date.now();
      const cp = await startControlPlane({ dir, progress: log });
      stops.push(async () => {
        await cp.stop();
        rmSync(dir, { recursive: true, force: true });
      });
      const kc = new KubeConfig();
      kc.loadFromFile(cp.kubeconfig);
      await applyFleet(kc, defaultFleet);
      log(
        `[dev] local control plane ready in ${((Date.now() - t0) / 1000).toFixed(1)} s with ${defaultFleet.length} fake nodes`,
      );
      kubeconfig = cp.kubeconfig;
      kubectl = cp.binaries.kubectl;
      track = (pid) => cp.track(pid);
      untrack = (pid) => cp.untrack(pid);
      trackCleanup = (argv) => cp.trackCleanup(argv);
      // Killed abruptly, no state may claim a run that is gone.
      trackCleanup([
        "rm",
        "-f",
        path.resolve(stateFile(opts.baseDir)),
        path.resolve(opts.baseDir, ".dev", "jwt-secret"),
      ]);
      // Runner pods of spec.ai get the AI runner simulator (a 5 s cold start, not the spec's
      // minutes); live runner pods of spec.ai.live the live runner simulator (pass-through).
      const fleet = startSimulatorFleet(kc, path.join(opts.baseDir, ".dev", "simulators"), log, {
        runnerSimulator: aiRunnerSimulatorFactory(),
        liveRunnerSimulator: liveRunnerSimulatorFactory(),
      });
      stops.push(() => fleet.stop());
    }
    const devDir = path.join(opts.baseDir, ".dev");
    const k = (args: string[], input?: string) => runKubectl(kubectl, kubeconfig!, args, input);

    // The CRDs, then the controller and the API: the same commands a cluster runs.
    const crds = readdirSync(CRD_DIR)
      .filter((f) => f.endsWith(".yaml"))
      .map((f) => path.join(CRD_DIR, f));
    await k(["apply", "--server-side", "--force-conflicts", ...crds.flatMap((f) => ["-f", f])]);
    await k([
      "wait",
      "--for=condition=Established",
      "--timeout=60s",
      ...crds.map((f) => `crd/${path.basename(f, ".yaml")}`),
    ]);
    await k(["create", "namespace", DEV_NAMESPACE]).catch((e: Error) => {
      if (!/AlreadyExists/.test(e.message)) throw e;
    });
    // As the chart does: Webhooks outside the namespace the API serves are refused, naming it.
    await k(
      ["apply", "--server-side", "--force-conflicts", "--field-manager=livepeer-operator-dev", "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "List",
        items: webhookNamespacePolicy({
          namespace: DEV_NAMESPACE,
          name: "livepeer-operator-webhook-namespace",
        }),
      }),
    );
    // The chain deploys while the controller and the API start; READY waits for both.
    const chainStart =
      opts.chain && !opts.kubeconfig
        ? startEmbeddedChain({
            devDir,
            ...opts.chain,
            applyServerSide: (json) =>
              k(["apply", "--server-side", "--field-manager=livepeer-operator-dev", "-f", "-"], json),
            track,
            untrack,
            trackCleanup,
            log,
          })
        : undefined;
    chainStart?.catch(() => undefined);
    stops.push(async () => (await chainStart?.catch(() => undefined))?.stop());
    if (opts.chain && opts.kubeconfig) {
      log(
        "[dev] no devnet: pods of the cluster in KUBECONFIG cannot reach this machine's loopback (run 'livepeer-operator devnet up', then 'devnet configmap --eth-url URL' with a URL they reach)",
      );
    }
    const [metricsPort, apiPort] = await freePorts(2);
    const logDir = path.join(devDir, "logs");
    const controller = startCommand(
      "controller",
      [
        "controller",
        `--kubeconfig=${kubeconfig}`,
        `--metrics-addr=127.0.0.1:${metricsPort}`,
        "--leader-elect=false",
        // Secrets are listed and watched only where the API keeps Webhooks, as in a cluster.
        `--webhook-namespace=${DEV_NAMESPACE}`,
        // Gateway discovery through the API's node hooks; simulated gateways dial orchestrators'
        // loopback pod IPs (there is no cluster DNS here). On a cluster: service addresses.
        `--node-hooks-url=http://127.0.0.1:${apiPort}`,
        ...(opts.kubeconfig ? [] : ["--orchestrator-addresses=pod-ip"]),
      ],
      logDir,
      log,
    );
    if (controller.process.pid) track(controller.process.pid);
    stops.push(() => controller.stop());
    const secret = randomBytes(32).toString("hex");
    mkdirSync(devDir, { recursive: true });
    const secretFile = path.join(devDir, "jwt-secret");
    writeFileSync(secretFile, secret, { mode: 0o600 });
    stops.push(async () => rmSync(secretFile, { force: true }));
    const api = startCommand(
      "api",
      [
        "api",
        `--listen=127.0.0.1:${apiPort}`,
        `--kubeconfig=${kubeconfig}`,
        `--namespace=${DEV_NAMESPACE}`,
        `--jwt-secret-file=${secretFile}`,
        "--allow-loopback-targets",
        `--delivery-store=sqlite:${path.join(devDir, "delivery.sqlite")}`,
      ],
      logDir,
      log,
    );
    if (api.process.pid) track(api.process.pid);
    stops.push(() => api.stop());
    await Promise.all([
      waitHealthy(controller, `http://127.0.0.1:${metricsPort}/readyz`),
      waitHealthy(api, `http://127.0.0.1:${apiPort}/readyz`),
    ]);
    const chain: EmbeddedChain | undefined = await chainStart;
    const token = await mintToken({
      secret: new TextEncoder().encode(secret),
      sub: "dev",
      scope: "admin events:write",
      ttlSeconds: 7 * 24 * 3600,
    });
    const state: DevState = {
      kubeconfig: path.resolve(kubeconfig),
      apiUrl: `http://127.0.0.1:${apiPort}/api`,
      metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
      ...(chain ? { ethUrl: chain.ethUrl, deployments: chain.deployments } : {}),
      token,
      pid: process.pid,
    };
    announceReady(opts.baseDir, state);
    return { state, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Runs until SIGINT/SIGTERM, then stops everything and exits 0. */
export async function runUntilSignal(running: Running, log: (line: string) => void): Promise<number> {
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  log("[dev] shutting down");
  await running.stop();
  log("[dev] stopped; nothing left running");
  return 0;
}

export function kubeconfigFromEnv(): string | undefined {
  const k = process.env.KUBECONFIG;
  return k && existsSync(k.split(path.delimiter)[0]!) ? k.split(path.delimiter)[0] : undefined;
}
