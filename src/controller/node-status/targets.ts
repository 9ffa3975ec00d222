// A node's pods as the node doctor sees them (pure): where each pod's endpoints are, whether it
// serves, and the state of its container. Each controller says which ports a pod of each of its
// roles (the `app.kubernetes.io/component` label) listens on.
import type { NodeTarget } from "../doctor/index.ts";
import type { PodFacts } from "./facts.ts";

const COMPONENT_LABEL = "app.kubernetes.io/component";
export const NODE_CONTAINER = "livepeer";

/** What a pod of one role is read on, and whether AI work is expected of it. */
export type RoleEndpoints = Pick<
  NodeTarget,
  "role" | "cliPort" | "servicePort" | "aiExpected" | "quotes" | "liveExpected"
>;

export function nodeTargets(
  pods: readonly PodFacts[],
  endpointsOf: (component: string | undefined) => RoleEndpoints,
): NodeTarget[] {
  return pods
    .map((pod): NodeTarget => {
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
        ...endpointsOf(pod.metadata?.labels?.[COMPONENT_LABEL]),
        ready,
        // A container that runs or ran has a log; a pending pod has none yet.
        hasLog: !!running || !!container?.state?.terminated || restartCount > 0,
        restartCount,
        startedAt: running?.startedAt ? new Date(running.startedAt) : undefined,
      };
    })
    .filter((t) => t.pod !== "")
    .sort((a, b) => a.pod.localeCompare(b.pod));
}
