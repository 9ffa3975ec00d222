// When to look at a node resource (Orchestrator or Gateway) again although no watch fires (pure).
// What the status reads is watched (pods, children, Nodes, labelled devnet ConfigMaps) or wakes
// the key itself (the node doctor). A devnet ConfigMap that is missing or not labelled yet is
// outside the cache, and the keystore Secret is read by name, never watched (the controller may
// not list Secrets in users' namespaces): while either stops the node, it is looked at again soon,
// so creating or fixing it is seen within POLL_MS; any other unready state slowly, spread so 5,000
// unready Orchestrators do not come back in one burst.
import type { Condition } from "../../schema/condition.ts";
import { findCondition } from "../runtime/index.ts";

/** Look again this long after a reconcile that left Ready not True (jittered by 10%). */
export const NOT_READY_RECHECK_MS = 5 * 60_000;
/** Ready reasons whose cause no watch announces, and how soon to look again at them. */
const POLLED_REASONS = new Set([
  "DevnetDeploymentUnavailable",
  "KeystoreSecretNotFound",
  "KeystoreSecretKeyMissing",
  "KeystorePasswordEmpty",
  "KeystorePasswordTrailingNewline",
  "KeystoreSecretUnreadable",
]);
export const POLL_MS = 30_000;

/**
 * Milliseconds until the next look (from Ready), or undefined for none. `stepsAfterMs`: a step asked to look
 * again then (a pod's grace period ends); `random` in [0, 1) spreads the slow recheck.
 */
export function revisitAfter(
  conditions: readonly Condition[] | undefined,
  stepsAfterMs: number | undefined,
  random: number,
): number | undefined {
  const ready = findCondition(conditions, "Ready");
  const again =
    ready?.status === "True"
      ? undefined
      : (POLLED_REASONS.has(ready?.reason ?? "") ? POLL_MS : NOT_READY_RECHECK_MS) * (0.9 + 0.2 * random);
  const next = Math.min(again ?? Number.POSITIVE_INFINITY, stepsAfterMs ?? Number.POSITIVE_INFINITY);
  return Number.isFinite(next) ? next : undefined;
}
