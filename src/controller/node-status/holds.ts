// What keeps a node from serving as asked although nothing is broken yet (a devnet deployment that
// cannot be read; for an orchestrator, a service address the cluster has not reported). A hold
// that blocks the rollout keeps the node's config and pods as they are (the last good pods keep
// serving; nothing starts with values that would be wrong), and every hold is said in Ready's
// message until it clears.
import type { DevnetResolution } from "../devnet/deployment-config-map.ts";
import type { Verdict } from "../runtime/index.ts";

export interface Hold {
  /** CamelCase, the Ready condition's reason while the hold lasts. */
  reason: string;
  message: string;
  /** The node's config and pods are not changed until it clears. */
  blocksRollout: boolean;
}

export function devnetHold(devnet: DevnetResolution): Hold | undefined {
  if (devnet.state !== "unresolved") return undefined;
  return {
    reason: "DevnetDeploymentUnavailable",
    message: `${devnet.message}; nothing is rolled out until it is readable`,
    blocksRollout: true,
  };
}

export const blocksRollout = (holds: readonly Hold[]): boolean => holds.some((h) => h.blocksRollout);

/** Ready=False while any hold lasts, with the first one's reason and every message. */
export function holdVerdict(holds: readonly Hold[]): Verdict | undefined {
  const [first] = holds;
  if (!first) return undefined;
  return { status: "False", reason: first.reason, message: holds.map((h) => h.message).join("; ") };
}
