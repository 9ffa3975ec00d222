// What an upgrade did to a node pod and to a resource's conditions, from objects read before and
// after: pure, so the upgrade scenario computes "rendering changed" instead of hard-coding it.

export interface PodBefore {
  name: string;
  uid: string;
  /** Sum of its containers' restart counts. */
  restarts: number;
  /** Its controller-revision-hash label: the StatefulSet revision (rendering) it runs. */
  revision: string;
  statefulSet: string;
}

export interface PodFate {
  name: string;
  /** Its StatefulSet's update revision differs from the one the pod was created from. */
  renderingChanged: boolean;
  /** The same pod (uid) is still there. */
  kept: boolean;
  /** Kept, with a container restarted since. */
  restarted: boolean;
}

export function podFate(
  before: PodBefore,
  after: { uid: string; restarts: number } | undefined,
  updateRevision: string,
): PodFate {
  const kept = after?.uid === before.uid;
  return {
    name: before.name,
    renderingChanged: before.revision !== updateRevision,
    kept,
    restarted: kept && after!.restarts > before.restarts,
  };
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  lastTransitionTime?: string;
}

/**
 * Conditions whose status changed (a new lastTransitionTime is right), and those whose status did
 * not change yet carry another lastTransitionTime (wrong: the time says when the status changed).
 */
export function changedConditions(
  before: readonly Condition[],
  after: readonly Condition[],
): { changed: string[]; unchangedButRestamped: string[] } {
  const changed: string[] = [];
  const unchangedButRestamped: string[] = [];
  for (const a of after) {
    const b = before.find((c) => c.type === a.type);
    if (!b) continue;
    if (b.status !== a.status) changed.push(`${a.type}: ${b.status} -> ${a.status}`);
    else if (b.lastTransitionTime !== a.lastTransitionTime)
      unchangedButRestamped.push(`${a.type} ${a.status}: ${b.lastTransitionTime} -> ${a.lastTransitionTime}`);
  }
  return { changed, unchangedButRestamped };
}

/**
 * What a resource's conditions went through while they were sampled: each type's (status, reason)
 * changes in order, so a condition that left its status and came back (a re-stamped
 * lastTransitionTime) shows where it went.
 */
export class ConditionTimeline {
  readonly #last = new Map<string, string>();
  readonly #changes = new Map<string, string[]>();

  observe(resource: string, conditions: readonly Condition[], at = new Date()): void {
    for (const c of conditions) {
      const key = `${resource}/${c.type}`;
      const now = `${c.status} ${c.reason ?? ""}`.trim();
      if (this.#last.get(key) === now) continue;
      this.#last.set(key, now);
      const list = this.#changes.get(resource) ?? [];
      list.push(`${at.toISOString().slice(11, 19)} ${c.type}=${now}`);
      this.#changes.set(resource, list);
    }
  }

  /** The changes seen on one resource, oldest first. */
  changes(resource: string): string[] {
    return this.#changes.get(resource) ?? [];
  }
}
