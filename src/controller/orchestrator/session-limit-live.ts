// A session-limit change is applied to running orchestrators without a restart: a restart drops
// every live stream, and the node takes a new limit on its CLI port (`POST /setMaxSessions`).
// The config file in the ConfigMap still carries the new value (a pod that restarts later reads
// it), but the pod template's config hash leaves `maxSessions` out, so this field alone never
// rolls the pod. The ConfigMap records the limit it holds in an annotation: when the desired
// limit differs from the recorded one, every running orchestrator pod is told the new one before
// the ConfigMap is rewritten (a controller that dies in between finds the same difference and
// tells them again; the call is idempotent). A pod the call fails on is restarted instead, so it
// reads the new value from its config file; an Event says so.
//
// Transcoders in a split setup are not changed live: their capacity is what they announced to
// the orchestrator when they connected, so a new one needs a restart (their hash keeps it).
import { setMaxSessions } from "../../node/client/index.ts";
import type { StoredOrchestrator } from "../../schema/orchestrator.ts";
import type { Recorder } from "../runtime/index.ts";

export const SESSION_LIMIT_ANNOTATION = "livepeer.org/max-sessions";

/** The flags set on a running orchestrator: a change of them alone does not restart it. */
export const LIVE_FLAGS = ["maxSessions"] as const;

export interface SessionLimitChange {
  /** What the ConfigMap held (and running pods were started or last set with). */
  from: string;
  to: number;
}

/**
 * A change to push to running pods: only between two integer limits (`auto` belongs to the split
 * setup, whose transcoders decide it), and only when a previous limit was recorded (a ConfigMap
 * from before this annotation existed came with a template change that restarts the pod anyway).
 */
export function sessionLimitChange(
  desired: number | "auto",
  recorded: string | undefined,
): SessionLimitChange | undefined {
  if (desired === "auto" || desired < 1 || recorded === undefined || !/^\d+$/.test(recorded))
    return undefined;
  return Number(recorded) === desired ? undefined : { from: recorded, to: desired };
}

export interface LivePod {
  metadata?: { name?: string; uid?: string; deletionTimestamp?: string; labels?: Record<string, string> };
  status?: { phase?: string; podIP?: string };
}

/** Orchestrator pods whose node process runs and can be called (not transcoders, not Pending). */
export function livePods<P extends LivePod>(pods: P[]): P[] {
  return pods.filter(
    (p) =>
      p.metadata?.labels?.["app.kubernetes.io/component"] === "orchestrator" &&
      p.status?.phase === "Running" &&
      !!p.status.podIP &&
      !p.metadata.deletionTimestamp,
  );
}

/** The CLI port's base URL for a pod IP (IPv6 in brackets). */
export const cliUrl = (podIP: string, port: number) =>
  `http://${podIP.includes(":") ? `[${podIP}]` : podIP}:${port}`;

export const liveChangeMessage = (change: SessionLimitChange, pods: string[]) =>
  `session limit ${change.from} -> ${change.to} set live on ${pods.join(", ")} (POST /setMaxSessions on the CLI port): no restart, no stream dropped`;

export const fallbackMessage = (change: SessionLimitChange, pod: string, error: string) =>
  `could not set the session limit ${change.from} -> ${change.to} live on pod ${pod} (${error}): restarting the pod so it reads the new limit from its config file`;

/**
 * Tells every running orchestrator pod the new limit; returns the pods the call failed on (to be
 * restarted once the ConfigMap holds the new value). Events say which happened.
 */
export async function setSessionLimitLive<P extends LivePod>(i: {
  orch: StoredOrchestrator;
  change: SessionLimitChange;
  pods: P[];
  cliPort: number;
  events: Recorder;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<P[]> {
  const set: string[] = [];
  const failed: P[] = [];
  await Promise.all(
    livePods(i.pods).map(async (pod) => {
      const name = pod.metadata?.name ?? "";
      try {
        await setMaxSessions(cliUrl(pod.status?.podIP ?? "", i.cliPort), i.change.to, {
          timeoutMs: i.timeoutMs,
          ...(i.signal ? { signal: i.signal } : {}),
        });
        set.push(name);
      } catch (err) {
        failed.push(pod);
        i.events.event(i.orch, {
          type: "Warning",
          reason: "SessionLimitNotSetLive",
          message: fallbackMessage(i.change, name, (err as Error).message),
          action: "SetMaxSessions",
        });
      }
    }),
  );
  if (set.length) {
    i.events.event(i.orch, {
      type: "Normal",
      reason: "SessionLimitSetLive",
      message: liveChangeMessage(i.change, set.sort()),
      action: "SetMaxSessions",
    });
  }
  return failed;
}
