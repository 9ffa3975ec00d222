// The e2e suite (test/e2e, vitest.e2e.config.ts) against the kind cluster, told about it through
// the LPO_E2E_* variables; its output goes straight to ours.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { NS, RELEASE } from "./release.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

export interface SuiteTarget {
  kubeconfig: string;
  kubectl: string;
  helm: string;
  valuesFile: string;
  images: { operator: string; simulator: string };
  /** The previous release, loaded into the nodes: the upgrade scenario runs with it. */
  previous?: { version: string; commit: string; chart: string; operator: string; simulator: string };
  /** The upgrade scenario's store: a directory on the workers, pinned to one of them. */
  deliveryStore?: { path: string; node: string };
  inNetns(argv: readonly string[]): string[];
  /** The suite's pid, to stop it should we be stopped first. */
  onStart(pid: number): void;
}

export function runSuite(t: SuiteTarget): Promise<number> {
  const [cmd, ...args] = t.inNetns([
    process.execPath,
    path.join(root, "node_modules/vitest/vitest.mjs"),
    "run",
    "--config",
    path.join(root, "vitest.e2e.config.ts"),
  ]);
  const suite = spawn(cmd!, args, {
    cwd: root,
    stdio: "inherit",
    env: {
      ...process.env,
      KUBECONFIG: t.kubeconfig,
      LPO_E2E_KUBECTL: t.kubectl,
      LPO_E2E_HELM: t.helm,
      LPO_E2E_NAMESPACE: NS,
      LPO_E2E_RELEASE: RELEASE,
      LPO_E2E_VALUES: t.valuesFile,
      LPO_E2E_OPERATOR_IMAGE: t.images.operator,
      LPO_E2E_SIMULATOR_IMAGE: t.images.simulator,
      ...(t.previous && {
        LPO_E2E_PREVIOUS_VERSION: t.previous.version,
        LPO_E2E_PREVIOUS_COMMIT: t.previous.commit,
        LPO_E2E_PREVIOUS_CHART: t.previous.chart,
        LPO_E2E_PREVIOUS_OPERATOR_IMAGE: t.previous.operator,
        LPO_E2E_PREVIOUS_SIMULATOR_IMAGE: t.previous.simulator,
      }),
      ...(t.deliveryStore && {
        LPO_E2E_DELIVERY_STORE: t.deliveryStore.path,
        LPO_E2E_DELIVERY_STORE_NODE: t.deliveryStore.node,
      }),
    },
  });
  if (suite.pid) t.onStart(suite.pid);
  return new Promise<number>((resolve) => suite.on("exit", (c) => resolve(c ?? 1)));
}
