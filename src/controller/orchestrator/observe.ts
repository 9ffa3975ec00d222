// The Orchestrator's node pods as the node doctor sees them (pure): where each pod's endpoints
// are, whether it serves, and the state of its container.

import type { StoredOrchestrator } from "../../schema/orchestrator.ts";
import type { NodeTarget } from "../doctor/index.ts";
import { PORTS } from "./names.ts";
import type { PodFacts } from "./resource.ts";

const COMPONENT_LABEL = "app.kubernetes.io/component";
export const NODE_CONTAINER = "livepeer";

export function nodeTargets(orch: StoredOrchestrator, pods: readonly PodFacts[]): NodeTarget[] {
  const aiExpected = (orch.spec.ai?.models?.length ?? 0) > 0;
  return pods
    .map((pod): NodeTarget => {
      const transcoder = pod.metadata?.labels?.[COMPONENT_LABEL] === "transcoder";
      const container =
        pod.status?.containerStatuses?.find((c) => c.name === NODE_CONTAINER) ??
        pod.status?.containerStatuses?.[0];
      const running = container?.state?.running;
      const ready = pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
      const restartCount = container?.restartCount ?? 0;
      return {
        pod: pod.metadata?.name ?? "",
        uid: pod.metadata?.uid ?? "",
        ip: pod.status?.podIP || undefined,
        cliPort: transcoder ? PORTS.transcoderCli : PORTS.cli,
        servicePort: transcoder ? undefined : PORTS.service,
        role: transcoder ? "transcoder" : "orchestrator",
        ready,
        // A container that runs or ran has a log; a pending pod has none yet.
        hasLog: !!running || !!container?.state?.terminated || restartCount > 0,
        restartCount,
        startedAt: running?.startedAt ? new Date(running.startedAt) : undefined,
        aiExpected: aiExpected && !transcoder,
      };
    })
    .filter((t) => t.pod !== "")
    .sort((a, b) => a.pod.localeCompare(b.pod));
}
