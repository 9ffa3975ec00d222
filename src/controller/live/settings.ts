// Node settings the operator changes on a running node through its CLI port instead of a restart
// (a restart drops every live stream): the session limit, an orchestrator's price, a gateway's
// price cap. Pure: a role lists its settings; the plan records each one's value in an annotation
// of the node's ConfigMap (whose config file carries it too, for a later restart) and, when the
// desired value differs from the recorded one, the change to push to running pods before the
// ConfigMap is rewritten. The pod template's hash leaves these flags out, so they never roll a pod.
import type { RequestOptions } from "../../node/client/index.ts";
import type { FlagValues } from "../../node/config/index.ts";

export interface LiveSetting {
  /** In messages: "session limit", "price". */
  what: string;
  /** The ConfigMap annotation recording the value its config file holds. */
  annotation: string;
  /** The flags it covers (left out of the pod template's hash). */
  flags: readonly string[];
  /**
   * The value as recorded; undefined when the flags (and the files mounted beside the config
   * file) hold none a running node can take.
   */
  valueOf(flags: FlagValues, files: Readonly<Record<string, string>>): string | undefined;
  /** `POST <endpoint>` on the CLI port, in messages. */
  endpoint: string;
  /** Sets the value on the node at `cliUrl` (throws when it cannot: the pod is restarted instead). */
  set(cliUrl: string, change: LiveChange, options: RequestOptions): Promise<unknown>;
  /** Event reasons: set live, and not set (the pod is restarted instead). */
  events: { done: string; failed: string; action: string };
}

export interface LiveChange {
  setting: LiveSetting;
  from: string;
  to: string;
  /** The desired flags and files the value comes from. */
  flags: FlagValues;
  files: Readonly<Record<string, string>>;
}

/** Annotations recording what the config file holds, for the next reconcile to compare with. */
export function recordedLive(
  settings: readonly LiveSetting[],
  flags: FlagValues,
  files: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of settings) {
    const value = s.valueOf(flags, files);
    if (value !== undefined) out[s.annotation] = value;
  }
  return out;
}

/**
 * Changes to push to running pods: only between two values a node takes, and only when a value was
 * recorded (a ConfigMap from before the annotation came with a template change that restarts the
 * pod anyway).
 */
export function liveChanges(
  settings: readonly LiveSetting[],
  flags: FlagValues,
  recorded: Readonly<Record<string, string>> | undefined,
  files: Readonly<Record<string, string>> = {},
): LiveChange[] {
  return settings.flatMap((setting) => {
    const from = recorded?.[setting.annotation];
    const to = setting.valueOf(flags, files);
    return from !== undefined && to !== undefined && from !== to ? [{ setting, from, to, flags, files }] : [];
  });
}

export const liveFlagNames = (settings: readonly LiveSetting[]): string[] => settings.flatMap((s) => s.flags);
