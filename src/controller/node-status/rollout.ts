// How any node resource's children reach the cluster, shared by the Orchestrator and Gateway
// reconcilers: children applied only when they would change; config and pods left as they are while
// a hold lasts; a StatefulSet never replaced by one whose flags the node would refuse (the last good
// pods keep serving; an Event says why); new live settings pushed to running pods before the
// ConfigMap records them, and the pods a call failed on restarted once it does.
import { type KubeClient, type KubeObject, Pods, type ResourceType, StatefulSets } from "../../kube/index.ts";
import { type FlagProblem, formatProblem } from "../../node/config/index.ts";
import { applyLiveChanges } from "../live/apply.ts";
import type { LiveChange } from "../live/settings.ts";
import type { CacheReader, ChildApplier, Recorder } from "../runtime/index.ts";
import { podsToStamp, stampPods, withStamps } from "./config-restart.ts";
import type { PodFacts } from "./facts.ts";
import { blocksRollout, type Hold } from "./holds.ts";
import { restartPod } from "./pod-restart.ts";

/** What of a node's plan decides whether and how it rolls out. */
export interface RolloutPlan {
  holds: readonly Hold[];
  problems: readonly FlagProblem[];
  liveChanges: readonly LiveChange[];
}

export class NodeRollout {
  readonly #client: KubeClient;
  readonly #cache: CacheReader;
  readonly #events: Recorder;
  readonly #children: ChildApplier;
  readonly #liveCallTimeoutMs: number;

  constructor(o: {
    client: KubeClient;
    cache: CacheReader;
    events: Recorder;
    children: ChildApplier;
    liveCallTimeoutMs?: number;
  }) {
    this.#client = o.client;
    this.#cache = o.cache;
    this.#events = o.events;
    this.#children = o.children;
    this.#liveCallTimeoutMs = o.liveCallTimeoutMs ?? 5_000;
  }

  async applyAll(type: ResourceType, owner: KubeObject, objects: readonly object[]): Promise<void> {
    await Promise.all(objects.map((o) => this.#children.apply(type, owner, o as KubeObject)));
  }

  /** Config and pods stay as they are while a hold lasts (Ready says why). */
  async unlessHeld(plan: RolloutPlan, step: () => Promise<void>): Promise<void> {
    if (!blocksRollout(plan.holds)) await step();
  }

  async statefulSets(owner: KubeObject, plan: RolloutPlan, statefulSets: readonly object[]): Promise<void> {
    const errors = plan.problems.filter((p) => p.severity === "error");
    if (errors.length) {
      // Keep the last good pods: a bad spec must not replace a serving node with a crashing one.
      this.#events.event(owner, {
        type: "Warning",
        reason: "InvalidNodeConfiguration",
        message: `not rolling out: ${errors.map(formatProblem).join("; ")}`,
        action: "Validate",
      });
      return;
    }
    await this.applyAll(StatefulSets, owner, statefulSets);
  }

  /** Returns the pods a live call failed on, to restart once the ConfigMap holds the new values. */
  async setLive<P extends PodFacts>(
    owner: KubeObject,
    plan: RolloutPlan,
    live: { pods: readonly P[]; component: string; cliPort: number; signal: AbortSignal },
  ): Promise<P[]> {
    if (
      !plan.liveChanges.length ||
      blocksRollout(plan.holds) ||
      plan.problems.some((p) => p.severity === "error")
    )
      return [];
    return applyLiveChanges({
      owner,
      changes: plan.liveChanges,
      ...live,
      events: this.#events,
      timeoutMs: this.#liveCallTimeoutMs,
    });
  }

  /**
   * Before a ConfigMap changes: each pod never stamped gets the config hash its ConfigMap holds
   * now, so a later change is known to need its restart (config-restart.ts). Returns `pods` with
   * the stamps written, for the rest of the reconcile to judge them by; the stamped pods are cached
   * as written, for the next reconcile.
   */
  async stampNewPods<P extends PodFacts>(
    pods: readonly P[],
    mountedHash: (statefulSet: string) => string | undefined,
  ): Promise<P[]> {
    const stamped = await stampPods(this.#client, podsToStamp(pods, mountedHash), (pod) =>
      this.#cache.informer<PodFacts>(Pods).applyWritten(pod),
    );
    return withStamps(pods, stamped);
  }

  async restart(owner: KubeObject, pods: readonly PodFacts[]): Promise<void> {
    for (const pod of pods) {
      await restartPod(
        this.#client,
        owner.metadata?.namespace ?? "default",
        pod.metadata?.name ?? "",
        pod.metadata?.uid,
      );
    }
  }
}
