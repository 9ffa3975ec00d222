// Names and labels of an Orchestrator's AI children: one place, so the builders, the status, the
// watches and the simulator fleet agree.
import { createHash } from "node:crypto";
import { nodeLabels } from "../node-pod/index.ts";

/** `app.kubernetes.io/component` of runner pods (the simulator fleet recognises them by it). */
export const RUNNER_COMPONENT = "ai-runner";
/** Selects one model's runner pods among the Orchestrator's. */
export const RUNNER_LABEL = "livepeer.org/ai-runner";
/** The runner's container (the node doctor reads its log). */
export const RUNNER_CONTAINER = "runner";
/** The Secret key of the node's models file. */
export const AI_MODELS_FILE = "aiModels.json";

/** The Secret holding the node's aiModels.json and each runner's token. */
export const aiSecretName = (orchestrator: string) => `${orchestrator}-ai-models`;

/** The key of one runner's token in that Secret. */
export const tokenKey = (runner: string) => `${runner}.token`;

/**
 * One model's runner Deployment and Service: `<orchestrator>-<pipeline>-<6 hex of pipeline and
 * model>` (a DNS label, stable while the entry keeps its pipeline and model, whatever its place in
 * the list).
 */
export function runnerName(orchestrator: string, pipeline: string, modelId: string): string {
  const hash = createHash("sha256").update(`${pipeline}\u0000${modelId}`).digest("hex").slice(0, 6);
  const head = `${orchestrator}-${pipeline}`.slice(0, 63 - 7).replace(/-+$/, "");
  return `${head}-${hash}`;
}

export function runnerLabels(orchestrator: string, runner: string): Record<string, string> {
  return { ...nodeLabels(orchestrator, RUNNER_COMPONENT), [RUNNER_LABEL]: runner };
}

/** What the node dials: the runner Service's cluster DNS name. */
export const runnerUrl = (runner: string, namespace: string, port: number) =>
  `http://${runner}.${namespace}.svc.cluster.local:${port}`;
