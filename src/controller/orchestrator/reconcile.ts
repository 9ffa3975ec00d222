// The Orchestrator reconciler: an ordered list of named steps (each applies children built by
// pure functions), then one status computation, written only when it changed.
import { randomBytes } from "node:crypto";
import type { V1Service } from "@kubernetes/client-node";
import { type DoctorReport, NodeDoctor, type NodeDoctorOptions } from "../doctor/index.ts";
import {
  applyOwned,
  applyStatus,
  type CacheReader,
  ChildApplier,
  ConfigMaps,
  done,
  findCondition,
  type KubeClient,
  type KubeObject,
  keyFor,
  type ObjectKey,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  type Recorder,
  requeueAfter,
  Secrets,
  Services,
  type SetupContext,
  StatefulSets,
  statusChanged,
} from "../runtime/index.ts";
import { KeystoreCheck } from "./keystore.ts";
import { childNames } from "./names.ts";
import { nodeTargets } from "./observe.ts";
import { describeProblems, type Plan, planOrchestrator } from "./plan.ts";
import { type NodeFacts, Nodes, type Orchestrator, Orchestrators, type PodFacts } from "./resource.ts";
import { computeStatus, type OwnedStatus } from "./status.ts";
import { INSTANCE_INDEX, Pods } from "./watch.ts";

export interface OrchestratorOptions {
  /** Image of node pods whose resource does not set spec.image. */
  defaultImage: string;
  /** Tuning of the node doctor (periods, timeouts, concurrency); defaults suit production. */
  doctor?: Partial<Omit<NodeDoctorOptions, "client" | "wake" | "log">>;
}

type Step = (orch: Orchestrator, plan: Plan) => Promise<void>;

export class OrchestratorReconciler implements Reconciler {
  readonly #client: KubeClient;
  readonly #cache: CacheReader;
  readonly #events: Recorder;
  readonly #options: OrchestratorOptions;
  /** Children are written only when they would change (pod events reconcile often). */
  readonly #children: ChildApplier;
  /** Looks at the node pods' endpoints and logs; wakes an Orchestrator when what it saw changed. */
  readonly doctor: NodeDoctor;
  readonly #keystore: KeystoreCheck;
  #sweptAt = Date.now();

  constructor(ctx: SetupContext, options: OrchestratorOptions) {
    this.#client = ctx.client;
    this.#cache = ctx.cache;
    this.#events = ctx.events;
    this.#options = options;
    this.#children = new ChildApplier(ctx.client, ctx.cache);
    this.doctor = new NodeDoctor({
      ...options.doctor,
      client: ctx.client,
      wake: (key) => ctx.enqueue(key),
      log: ctx.log.child("doctor"),
    });
    this.#keystore = new KeystoreCheck(ctx.client, ctx.cache);
  }

  /** Run in order, stopping at the first error (retried with backoff). */
  readonly steps: ReadonlyArray<[name: string, step: Step]> = [
    ["orchestrator secret (split setup)", (o, p) => this.#orchSecret(o, p)],
    ["config maps", (o, p) => this.#applyAll(ConfigMaps, o, p.configMaps as KubeObject[])],
    ["services", (o, p) => this.#applyAll(Services, o, p.services as KubeObject[])],
    ["stateful sets", (o, p) => this.#statefulSets(o, p)],
  ];

  async reconcile(key: ObjectKey, ctx: ReconcileContext): Promise<ReconcileResult> {
    const orch = this.#cache.get<Orchestrator>(Orchestrators, key);
    // Deleted: the garbage collector removes every child through its ownerReference.
    if (!orch || orch.metadata?.deletionTimestamp) {
      this.#children.forget(key);
      this.doctor.forget(key);
      return done;
    }
    const ns = orch.metadata?.namespace;
    const name = orch.metadata?.name ?? "";
    const plan = planOrchestrator({
      orch,
      nodes: this.#cache.list<NodeFacts>(Nodes),
      service: this.#cache.get<V1Service & KubeObject>(Services, keyFor(ns, childNames(name).service)),
      defaultImage: this.#options.defaultImage,
    });
    for (const [stepName, step] of this.steps) {
      try {
        await step(orch, plan);
      } catch (err) {
        ctx.log.warn(`step "${stepName}" failed; will retry`, { error: (err as Error).message });
        throw err;
      }
    }
    const pods = this.#cache.byIndex<PodFacts>(Pods, INSTANCE_INDEX, keyFor(ns, name));
    const doctor = this.#observeNode(key, orch, pods, ctx);
    const keystore = await this.#keystore.check(orch);
    const status = computeStatus(
      { orch, plan, pods, nodes: this.#cache.list<NodeFacts>(Nodes), doctor, keystore },
      new Date(),
    );
    await this.#writeStatus(orch, status, ctx);
    // Pods that are not Ready yet report through pod events; a periodic look catches the rest.
    return findCondition(status.conditions, "Ready")?.status === "True" ? done : requeueAfter(30_000);
  }

  /** Hands the doctor the pods as they are now; its latest report comes back at once. */
  #observeNode(key: ObjectKey, orch: Orchestrator, pods: PodFacts[], ctx: ReconcileContext) {
    if (Date.now() - this.#sweptAt > 60_000) {
      this.#sweptAt = Date.now();
      this.doctor.sweep((k) => this.#cache.get(Orchestrators, k) !== undefined);
    }
    const targets = nodeTargets(orch, pods);
    const report: DoctorReport = this.doctor.observe(key, targets, {
      namespace: orch.metadata?.namespace ?? "default",
      seed: orch.status?.findings ?? [],
      signal: ctx.signal,
    });
    return { targets, report };
  }

  async #applyAll(type: typeof ConfigMaps, orch: Orchestrator, objects: KubeObject[]): Promise<void> {
    await Promise.all(objects.map((o) => this.#children.apply(type, orch, o)));
  }

  async #statefulSets(orch: Orchestrator, plan: Plan): Promise<void> {
    const errors = plan.problems.filter((p) => p.severity === "error");
    if (errors.length) {
      // Keep the last good pods: a bad spec must not replace a serving node with a crashing one.
      this.#events.event(orch, {
        type: "Warning",
        reason: "InvalidNodeConfiguration",
        message: `not rolling out: ${describeProblems(errors)}`,
        action: "Validate",
      });
      return;
    }
    await this.#applyAll(StatefulSets, orch, plan.statefulSets as KubeObject[]);
  }

  async #orchSecret(orch: Orchestrator, plan: Plan): Promise<void> {
    if (!plan.orchSecretName) return;
    const ns = orch.metadata?.namespace;
    if (this.#cache.get(Secrets, keyFor(ns, plan.orchSecretName))) return;
    await applyOwned(this.#client, Secrets, orch, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: plan.orchSecretName,
        namespace: ns,
        labels: { "app.kubernetes.io/managed-by": "livepeer-operator" },
      },
      type: "Opaque",
      stringData: { secret: randomBytes(32).toString("hex") },
    } as KubeObject);
  }

  async #writeStatus(orch: Orchestrator, next: OwnedStatus, ctx: ReconcileContext): Promise<void> {
    const s = orch.status ?? {};
    const current: OwnedStatus = {
      ...(s.observedGeneration !== undefined ? { observedGeneration: s.observedGeneration } : {}),
      conditions: s.conditions ?? [],
      findings: s.findings ?? [],
      maxSessions: s.maxSessions,
      maxSessionsReason: s.maxSessionsReason,
      ...(s.node ? { node: s.node } : {}),
      ...(s.gpuProduct ? { gpuProduct: s.gpuProduct } : {}),
      serviceAddr: s.serviceAddr,
    };
    if (!statusChanged(current, next)) return;
    await applyStatus(this.#client, Orchestrators, orch, { ...next });
    // A new warning or error finding is news; normal ones (a loop that timed out) are not.
    const announced = new Set<string>();
    for (const f of next.findings ?? []) {
      if (f.severity === "normal" || current.findings?.some((x) => x.id === f.id)) continue;
      ctx.log.info(`finding ${f.id} (${f.severity}): ${f.message}`);
      this.#events.event(orch, { type: "Warning", reason: f.id, message: f.message, action: "Diagnose" });
      announced.add(f.id);
    }
    for (const type of ["Scheduled", "Ready"]) {
      const before = findCondition(s.conditions, type);
      const after = findCondition(next.conditions, type);
      if (
        !after ||
        after.status === "Unknown" ||
        (before?.status === after.status && before.reason === after.reason) ||
        // Ready=False because of a finding just announced: one Event says it.
        announced.has(after.reason)
      )
        continue;
      ctx.log.info(
        `${type} ${before?.status ?? "(none)"} -> ${after.status} (${after.reason}): ${after.message}`,
      );
      this.#events.event(orch, {
        type: after.status === "True" ? "Normal" : "Warning",
        reason: after.reason,
        message: after.message,
        action: type === "Scheduled" ? "Schedule" : "Reconcile",
      });
    }
  }
}
