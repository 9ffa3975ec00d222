// An Orchestrator's runner pods for the runner doctor: read on the runner's HTTP port (/health,
// /hardware/stats), their log for CUDA out-of-memory lines.
import { AI_RUNNER_PORT } from "../../schema/ai.ts";
import type { NodeTarget } from "../doctor/index.ts";
import type { PodFacts } from "../node-status/facts.ts";
import { nodeTargets } from "../node-status/targets.ts";

export function runnerTargets(runnerPods: readonly PodFacts[]): NodeTarget[] {
  return nodeTargets(runnerPods, () => ({
    role: "aiRunner",
    cliPort: AI_RUNNER_PORT,
    servicePort: undefined,
    aiExpected: false,
  }));
}
