// spec.rollout and status.rollout of the node resources (Orchestrator, Gateway): how a change in
// what the operator renders for a node reaches its pods without cutting the sessions they carry.
import { z } from "zod";

export const ROLLOUT_STRATEGIES = ["whenIdle", "immediate", "onDelete"] as const;
export type RolloutStrategy = (typeof ROLLOUT_STRATEGIES)[number];

/** A duration as Kubernetes and go-livepeer write them: 90s, 30m, 1h30m. */
const DURATION = /^([0-9]{1,6}(h|m|s))+$/;

/** Milliseconds of a duration that matched DURATION. */
export function durationMs(text: string): number {
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/([0-9]+)(h|m|s)/g)) {
    ms += Number(n) * (unit === "h" ? 3_600_000 : unit === "m" ? 60_000 : 1_000);
  }
  return ms;
}

export const RolloutSpecSchema = z
  .strictObject({
    strategy: z
      .enum(ROLLOUT_STRATEGIES)
      .default("whenIdle")
      .describe(
        "When a pod takes a change in its rendering: a new pod for a change in its template (image, command line, resources, GPUs, mounted Secrets, placement), its node restarted in place for a change in its config file only (the pod, its node and GPUs kept). whenIdle (default) replaces or restarts one pod at a time, each once it carries no session (or once maxWait has passed); immediate does so one pod at a time without waiting for its sessions to end; onDelete never replaces or restarts a pod by itself: the change reaches a pod when you delete it. Live settings (price, session limit) are set on the running node whatever the strategy.",
      ),
    maxWait: z
      .string()
      .max(32)
      .regex(DURATION, {
        error: (iss) =>
          `rollout.maxWait ${JSON.stringify(iss.input)} must be a duration such as 90s, 30m or 2h`,
      })
      .optional()
      .describe(
        "whenIdle: the longest a pending change waits for sessions to end (or for a free GPU slot for a new GPU pod), counted from when it was first seen, for example 2h; then the busy pods are replaced one at a time anyway (an Event RolloutForced, or RolloutWithoutGpuSlot, says so). Absent: wait as long as sessions last.",
      ),
  })
  .describe(
    "How a change in the node's rendering reaches its pods without cutting live sessions. The StatefulSet uses updateStrategy OnDelete: the operator decides which pod goes when.",
  );

export type RolloutSpec = z.infer<typeof RolloutSpecSchema>;

export const RolloutStatusSchema = z
  .strictObject({
    replicas: z.int().min(0).describe("Node pods the StatefulSets want."),
    updatedReplicas: z
      .int()
      .min(0)
      .describe(
        "Node pods running the current rendering (the StatefulSets' update revision and the current config file).",
      ),
    pendingSince: z.iso
      .datetime()
      .optional()
      .describe("Since when pods have run an older rendering (absent: none do)."),
    deadline: z.iso
      .datetime()
      .optional()
      .describe("When whenIdle stops waiting for sessions to end (pendingSince + spec.rollout.maxWait)."),
    inPlace: z
      .boolean()
      .optional()
      .describe(
        "True while the change restarts nodes in place: only their config changed, so each pod keeps its node and GPUs and its node restarts (restartCount + 1) once the kubelet has mounted the new config.",
      ),
  })
  .describe(
    "Progress of the change to the node's pods, as `kubectl rollout status` would show it; the RolloutPending condition says what it waits for.",
  );

export type RolloutStatus = z.infer<typeof RolloutStatusSchema>;

/** The spec field, shared by Orchestrator and Gateway. */
export const rolloutField = { rollout: RolloutSpecSchema.prefault({}) };
