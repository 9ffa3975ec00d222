// The Orchestrator's node pods for the node doctor: the orchestrator is read on its CLI port and
// its service port; transcoders on their own CLI port, and never asked for AI.
import type { StoredOrchestrator } from "../../schema/orchestrator.ts";
import type { NodeTarget } from "../doctor/index.ts";
import type { PodFacts } from "../node-status/facts.ts";
import { nodeTargets } from "../node-status/targets.ts";
import { PORTS } from "./names.ts";

export function orchestratorTargets(orch: StoredOrchestrator, pods: readonly PodFacts[]): NodeTarget[] {
  const aiExpected = (orch.spec.ai?.models?.length ?? 0) > 0;
  const liveExpected = orch.spec.ai?.live !== undefined;
  return nodeTargets(pods, (component) =>
    component === "transcoder"
      ? { role: "transcoder", cliPort: PORTS.transcoderCli, servicePort: undefined, aiExpected: false }
      : {
          role: "orchestrator",
          cliPort: PORTS.cli,
          servicePort: PORTS.service,
          aiExpected,
          ...(liveExpected ? { liveExpected } : {}),
        },
  );
}
