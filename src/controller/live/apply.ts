// Pushes live changes to a node's running pods through their CLI port; a pod a call fails on is
// returned, to be restarted once the ConfigMap holds the new value (it reads it from its config
// file). One Event per change and outcome says which pods took it and which are restarted.
import type { KubeObject } from "../../kube/index.ts";
import type { Recorder } from "../runtime/index.ts";
import type { LiveChange } from "./settings.ts";

export interface LivePod {
  metadata?: { name?: string; uid?: string; deletionTimestamp?: string; labels?: Record<string, string> };
  status?: { phase?: string; podIP?: string };
}

/** Pods of one component whose node process runs and can be called (not Pending, not going). */
export function livePods<P extends LivePod>(pods: readonly P[], component: string): P[] {
  return pods.filter(
    (p) =>
      p.metadata?.labels?.["app.kubernetes.io/component"] === component &&
      p.status?.phase === "Running" &&
      !!p.status.podIP &&
      !p.metadata.deletionTimestamp,
  );
}

/** The CLI port's base URL for a pod IP (IPv6 in brackets). */
export const cliUrl = (podIP: string, port: number) =>
  `http://${podIP.includes(":") ? `[${podIP}]` : podIP}:${port}`;

export const liveChangeMessage = (change: LiveChange, pods: string[]) =>
  `${change.setting.what} ${change.from} -> ${change.to} set live on ${pods.join(", ")} (POST ${change.setting.endpoint} on the CLI port): no restart, no stream dropped`;

export const fallbackMessage = (change: LiveChange, pod: string, error: string) =>
  `could not set the ${change.setting.what} ${change.from} -> ${change.to} live on pod ${pod} (${error}): restarting the pod so it reads the new ${change.setting.what.split(" ").at(-1)} from its config file`;

export async function applyLiveChanges<P extends LivePod>(i: {
  owner: KubeObject;
  changes: readonly LiveChange[];
  pods: readonly P[];
  component: string;
  cliPort: number;
  events: Recorder;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<P[]> {
  const failed = new Set<P>();
  for (const change of i.changes) {
    const set: string[] = [];
    await Promise.all(
      livePods(i.pods, i.component)
        .filter((pod) => !failed.has(pod))
        .map(async (pod) => {
          const name = pod.metadata?.name ?? "";
          try {
            await change.setting.set(cliUrl(pod.status?.podIP ?? "", i.cliPort), change, {
              timeoutMs: i.timeoutMs,
              ...(i.signal ? { signal: i.signal } : {}),
            });
            set.push(name);
          } catch (err) {
            failed.add(pod);
            i.events.event(i.owner, {
              type: "Warning",
              reason: change.setting.events.failed,
              message: fallbackMessage(change, name, (err as Error).message),
              action: change.setting.events.action,
            });
          }
        }),
    );
    if (set.length) {
      i.events.event(i.owner, {
        type: "Normal",
        reason: change.setting.events.done,
        message: liveChangeMessage(change, set.sort()),
        action: change.setting.events.action,
      });
    }
  }
  return [...failed];
}
