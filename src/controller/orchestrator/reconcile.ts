// The Orchestrator reconciler: an ordered list of named steps (each applies children built by
// pure functions), then one status computation, written only when it changed.
import { randomBytes } from "node:crypto";
import type { V1Service } from "@kubernetes/client-node";
import {
  applyOwned,
  applyStatus,
  ConfigMaps,
  type KubeClient,
  type KubeObject,
  keyFor,
  Nodes,
  type ObjectKey,
  Pods,
  Secrets,
  Services,
  StatefulSets,
} from "../../kube/index.ts";
import type { StoredOrchestrator as Orchestrator } from "../../schema/orchestrator.ts";
import { Orchestrators } from "../../schema/resources.ts";
import { readDevnet } from "../devnet/lookup.ts";
import { type DoctorReport, KubePodLogs, NodeDoctor, type NodeDoctorOptions } from "../doctor/index.ts";
import {
  type CacheReader,
  ChildApplier,
  done,
  findCondition,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  type Recorder,
  requeueAfter,
  type SetupContext,
  statusChanged,
} from "../runtime/index.ts";
import { KeystoreCheck } from "./keystore.ts";
import { childNames, PORTS } from "./names.ts";
import { nodeTargets } from "./observe.ts";
import { describeProblems, type Plan, planOrchestrator } from "./plan.ts";
import { restartPod } from "./pod-restart.ts";
import type { NodeFacts, PodFacts } from "./resource.ts";
import { blocksRollout } from "./rollout-holds.ts";
import { type RolloutStatefulSet, recoverStuckRollouts } from "./rollout-recovery.ts";
import { SERVICE_ADDR_ANNOTATION } from "./service-address.ts";
import { SESSION_LIMIT_ANNOTATION, setSessionLimitLive } from "./session-limit-live.ts";
import { computeStatus, type OwnedStatus } from "./status.ts";
import { INSTANCE_INDEX } from "./watch.ts";

export interface OrchestratorOptions {
  /** Image of node pods whose resource does not set spec.image. */
  defaultImage: string;
  /** Tuning of the node doctor (periods, timeouts, concurrency); defaults suit production. */
  doctor?: Partial<Omit<NodeDoctorOptions, "logs" | "wake" | "log">>;
  /** How long a pod of an old revision may stay unready before it is replaced (default 60 s). */
  stuckPodGraceMs?: number;
  /** Bound on one live `/setMaxSessions` call (default 5 s). */
  liveCallTimeoutMs?: number;
}

/** Look again this long after a reconcile that left Ready not True (jittered by 10%). */
const NOT_READY_RECHECK_MS = 5 * 60_000;
/** Ready reasons whose cause no watch announces, and how soon to look again at them. */
const POLLED_REASONS = new Set(["DevnetDeploymentUnavailable", "KeystoreSecretUnreadable"]);
const POLL_MS = 30_000;

/** What one reconcile's steps share besides the plan. */
interface Run {
  /** This Orchestrator's pods as cached when the reconcile began. */
  pods: PodFacts[];
  signal: AbortSignal;
  /** Pods a live change did not reach: restarted once the ConfigMap holds the new value. */
  restart: PodFacts[];
  /** Look again after this many ms (a pod's grace period ends). */
  recheckAfterMs?: number;
}

type Step = (orch: Orchestrator, plan: Plan, run: Run) => Promise<void>;

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
      logs: new KubePodLogs(ctx.client),
      wake: (key) => ctx.enqueue(key),
      log: ctx.log.child("doctor"),
    });
    this.#keystore = new KeystoreCheck(ctx.client, ctx.cache);
  }

  /** Run in order, stopping at the first error (retried with backoff). */
  readonly steps: ReadonlyArray<[name: string, step: Step]> = [
    ["orchestrator secret (split setup)", (o, p) => this.#orchSecret(o, p)],
    ["session limit, live", (o, p, r) => this.#sessionLimitLive(o, p, r)],
    [
      "config maps",
      (o, p) => this.#unlessHeld(p, () => this.#applyAll(ConfigMaps, o, p.configMaps as KubeObject[])),
    ],
    ["services", (o, p) => this.#applyAll(Services, o, p.services as KubeObject[])],
    ["stateful sets", (o, p) => this.#unlessHeld(p, () => this.#statefulSets(o, p))],
    ["pods the live change missed", (o, _p, r) => this.#restartMissed(o, r)],
    ["stuck rollout recovery", (o, p, r) => this.#recoverStuckRollouts(o, p, r)],
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
    const pods = this.#cache.byIndex<PodFacts>(Pods, INSTANCE_INDEX, keyFor(ns, name));
    const recorded =
      this.#cache.get(ConfigMaps, keyFor(ns, childNames(name).config))?.metadata?.annotations ?? {};
    const plan = planOrchestrator({
      orch,
      nodes: this.#cache.list<NodeFacts>(Nodes),
      service: this.#cache.get<V1Service & KubeObject>(Services, keyFor(ns, childNames(name).service)),
      defaultImage: this.#options.defaultImage,
      pods,
      devnet: await readDevnet(orch.spec, ns ?? "default", this.#cache, this.#client),
      recorded: {
        ...(recorded[SESSION_LIMIT_ANNOTATION] ? { maxSessions: recorded[SESSION_LIMIT_ANNOTATION] } : {}),
        ...(recorded[SERVICE_ADDR_ANNOTATION] ? { serviceAddr: recorded[SERVICE_ADDR_ANNOTATION] } : {}),
      },
    });
    const run: Run = { pods, signal: ctx.signal, restart: [] };
    for (const [stepName, step] of this.steps) {
      try {
        await step(orch, plan, run);
      } catch (err) {
        ctx.log.warn(`step "${stepName}" failed; will retry`, { error: (err as Error).message });
        throw err;
      }
    }
    const doctor = this.#observeNode(key, orch, pods, ctx);
    const keystore = await this.#keystore.check(orch);
    const status = computeStatus(
      { orch, plan, pods, nodes: this.#cache.list<NodeFacts>(Nodes), doctor, keystore },
      new Date(),
    );
    await this.#writeStatus(orch, status, ctx);
    // What the status reads is watched (pods, children, Nodes, the keystore Secret, labelled
    // devnet ConfigMaps) or wakes the key itself (the doctor). A devnet ConfigMap that is missing
    // or not labelled yet is outside the cache, and a keystore read may fail: those are looked at
    // again soon; any other unready state slowly, spread so 5,000 unready Orchestrators do not
    // come back in one burst.
    const ready = findCondition(status.conditions, "Ready");
    const again =
      ready?.status === "True"
        ? undefined
        : (POLLED_REASONS.has(ready?.reason ?? "") ? POLL_MS : NOT_READY_RECHECK_MS) *
          (0.9 + 0.2 * Math.random());
    const next = Math.min(again ?? Number.POSITIVE_INFINITY, run.recheckAfterMs ?? Number.POSITIVE_INFINITY);
    return Number.isFinite(next) ? requeueAfter(next) : done;
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

  /** Config and pods stay as they are while a hold lasts (Ready says why). */
  async #unlessHeld(plan: Plan, step: () => Promise<void>): Promise<void> {
    if (!blocksRollout(plan.holds)) await step();
  }

  /** A new session limit goes to running pods before the ConfigMap records it. */
  async #sessionLimitLive(orch: Orchestrator, plan: Plan, run: Run): Promise<void> {
    const change = plan.sessionLimitChange;
    if (!change || blocksRollout(plan.holds) || plan.problems.some((p) => p.severity === "error")) return;
    run.restart = await setSessionLimitLive({
      orch,
      change,
      pods: run.pods,
      cliPort: PORTS.cli,
      events: this.#events,
      timeoutMs: this.#options.liveCallTimeoutMs ?? 5_000,
      signal: run.signal,
    });
  }

  async #restartMissed(orch: Orchestrator, run: Run): Promise<void> {
    for (const pod of run.restart) {
      await restartPod(
        this.#client,
        orch.metadata?.namespace ?? "default",
        pod.metadata?.name ?? "",
        pod.metadata?.uid,
      );
    }
  }

  async #recoverStuckRollouts(orch: Orchestrator, plan: Plan, run: Run): Promise<void> {
    const ns = orch.metadata?.namespace;
    const statefulSets = plan.statefulSets
      .map((s) =>
        this.#cache.get<RolloutStatefulSet & KubeObject>(StatefulSets, keyFor(ns, s.metadata?.name ?? "")),
      )
      .filter((s): s is RolloutStatefulSet & KubeObject => !!s);
    const recheck = await recoverStuckRollouts({
      orch,
      statefulSets,
      pods: run.pods,
      now: Date.now(),
      graceMs: this.#options.stuckPodGraceMs ?? 60_000,
      client: this.#client,
      events: this.#events,
    });
    if (recheck !== undefined) run.recheckAfterMs = recheck + 1_000;
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
