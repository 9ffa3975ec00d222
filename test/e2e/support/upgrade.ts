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
 * type's (status, reason) changes in order, a type that disappears as `absent`. From it, for the
 * versions after an instant (the new controller's first lease): the conditions as they stood
 * then, whether a re-stamped condition really left its status since, and whether a known answer
 * went back to "not read yet" (what a restarted controller must not write).
 */
export class ConditionTimeline {
  readonly #versions = new Map<string, { at: Date; conditions: readonly Condition[] }[]>();

  observe(resource: string, conditions: readonly Condition[], at = new Date()): void {
    this.#versions.set(resource, [...(this.#versions.get(resource) ?? []), { at, conditions }]);
  }

  /** The conditions as they stood at `from` (the last version seen by then; the first if none). */
  at(resource: string, from: Date): readonly Condition[] {
    const versions = this.#versions.get(resource) ?? [];
    return (versions.filter((v) => v.at <= from).at(-1) ?? versions[0])?.conditions ?? [];
  }

  /** Each type's (status, reason) changes, oldest first, from the version in force at `from`. */
  changes(resource: string, from = new Date(0)): string[] {
    return this.#walk(resource, from).map((c) => c.line);
  }

  /** Types of `restamped` never seen in another status than their final one since `from`. */
  unexplained(
    resource: string,
    restamped: readonly { type: string; status: string }[],
    from = new Date(0),
  ): string[] {
    const walk = this.#walk(resource, from);
    return restamped
      .filter(({ type, status }) => walk.filter((c) => c.type === type).every((c) => c.status === status))
      .map((c) => c.type);
  }

  /** Known True/False answers that went back to a "not read yet" reason since `from`. */
  backToUnread(resource: string, from = new Date(0)): string[] {
    return this.#walk(resource, from)
      .filter((c) => (c.was === "True" || c.was === "False") && UNREAD_REASONS.has(c.reason))
      .map((c) => c.line);
  }

  #walk(resource: string, from: Date) {
    const versions = this.#versions.get(resource) ?? [];
    const start = Math.max(
      0,
      versions.findLastIndex((v) => v.at <= from),
    );
    const last = new Map<string, { status: string; reason: string }>();
    const out: { type: string; status: string; reason: string; was?: string; line: string }[] = [];
    for (const { at, conditions } of versions.slice(start)) {
      const now = new Map(conditions.map((c) => [c.type, { status: c.status, reason: c.reason ?? "" }]));
      for (const type of last.keys()) if (!now.has(type)) now.set(type, { status: "absent", reason: "" });
      for (const [type, { status, reason }] of now) {
        const was = last.get(type);
        if (was?.status === status && was.reason === reason) continue;
        last.set(type, { status, reason });
        const line = `${at.toISOString().slice(11, 23)} ${type}=${`${status} ${reason}`.trim()}`;
        out.push({ type, status, reason, ...(was ? { was: was.status } : {}), line });
      }
    }
    return out;
  }
}
