// The AI side's writes for the Orchestrator reconciler: the aiModels.json Secret (its runners'
// tokens drawn once and kept), each model's runner Deployment and Service, and the removal of
// runners whose model left spec.ai. Secrets are not cached (the controller may not list them), so
// what was written is remembered here: a burst of reconciles is not a PATCH each.
import { createHash } from "node:crypto";
import {
  applyOwned,
  Deployments,
  isNotFound,
  type KubeClient,
  type KubeObject,
  keyOf,
  type ObjectKey,
  Secrets,
  Services,
} from "../../kube/index.ts";
import type { StoredOrchestrator } from "../../schema/orchestrator.ts";
import type { CacheReader, ChildApplier } from "../runtime/index.ts";
import { aiSecretName, RUNNER_COMPONENT } from "./names.ts";
import { type AiPlan, tokensIn } from "./plan.ts";

export class AiChildren {
  readonly #client: KubeClient;
  readonly #cache: CacheReader;
  readonly #children: ChildApplier;
  /** Orchestrator key -> the runners' tokens (never rotated: running runners hold them). */
  readonly #tokens = new Map<ObjectKey, Record<string, string>>();
  /** Orchestrator key -> hash of the Secret last written. */
  readonly #written = new Map<ObjectKey, string>();

  constructor(client: KubeClient, cache: CacheReader, children: ChildApplier) {
    this.#client = client;
    this.#cache = cache;
    this.#children = children;
  }

  /** The tokens the Orchestrator's AI Secret holds (read once per Orchestrator). */
  async tokens(orch: StoredOrchestrator): Promise<Record<string, string>> {
    if (!orch.spec.ai?.models?.length) return {};
    const uid = keyOf(orch);
    const known = this.#tokens.get(uid);
    if (known) return known;
    let data: Record<string, string> | undefined;
    try {
      const secret = await this.#client.get<KubeObject & { data?: Record<string, string> }>(
        Secrets,
        orch.metadata?.namespace,
        aiSecretName(orch.metadata?.name ?? ""),
      );
      data = secret.data;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const tokens = tokensIn(data);
    this.#tokens.set(uid, tokens);
    return tokens;
  }

  async applySecret(orch: StoredOrchestrator, plan: AiPlan): Promise<void> {
    if (!plan.secret) return;
    const uid = keyOf(orch);
    const hash = createHash("sha256").update(JSON.stringify(plan.secret)).digest("base64url");
    if (this.#written.get(uid) === hash) return;
    await applyOwned(this.#client, Secrets, orch, plan.secret as KubeObject);
    this.#written.set(uid, hash);
    const values = plan.secret.stringData ?? {};
    this.#tokens.set(
      uid,
      tokensIn(
        Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v).toString("base64")])),
      ),
    );
  }

  async applyRunners(orch: StoredOrchestrator, plan: AiPlan): Promise<void> {
    await Promise.all([
      ...plan.services.map((s) => this.#children.apply(Services, orch, s as KubeObject)),
      ...plan.deployments.map((d) => this.#children.apply(Deployments, orch, d as KubeObject)),
    ]);
    await this.#prune(orch, plan);
  }

  /** Runner Deployments and Services of models no longer in spec.ai (owned: ours to delete). */
  async #prune(orch: StoredOrchestrator, plan: AiPlan): Promise<void> {
    const ns = orch.metadata?.namespace;
    const keep = new Set(plan.deployments.map((d) => d.metadata?.name));
    const ours = (o: KubeObject) =>
      o.metadata?.labels?.["app.kubernetes.io/component"] === RUNNER_COMPONENT &&
      o.metadata?.labels?.["app.kubernetes.io/instance"] === orch.metadata?.name &&
      o.metadata?.ownerReferences?.some((r) => r.uid === orch.metadata?.uid) &&
      !keep.has(o.metadata?.name);
    for (const type of [Deployments, Services]) {
      for (const stale of this.#cache.list(type, ns).filter(ours)) {
        await this.#client.delete(type, ns, stale.metadata?.name ?? "").catch((err: unknown) => {
          if (!isNotFound(err)) throw err;
        });
      }
    }
  }

  forget(key: ObjectKey): void {
    this.#tokens.delete(key);
    this.#written.delete(key);
  }
}
