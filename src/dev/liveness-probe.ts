// kwok runs no probes, so the fleet plays the node container's liveness probe the way the kubelet
// would run it (src/controller/node-pod/in-place.ts): once the pod's WANTED annotation differs from
// the one its node started with and the pod's ConfigMap already holds the wanted config hash, the
// node restarts in place: same pod, same IP, the simulator started again on the mounted files, and
// the pod's status says so as the kubelet's does (restartCount + 1, lastState terminated).
// A pod annotated STALE_MOUNT (by a test or by hand, never by the operator) plays a kubelet that
// never refreshes its mounted ConfigMap: the probe never sees the wanted hash, so the node never
// restarts in place and the controller's restart request times out (the pod replaced instead).
import type { V1Pod } from "@kubernetes/client-node";
import { WANTED } from "../controller/node-pod/in-place.ts";

/** The restart request as the container sees it at start (its env var): "" when there is none. */
export const wantedOf = (pod: V1Pod): string => pod.metadata?.annotations?.[WANTED] ?? "";

/**
 * Pod annotation ("true"): the fleet plays a kubelet that never refreshes this pod's mounted
 * ConfigMap, so its node never restarts in place. Stands for a probe that never acts in a cluster.
 */
export const STALE_MOUNT = "livepeer.org/simulated-stale-mount";

/** True when the probe would fail on the restart request (the tcp part is the simulator's own). */
export function inPlaceRestartDue(pod: V1Pod, startedWith: string, mountedHash: string | undefined): boolean {
  if (pod.metadata?.annotations?.[STALE_MOUNT] === "true") return false;
  const wanted = wantedOf(pod);
  return wanted !== "" && wanted !== startedWith && wanted === mountedHash;
}

/**
 * The status (merge patch: containerStatuses is replaced whole) the kubelet writes when it has
 * restarted the pod's first container after its liveness probe failed.
 */
export function restartedStatus(pod: V1Pod, at: Date) {
  const name = pod.spec?.containers[0]?.name;
  const statuses = (pod.status?.containerStatuses ?? []).map((c) => {
    if (c.name !== name) return c;
    const startedAt = c.state?.running?.startedAt ?? at;
    return {
      ...c,
      restartCount: (c.restartCount ?? 0) + 1,
      lastState: {
        terminated: {
          exitCode: 0,
          reason: "Completed",
          message: `Container ${name} failed liveness probe, will be restarted`,
          startedAt: new Date(startedAt).toISOString(),
          finishedAt: at.toISOString(),
        },
      },
      state: { running: { startedAt: at.toISOString() } },
    };
  });
  return { status: { containerStatuses: statuses } };
}
