// A status change, told as Events (what `kubectl describe` shows) and log lines, the same way for
// every reconciler: each new warning or error finding is one Event; a transition of a condition
// type the reconciler names is one Event, except to Unknown (not news yet), except a condition's
// first healthy value (the object settling after its creation or a spec change: Ready alone says
// it, once) and except a Ready=False whose reason is a finding just announced (one Event says it).
// A healthy value after an unhealthy one (a recovery) is news, a Normal Event; an unhealthy one a
// Warning. The status is written only when it changed, so a steady state makes neither writes
// nor Events. (Each Event is a write the API server pays for: a burst of creations would
// otherwise cost five more writes per object, most of them saying that all is well.)
import { applyStatus } from "../../kube/apply.ts";
import type { KubeClient } from "../../kube/kube-client.ts";
import { type KubeObject, type ObjectKey, splitKey } from "../../kube/objects.ts";
import type { ResourceType } from "../../kube/resources.ts";
import type { Logger } from "../../process/log.ts";
import type { Condition } from "../../schema/condition.ts";
import type { Finding } from "../../schema/finding.ts";
import { findCondition, statusChanged } from "./conditions.ts";
import type { EventSpec, Recorder } from "./events.ts";
import type { FindingsMetrics } from "./metrics.ts";

/** The part of a status that can be news. */
export interface StatusWithNews {
  observedGeneration?: number;
  conditions?: readonly Condition[];
  findings?: readonly Pick<Finding, "id" | "severity" | "message">[];
}

/** The status facts exported as livepeer_operator_status_fact (the chart's dashboard and alerts). */
const NUMERIC_FACTS = [
  "maxSessions",
  "deposit",
  "reserve",
  "balance",
  "activeSet",
  "lastRewardRound",
] as const;

/** Sums over status.ai.live (Orchestrators with live apps): what the live capacity alert reads. */
function liveFacts(s: Record<string, unknown>): Record<string, number> {
  const ai = s.ai as { live?: { healthy?: unknown; inSession?: unknown; desired?: unknown }[] } | undefined;
  if (!Array.isArray(ai?.live)) return {};
  const sum = (k: "healthy" | "inSession" | "desired") =>
    ai.live!.reduce((n, a) => n + (typeof a[k] === "number" ? (a[k] as number) : 0), 0);
  return { liveRunnersDesired: sum("desired"), liveCapacity: sum("healthy"), liveSessions: sum("inSession") };
}

/** A status's numeric facts (pure): ETH amounts as numbers, activeSet as 0/1; absent ones left out. */
export function numericStatusFacts(status: object): Record<string, number> {
  const out: Record<string, number> = {};
  const s = status as Record<string, unknown>;
  for (const fact of NUMERIC_FACTS) {
    const v = s[fact];
    if (!["boolean", "number", "string"].includes(typeof v) || v === "") continue;
    const n = Number(v);
    if (Number.isFinite(n)) out[fact] = n;
  }
  return { ...out, ...liveFacts(s) };
}

/** What a reconciler announces: condition types by the Event action each transition gets. */
export interface StatusNews {
  conditions: Readonly<Record<string, string>>;
  /** Named types whose True is the unhealthy value (RolloutPending); the others are healthy True. */
  trueIsUnhealthy?: readonly string[];
  /** The Event action of a new finding (default Diagnose). */
  findingAction?: string;
}

export interface StatusNewsItem {
  log: string;
  /** Absent: logged only (a transition to Unknown, or one a finding's Event already said). */
  event?: EventSpec;
}

/** The summary condition: its first healthy value is news (the object serves). */
const READY = "Ready";

/** The news in a status change (pure). */
export function statusNews(
  before: StatusWithNews,
  after: StatusWithNews,
  news: StatusNews,
): StatusNewsItem[] {
  const items: StatusNewsItem[] = [];
  const announced = new Set<string>();
  for (const f of after.findings ?? []) {
    // Normal findings (a loop that timed out) are recognised, never alarmed on.
    if (f.severity === "normal" || before.findings?.some((x) => x.id === f.id)) continue;
    items.push({
      log: `finding ${f.id} (${f.severity}): ${f.message}`,
      event: { type: "Warning", reason: f.id, message: f.message, action: news.findingAction ?? "Diagnose" },
    });
    announced.add(f.id);
  }
  for (const [type, action] of Object.entries(news.conditions)) {
    const was = findCondition(before.conditions, type);
    const now = findCondition(after.conditions, type);
    if (!now || (was?.status === now.status && was.reason === now.reason)) continue;
    const log = `${type} ${was?.status ?? "(none)"} -> ${now.status} (${was?.reason ?? "first visit"} -> ${now.reason}): ${now.message}`;
    const healthy = now.status === (news.trueIsUnhealthy?.includes(type) ? "False" : "True");
    const settling = healthy && (!was || was.status === "Unknown") && type !== READY;
    const quiet = now.status === "Unknown" || announced.has(now.reason) || settling;
    items.push({
      log,
      ...(quiet
        ? {}
        : {
            event: {
              type: healthy ? "Normal" : "Warning",
              reason: now.reason,
              message: now.message,
              action,
            },
          }),
    });
  }
  return items;
}

/** Writes one resource kind's status and tells its news, for one reconciler. */
export class StatusWriter {
  readonly #client: KubeClient;
  readonly #events: Recorder;
  readonly #resource: ResourceType;
  readonly #news: StatusNews;
  readonly #findings: FindingsMetrics | undefined;

  constructor(
    ctx: { client: KubeClient; events: Recorder; findings?: FindingsMetrics },
    resource: ResourceType,
    news: StatusNews,
  ) {
    this.#client = ctx.client;
    this.#events = ctx.events;
    this.#resource = resource;
    this.#news = news;
    this.#findings = ctx.findings;
  }

  /** A deleted object: its findings are no longer in force. */
  forget(key: ObjectKey): void {
    const { namespace = "", name } = splitKey(key);
    const object = { kind: this.#resource.kind, namespace, name };
    this.#findings?.set(object, []);
    this.#findings?.conditions?.(object, []);
    this.#findings?.facts?.(object, {});
  }

  /**
   * Applies `next` when it differs from `current` (the part of the object's status this
   * controller owns, as it is now), then logs and records what is news. Says whether it wrote.
   */
  async write<S extends StatusWithNews>(
    object: KubeObject,
    current: S,
    next: S,
    log: Logger,
  ): Promise<boolean> {
    // Every visit, not only on a change: the gauges are right again after a restart.
    const ref = {
      kind: this.#resource.kind,
      namespace: object.metadata?.namespace ?? "",
      name: object.metadata?.name ?? "",
    };
    this.#findings?.set(ref, next.findings ?? []);
    this.#findings?.conditions?.(ref, next.conditions ?? []);
    this.#findings?.facts?.(ref, numericStatusFacts(next));
    if (!statusChanged(current, next)) return false;
    const status: StatusWithNews = next;
    await applyStatus(this.#client, this.#resource, object, { ...status });
    const fields = next.observedGeneration !== undefined ? { generation: next.observedGeneration } : {};
    for (const item of statusNews(current, next, this.#news)) {
      log.info(item.log, fields);
      if (item.event) this.#events.event(object, item.event);
    }
    return true;
  }
}
