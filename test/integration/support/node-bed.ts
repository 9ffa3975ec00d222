// A test bed for node resources: a namespace of the test's own, the CRDs, a fenced pool of fake
// GPU nodes, node simulators serving its pods, the API (whose node hooks gateways call) and a
// manager running the Orchestrator and Gateway controllers (and, asked, the RemoteSigner's) with a fast node doctor. Each
// integration file that needs node pods starts one and stops it whole.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ApiServerOptions } from "../../../src/api/server.ts";
import { gatewayController } from "../../../src/controller/gateway/controller.ts";
import { orchestratorController } from "../../../src/controller/orchestrator/controller.ts";
import { remoteSignerController } from "../../../src/controller/remote-signer/controller.ts";
import type { Manager } from "../../../src/controller/runtime/index.ts";
import { createNodePool, type NodePool } from "../../../src/dev/cluster/fleet.ts";
import { defaultFleet } from "../../../src/dev/cluster/nodes.ts";
import {
  type RunnerSimulatorFactory,
  type SimulatorFleet,
  startSimulatorFleet,
} from "../../../src/dev/simulators.ts";
import type { NodeSimulatorOptions } from "../../../src/simulator/index.ts";
import { startTestApi, type TestApi } from "../api-harness.ts";
import { kubeConfig, kubectl, testNamespace } from "./cluster.ts";
import { installCrds } from "./crds.ts";
import { startTestManager } from "./manager.ts";

export interface NodeBedOptions {
  /** Namespace prefix and the manager's name. */
  name: string;
  /** Fake nodes (by fleet name) the bed's pods are fenced onto. */
  nodes: string[];
  timings?: NodeSimulatorOptions["timings"];
  runnerSimulator?: RunnerSimulatorFactory;
  /** Serves live runner pods (spec.ai.live). */
  liveRunnerSimulator?: RunnerSimulatorFactory;
  /** The doctor's period (ms); retry, tick and endpoint timeout follow from it. */
  doctorPeriodMs?: number;
  /** More API options, made once the namespace exists (a store to start first, for example). */
  api?: () => Promise<Partial<ApiServerOptions>>;
  /** Run the RemoteSigner controller too. */
  remoteSigners?: boolean;
}

export interface NodeBed {
  ns: Awaited<ReturnType<typeof testNamespace>>;
  pool: NodePool;
  sims: SimulatorFleet;
  api: TestApi;
  manager: Manager;
  simLog: string[];
  controllerLog: string[];
  /** The last simulator lines and the controller's warnings/errors (matching `also`), for failures. */
  context(also?: RegExp): string;
  /** Pod template fields that keep the bed's pods on its pool. */
  fence(): { nodeSelector: Record<string, string>; tolerations: NodePool["tolerations"] };
  stop(): Promise<void>;
}

export async function startNodeBed(o: NodeBedOptions): Promise<NodeBed> {
  const simDir = mkdtempSync(path.join(tmpdir(), `${o.name}-sims-`));
  const simLog: string[] = [];
  const controllerLog: string[] = [];
  const parts: Partial<NodeBed> = {};
  const stop = async () => {
    await parts.manager?.stop("tests done");
    await parts.api?.close();
    await parts.sims?.stop();
    await parts.pool?.delete();
    await parts.ns?.remove();
    rmSync(simDir, { recursive: true, force: true });
  };
  try {
    parts.ns = await testNamespace(o.name);
    const namespace = parts.ns.name;
    await installCrds(kubectl);
    parts.pool = await createNodePool(
      kubeConfig(),
      `${namespace}-pool`,
      o.nodes.map((name) => defaultFleet.find((n) => n.name === name)!),
    );
    parts.sims = startSimulatorFleet(kubeConfig(), simDir, (l) => simLog.push(l), {
      namespace,
      ...(o.timings ? { timings: o.timings } : {}),
      ...(o.runnerSimulator ? { runnerSimulator: o.runnerSimulator } : {}),
      ...(o.liveRunnerSimulator ? { liveRunnerSimulator: o.liveRunnerSimulator } : {}),
    });
    parts.api = await startTestApi("default", { nodeHooks: true, ...(await o.api?.()) });
    const periodMs = o.doctorPeriodMs ?? 2_000;
    const doctor = { periodMs, retryMs: periodMs / 2, tickMs: 200, endpointTimeoutMs: 1_000 };
    parts.manager = await startTestManager(
      `${o.name}-test`,
      namespace,
      [
        orchestratorController({ defaultImage: "livepeer/go-livepeer:test", doctor }),
        gatewayController({
          defaultImage: "livepeer/go-livepeer:test",
          doctor,
          nodeHooksUrl: new URL(parts.api.url).origin,
          orchestratorAddresses: "pod-ip",
        }),
        ...(o.remoteSigners
          ? [
              remoteSignerController({
                defaultImage: "livepeer/go-livepeer:test",
                doctor,
                nodeHooksUrl: new URL(parts.api.url).origin,
                orchestratorAddresses: "pod-ip",
              }),
            ]
          : []),
      ],
      controllerLog,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  const pool = parts.pool;
  return {
    ...(parts as Required<Pick<NodeBed, "ns" | "pool" | "sims" | "api" | "manager">>),
    simLog,
    controllerLog,
    context: (also = /warn|error/i) =>
      `${simLog.slice(-10).join("\n")}\n${controllerLog
        .filter((l) => also.test(l))
        .slice(-8)
        .join("\n")}`,
    fence: () => ({ nodeSelector: pool.nodeSelector, tolerations: pool.tolerations }),
    stop,
  };
}
