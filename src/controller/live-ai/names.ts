// Names and labels of an Orchestrator's live runners: one place, so the builders, the static
// registration, the status, the watches and the local fleet agree.
import { createHash } from "node:crypto";
import { LIVE_PIPELINE } from "../../schema/live-ai.ts";
import { nodeLabels } from "../node-pod/index.ts";

/** `app.kubernetes.io/component` of live runner pods. */
export const LIVE_RUNNER_COMPONENT = "live-runner";
/** Selects one app's runner pods among the Orchestrator's. */
export const LIVE_APP_LABEL = "livepeer.org/live-app";
/** The runner's container (the runner doctor reads its log). */
export const LIVE_RUNNER_CONTAINER = "runner";
/** The ai-runner's HTTP port: /health and the app. */
export const LIVE_RUNNER_PORT = 8000;
/** The Secret key of the node's -liveRunnerConfig file. */
export const LIVE_RUNNERS_FILE = "liveRunners.json";

/** The Secret holding the static registration (-liveRunnerConfig). */
export const liveRunnersSecretName = (orchestrator: string) => `${orchestrator}-live-runners`;

/** What the node advertises for the app: go-livepeer's `app`, `pipeline/model`. */
export const liveAppName = (id: string) => `${LIVE_PIPELINE}/${id}`;

/**
 * One app's runner StatefulSet and headless Service: `<orchestrator>-live-<id>`, cut with a hash to
 * 52 characters (a StatefulSet's pods carry `<name>-<revision hash>` in a 63-character label).
 */
export function liveRunnerSetName(orchestrator: string, id: string): string {
  const full = `${orchestrator}-live-${id}`;
  if (full.length <= 52) return full;
  const hash = createHash("sha256").update(full).digest("hex").slice(0, 6);
  return `${full.slice(0, 52 - 7).replace(/-+$/, "")}-${hash}`;
}

export function liveRunnerLabels(orchestrator: string, id: string): Record<string, string> {
  return { ...nodeLabels(orchestrator, LIVE_RUNNER_COMPONENT), [LIVE_APP_LABEL]: id };
}

/** One runner pod's stable name (StatefulSet ordinal). */
export const liveRunnerPod = (set: string, ordinal: number) => `${set}-${ordinal}`;

/** What the node dials for one runner: the pod's DNS name under the headless Service. */
export const liveRunnerUrl = (set: string, ordinal: number, namespace: string) =>
  `http://${liveRunnerPod(set, ordinal)}.${set}.${namespace}.svc.cluster.local:${LIVE_RUNNER_PORT}`;
