// Live AI's writes for the Orchestrator reconciler: the -liveRunnerConfig Secret (static
// registration), each app's runner StatefulSet and headless Service, and the removal of the
// runners and registration of apps that left spec.ai.live. Secrets are not cached (the controller
// may not list them), so what was written is remembered here.
import { createHash } from "node:crypto";
import {
  applyOwned,
  isNotFound,
  type KubeClient,
  type KubeObject,
  keyOf,
  type ObjectKey,
  Secrets,
  Services,
  StatefulSets,
} from "../../kube/index.ts";
import type { StoredOrchestrator } from "../../schema/orchestrator.ts";
import { generatedSecret } from "../node-pod/index.ts";
import type { CacheReader, ChildApplier } from "../runtime/index.ts";
import { LIVE_RUNNER_COMPONENT, LIVE_RUNNERS_FILE, liveRunnersSecretName } from "./names.ts";
import type { LiveAiPlan } from "./plan.ts";

export class LiveAiChildren {
  readonly #client: KubeClient;
  readonly #cache: CacheReader;
  readonly #children: ChildApplier;
  /** Orchestrator key -> hash of the registration Secret last written ("" = deleted). */
  readonly #written = new Map<ObjectKey, string>();

  constructor(client: KubeClient, cache: CacheReader, children: ChildApplier) {
    this.#client = client;
    this.#cache = cache;
    this.#children = children;
  }

  /**
   * Static: the Secret the node reads -liveRunnerConfig from. Otherwise no runner is registered
   * there: a Secret left from a static registration is emptied (`[]`), not deleted (the controller
   * may not delete Secrets; the Orchestrator's deletion removes it through its owner reference).
   */
  async applyRegistration(orch: StoredOrchestrator, plan: LiveAiPlan): Promise<void> {
    const key = keyOf(orch);
    if (!plan.secret) {
      if (this.#written.get(key) === "") return;
      // Only an Orchestrator that had live apps (written here, or still in its status) can have one:
      // no GET per Orchestrator in a burst.
      const had = this.#written.has(key) || (orch.status?.ai?.live?.length ?? 0) > 0;
      if (!had) {
        this.#written.set(key, "");
        return;
      }
      const name = liveRunnersSecretName(orch.metadata?.name ?? "");
      const exists = await this.#client.get(Secrets, orch.metadata?.namespace, name).then(
        () => true,
        (err: unknown) => {
          if (isNotFound(err)) return false;
          throw err;
        },
      );
      if (exists) {
        const empty = generatedSecret({
          name,
          namespace: orch.metadata?.namespace ?? "default",
          values: { [LIVE_RUNNERS_FILE]: "[]" },
        });
        await applyOwned(this.#client, Secrets, orch, empty as KubeObject);
      }
      this.#written.set(key, "");
      return;
    }
    const hash = createHash("sha256").update(JSON.stringify(plan.secret)).digest("base64url");
    if (this.#written.get(key) === hash) return;
    await applyOwned(this.#client, Secrets, orch, plan.secret as KubeObject);
    this.#written.set(key, hash);
  }

  async applyRunners(orch: StoredOrchestrator, plan: LiveAiPlan): Promise<void> {
    await Promise.all([
      ...plan.services.map((s) => this.#children.apply(Services, orch, s as KubeObject)),
      ...plan.statefulSets.map((s) => this.#children.apply(StatefulSets, orch, s as KubeObject)),
    ]);
    await this.#prune(orch, plan);
  }

  /** Runner StatefulSets and Services of apps no longer in spec.ai.live (owned: ours to delete). */
  async #prune(orch: StoredOrchestrator, plan: LiveAiPlan): Promise<void> {
    const ns = orch.metadata?.namespace;
    const keep = new Set(plan.statefulSets.map((s) => s.metadata?.name));
    const ours = (o: KubeObject) =>
      o.metadata?.labels?.["app.kubernetes.io/component"] === LIVE_RUNNER_COMPONENT &&
      o.metadata?.labels?.["app.kubernetes.io/instance"] === orch.metadata?.name &&
      o.metadata?.ownerReferences?.some((r) => r.uid === orch.metadata?.uid) &&
      !keep.has(o.metadata?.name);
    for (const type of [StatefulSets, Services]) {
      for (const stale of this.#cache.list(type, ns).filter(ours)) {
        await this.#client.delete(type, ns, stale.metadata?.name ?? "").catch((err: unknown) => {
          if (!isNotFound(err)) throw err;
        });
      }
    }
  }

  forget(key: ObjectKey): void {
    this.#written.delete(key);
  }
}
