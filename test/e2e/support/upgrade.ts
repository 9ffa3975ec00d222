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
 * not change yet carry another lastTransitionTime (wrong unless it left that status in between:
 * `restamped` names their types for the timeline to judge).
 */
export function changedConditions(
  before: readonly Condition[],
  after: readonly Condition[],
): { changed: string[]; unchangedButRestamped: string[]; restamped: string[] } {
  const changed: string[] = [];
  const unchangedButRestamped: string[] = [];
  const restamped: string[] = [];
  for (const a of after) {
    const b = before.find((c) => c.type === a.type);
    if (!b) continue;
    if (b.status !== a.status) changed.push(`${a.type}: ${b.status} -> ${a.status}`);
    else if (b.lastTransitionTime !== a.lastTransitionTime) {
      unchangedButRestamped.push(`${a.type} ${a.status}: ${b.lastTransitionTime} -> ${a.lastTransitionTime}`);
      restamped.push(a.type);
    }
  }
  return { changed, unchangedButRestamped, restamped };
}

/**
 * Reasons a controller writes only because it has not read something yet (it just started): a
 * known True or False must not pass through one of them across an operator restart.
 */
export const UNREAD_REASONS: ReadonlySet<string> = new Set([
  "Reconciling",
  "NotChecked",
  "Checking",
  "CheckingNode",
  "NodeNotRead",
]);

/**
 * What a resource's conditions went through, from every version of it a watch delivered: each
 * type's (status, reason) changes in order, a type that disappears as `absent`. From it: whether a
 * re-stamped condition really left its status in between, and whether a known answer went back to
 * "not read yet" (what a restarted controller must not write).
 */
export class ConditionTimeline {
  readonly #last = new Map<string, { status: string; reason: string }>();
  readonly #changes = new Map<string, string[]>();
  /** resource/type -> every status it was seen in. */
  readonly #statuses = new Map<string, Set<string>>();
  readonly #unread = new Map<string, string[]>();

  observe(resource: string, conditions: readonly Condition[], at = new Date()): void {
    const seen = new Set<string>();
    const record = (type: string, status: string, reason: string) => {
      const key = `${resource}/${type}`;
      const last = this.#last.get(key);
      if (last?.status === status && last.reason === reason) return;
      this.#last.set(key, { status, reason });
      const line = `${at.toISOString().slice(11, 23)} ${type}=${`${status} ${reason}`.trim()}`;
      this.#changes.set(resource, [...(this.#changes.get(resource) ?? []), line]);
      this.#statuses.set(key, (this.#statuses.get(key) ?? new Set()).add(status));
      if ((last?.status === "True" || last?.status === "False") && UNREAD_REASONS.has(reason))
        this.#unread.set(resource, [...(this.#unread.get(resource) ?? []), line]);
    };
    for (const c of conditions) {
      seen.add(c.type);
      record(c.type, c.status, c.reason ?? "");
    }
    for (const key of this.#last.keys()) {
      const type = key.slice(resource.length + 1);
      if (key.startsWith(`${resource}/`) && !seen.has(type)) record(type, "absent", "");
    }
  }

  /** The changes seen on one resource, oldest first. */
  changes(resource: string): string[] {
    return this.#changes.get(resource) ?? [];
  }

  /** Types of `restamped` that were never seen in another status than `finalStatus` (a re-stamp nothing explains). */
  unexplained(resource: string, restamped: readonly { type: string; status: string }[]): string[] {
    return restamped
      .filter(({ type, status }) =>
        [...(this.#statuses.get(`${resource}/${type}`) ?? [])].every((s) => s === status),
      )
      .map((c) => c.type);
  }

  /** Known True/False answers that went back to a "not read yet" reason (a restart artifact). */
  backToUnread(resource: string): string[] {
    return this.#unread.get(resource) ?? [];
  }
}
