// A controller Manager run in-process for one test file: watches only that file's namespace,
// no leader election, no process metrics; log lines are kept for failure messages.
import { type ControllerDefinition, Manager } from "../../../src/controller/runtime/index.ts";
import { createLogger } from "../../../src/process/log.ts";
import { pooledKubeConfig } from "./cluster.ts";

export async function startTestManager(
  identity: string,
  namespace: string,
  definitions: ControllerDefinition[],
  logLines: string[] = [],
): Promise<Manager> {
  const manager = new Manager({
    kubeConfig: pooledKubeConfig(),
    identity,
    namespaces: [namespace],
    leaderElection: false,
    processMetrics: false,
    log: createLogger("test", { write: (l) => logLines.push(l) }),
  });
  for (const d of definitions) manager.add(d);
  await manager.start();
  return manager;
}

/** Node doctor timings for tests: a node's /status read every second (the default is minutes). */
export const FAST_DOCTOR = {
  periodMs: 1_000,
  retryMs: 1_000,
  tickMs: 200,
  endpointTimeoutMs: 1_000,
} as const;
