// The Orchestrator reconciler: an ordered list of named steps (each applies children built by
// pure functions), then one status computation, written only when it changed.
import type { V1Service } from "@kubernetes/client-node";
import {
  applyOwned,
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
import type { ChainReads } from "../../node/chain/index.ts";
import type { StoredGateway } from "../../schema/gateway.ts";
import type { StoredOrchestrator as Orchestrator } from "../../schema/orchestrator.ts";
import { Gateways, Orchestrators } from "../../schema/resources.ts";
import { AiChildren } from "../ai/children.ts";
import { RUNNER_COMPONENT, RUNNER_CONTAINER } from "../ai/names.ts";
import { runnerTargets } from "../ai/targets.ts";
import type { DevnetResolution } from "../devnet/deployment-config-map.ts";
import { readDevnet } from "../devnet/lookup.ts";
import { KubePodLogs, NodeDoctor, type NodeDoctorOptions } from "../doctor/index.ts";
import { OrchestratorDuties } from "../duties/orchestrator-duties.ts";
import { LiveAiChildren } from "../live-ai/children.ts";
import { LIVE_RUNNER_COMPONENT } from "../live-ai/names.ts";
import { generatedSecret, newSecretValue } from "../node-pod/index.ts";
import { chainStatus, chainSubject } from "../node-status/chain-status.ts";
import type { ChainWatch } from "../node-status/chain-watch.ts";
import { configHashesOf, mountedConfigHash } from "../node-status/config-restart.ts";
import type { NodeFacts, PodFacts } from "../node-status/facts.ts";
import { rolloutGpuFacts } from "../node-status/gpu-slot.ts";
import { KeystoreCheck } from "../node-status/keystore.ts";
import { nodeObservers } from "../node-status/observers.ts";
import { OwnedSecrets } from "../node-status/owned-secrets.ts";
import { carryOutRollout, type PodRolloutPlan, planPodRollout } from "../node-status/pod-rollout.ts";
import { revisitAfter } from "../node-status/revisit.ts";
import { NodeRollout } from "../node-status/rollout.ts";
import {
  type CacheReader,
  ChildApplier,
  done,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  type Recorder,
  requeueAfter,
  type SetupContext,
  type StatusNews,
  StatusWriter,
} from "../runtime/index.ts";
import { childNames, ORCH_SECRET_KEY, PORTS } from "./names.ts";
import { type Plan, planOrchestrator } from "./plan.ts";
import { type RolloutStatefulSet, recoverStuckRollouts } from "./rollout-recovery.ts";
import { computeStatus, type OwnedStatus, type Seen } from "./status.ts";
import { orchestratorTargets } from "./targets.ts";
import { INSTANCE_INDEX } from "./watch.ts";

export interface OrchestratorOptions {
  /** Image of node pods whose resource does not set spec.image. */
  defaultImage: string;
  /** Tuning of the node doctor (periods, timeouts, concurrency); defaults suit production. */
  doctor?: Partial<Omit<NodeDoctorOptions, "logs" | "wake" | "log">>;
  /** The process's chain reads, shared with the other controllers (default: this controller's own). */
  chain?: ChainReads;
  /** How long a pod of an old revision may stay unready before it is replaced (default 60 s). */
  stuckPodGraceMs?: number;
  /** How long a node's in-place restart may take before its pod is replaced instead (default IN_PLACE_RESTART_TIMEOUT_MS, 5 min). */
  inPlaceRestartTimeoutMs?: number;
  /** Bound on one live `/setMaxSessions` call (default 5 s). */
  liveCallTimeoutMs?: number;
}

/** What one reconcile's steps share. */
interface Run {
  plan: Plan;
  /** The devnet deployment spec.devnet names, as read this time. */
  devnet: DevnetResolution;
  /**
   * This Orchestrator's node pods (orchestrator, transcoders) as cached when the reconcile began,
   * with the config stamps it wrote on new ones (the rollout judges them by those).
   */
  pods: PodFacts[];
  /** Its AI runner pods (spec.ai). */
  runnerPods: PodFacts[];
  /** Its live runner pods (spec.ai.live). */
  liveRunnerPods: PodFacts[];
  signal: AbortSignal;
  /** Pods a live change did not reach: restarted once the ConfigMap holds the new value. */
  restart: PodFacts[];
  /** Look again after this many ms (a pod's grace period ends). */
  recheckAfterMs?: number;
  /** The public Service's resourceVersion the plan read (before this reconcile applied it). */
  serviceVersion: string | undefined;
  /** Which pod the rollout replaces next, or what it waits for (spec.rollout). */
  rollout?: PodRolloutPlan;
  /** Pods the rollout deleted this time. */
  replaced: string[];
}

type Step = (orch: Orchestrator, run: Run) => Promise<void>;

/** Transitions told as Events, with the action each names; and every new finding. */
const NEWS: StatusNews = {
  conditions: {
    Scheduled: "Schedule",
    ChainHealthy: "ReadChain",
    Registered: "ReadChain",
    AIReady: "RunAIRunners",
    RolloutPending: "Rollout",
    LiveAIReady: "RunLiveRunners",
    Ready: "Reconcile",
  },
  trueIsUnhealthy: ["RolloutPending"],
};

export class OrchestratorReconciler implements Reconciler {
  readonly #client: KubeClient;
  readonly #cache: CacheReader;
  readonly #events: Recorder;
  readonly #options: OrchestratorOptions;
  /** Children are written only when they would change (pod events reconcile often). */
  readonly #children: ChildApplier;
  /** Looks at the node pods' endpoints and logs; wakes an Orchestrator when what it saw changed. */
  readonly doctor: NodeDoctor;
  /** Reads what the chain says of each node once a doctor period; wakes an Orchestrator when it changed. */
  readonly chain: ChainWatch;
  /** Reward every round and the declared on-chain settings, asked of the node when the chain lags. */
  readonly duties: OrchestratorDuties;
  readonly #keystore: KeystoreCheck;
  readonly #ownedSecrets: OwnedSecrets;
  readonly #status: StatusWriter;
  readonly #rollout: NodeRollout;
  /** Looks at the AI runner pods: /health (model loaded?), /hardware/stats and their logs. */
  readonly runnerDoctor: NodeDoctor;
  readonly #ai: AiChildren;
  readonly #live: LiveAiChildren;
  #sweptAt = Date.now();

  constructor(ctx: SetupContext, options: OrchestratorOptions) {
    this.#client = ctx.client;
    this.#cache = ctx.cache;
    this.#events = ctx.events;
    this.#options = options;
    this.#children = new ChildApplier(ctx.client, ctx.cache);
    ({ doctor: this.doctor, chain: this.chain } = nodeObservers(ctx, options));
    this.runnerDoctor = new NodeDoctor({
      ...options.doctor,
      logs: new KubePodLogs(ctx.client),
      wake: (key) => ctx.enqueue(key),
      container: RUNNER_CONTAINER,
      log: ctx.log.child("runner-doctor"),
    });
    this.#ai = new AiChildren(ctx.client, ctx.cache, this.#children);
    this.#live = new LiveAiChildren(ctx.client, ctx.cache, this.#children);
    this.duties = new OrchestratorDuties({
      events: ctx.events,
      wake: (key) => ctx.enqueue(key),
      ...(options.doctor?.periodMs !== undefined ? { periodMs: options.doctor.periodMs } : {}),
    });
    this.#keystore = new KeystoreCheck(ctx.client);
    this.#ownedSecrets = new OwnedSecrets(ctx.client);
    this.#status = new StatusWriter(ctx, Orchestrators, NEWS);
    this.#rollout = new NodeRollout({
      client: ctx.client,
      cache: ctx.cache,
      events: ctx.events,
      children: this.#children,
      ...(options.liveCallTimeoutMs !== undefined ? { liveCallTimeoutMs: options.liveCallTimeoutMs } : {}),
    });
  }

  /** Run in order, stopping at the first error (retried with backoff). */
  readonly steps: ReadonlyArray<[name: string, step: Step]> = [
    ["orchestrator secret (split setup)", (o, r) => this.#orchSecret(o, r.plan)],
    ["ai models secret", (o, r) => this.#ai.applySecret(o, r.plan.ai)],
    ["live runner registration", (o, r) => this.#live.applyRegistration(o, r.plan.live)],
    ["settings, live", (o, r) => this.#liveSettings(o, r)],
    [
      "new pods stamped with the config they mounted",
      async (o, r) => {
        r.pods = await this.#rollout.stampNewPods(
          r.pods,
          mountedConfigHash(r.plan.statefulSets, (cm) =>
            this.#cache.get(ConfigMaps, keyFor(o.metadata?.namespace, cm)),
          ),
        );
      },
    ],
    [
      "config maps",
      (o, r) =>
        this.#rollout.unlessHeld(r.plan, () => this.#rollout.applyAll(ConfigMaps, o, r.plan.configMaps)),
    ],
    ["services", (o, r) => this.#rollout.applyAll(Services, o, r.plan.services)],
    ["ai runners", (o, r) => this.#ai.applyRunners(o, r.plan.ai)],
    ["live runners", (o, r) => this.#live.applyRunners(o, r.plan.live)],
    [
      "stateful sets",
      (o, r) =>
        this.#rollout.unlessHeld(r.plan, () => this.#rollout.statefulSets(o, r.plan, r.plan.statefulSets)),
    ],
    ["pods the live change missed", (o, r) => this.#rollout.restart(o, r.restart)],
    ["pods on an older rendering, one at a time, each once idle", (o, r) => this.#podRollout(o, r)],
    ["stuck rollout recovery", (o, r) => this.#recoverStuckRollouts(o, r)],
  ];

  async reconcile(key: ObjectKey, ctx: ReconcileContext): Promise<ReconcileResult> {
    const orch = this.#cache.get<Orchestrator>(Orchestrators, key);
    // Deleted: the garbage collector removes every child through its ownerReference.
    if (!orch || orch.metadata?.deletionTimestamp) return this.#forget(key);
    const run = await this.#plan(orch, ctx);
    for (const [name, step] of this.steps) {
      await step(orch, run).catch((err: Error) => {
        ctx.log.warn(`step "${name}" failed; will retry`, { error: err.message });
        throw err;
      });
    }
    const status = computeStatus(await this.#seen(key, orch, run, ctx), new Date());
    await this.#status.write(orch, ownedStatus(orch), status, ctx.log);
    if (this.#servicePlannedStale(orch, run)) return { requeue: true };
    const next = revisitAfter(status.conditions, run.recheckAfterMs, Math.random());
    return next === undefined ? done : requeueAfter(next);
  }

  /**
   * The plan waited on the public Service's address (a NodePort's node port) and this reconcile's
   * own apply changed that Service: the API server allocates the node port in that very write,
   * whose answer is already cached, and the echo of one's own write wakes no one. So look again
   * again soon (rate-limited) rather than at the slow not-Ready recheck.
   */
  #servicePlannedStale(orch: Orchestrator, run: Run): boolean {
    if (!run.plan.holds.some((h) => h.reason === "ServiceAddressPending")) return false;
    const names = childNames(orch.metadata?.name ?? "");
    const now = this.#cache.get(Services, keyFor(orch.metadata?.namespace, names.service));
    return now !== undefined && now.metadata?.resourceVersion !== run.serviceVersion;
  }

  #forget(key: ObjectKey): ReconcileResult {
    this.#children.forget(key);
    this.doctor.forget(key);
    this.runnerDoctor.forget(key);
    this.#ai.forget(key);
    this.#live.forget(key);
    this.chain.forget(key);
    this.duties.forget(key);
    this.#status.forget(key);
    return done;
  }

  /** The plan, from the cache and the devnet deployment the spec names. */
  async #plan(orch: Orchestrator, ctx: ReconcileContext): Promise<Run> {
    const ns = orch.metadata?.namespace;
    const names = childNames(orch.metadata?.name ?? "");
    const all = this.#cache.byIndex<PodFacts>(Pods, INSTANCE_INDEX, keyFor(ns, names.statefulSet));
    const component = (p: PodFacts) => p.metadata?.labels?.["app.kubernetes.io/component"];
    const isRunner = (p: PodFacts) => component(p) === RUNNER_COMPONENT;
    const isLiveRunner = (p: PodFacts) => component(p) === LIVE_RUNNER_COMPONENT;
    const pods = all.filter((p) => !isRunner(p) && !isLiveRunner(p));
    const runnerPods = all.filter(isRunner);
    const liveRunnerPods = all.filter(isLiveRunner);
    const devnet = await readDevnet(orch.spec, ns ?? "default", this.#cache, this.#client);
    const service = this.#cache.get<V1Service & KubeObject>(Services, keyFor(ns, names.service));
    const plan = planOrchestrator({
      orch,
      nodes: this.#cache.list<NodeFacts>(Nodes),
      service,
      defaultImage: this.#options.defaultImage,
      pods,
      devnet,
      recorded: this.#cache.get(ConfigMaps, keyFor(ns, names.config))?.metadata?.annotations ?? {},
      aiTokens: await this.#ai.tokens(orch),
      newToken: newSecretValue,
    });
    return {
      plan,
      devnet,
      pods,
      runnerPods,
      liveRunnerPods,
      signal: ctx.signal,
      restart: [],
      replaced: [],
      serviceVersion: service?.metadata?.resourceVersion,
    };
  }

  /** What the status reads besides the plan: the node doctor's latest report and the keystore. */
  async #seen(key: ObjectKey, orch: Orchestrator, run: Run, ctx: ReconcileContext): Promise<Seen> {
    if (Date.now() - this.#sweptAt > 60_000) {
      this.#sweptAt = Date.now();
      this.doctor.sweep((k) => this.#cache.get(Orchestrators, k) !== undefined);
      this.runnerDoctor.sweep((k) => this.#cache.get(Orchestrators, k) !== undefined);
    }
    // The doctor gets the pods as they are now; its latest report comes back at once.
    const targets = orchestratorTargets(orch, run.pods);
    const doctorReport = this.doctor.observe(key, targets, {
      namespace: orch.metadata?.namespace ?? "default",
      seed: orch.status?.findings ?? [],
      signal: ctx.signal,
    });
    // Live runners are ai-runner images too: the same /health, the same log.
    const runners = runnerTargets([...run.runnerPods, ...run.liveRunnerPods]);
    const runnerReport = this.runnerDoctor.observe(key, runners, {
      namespace: orch.metadata?.namespace ?? "default",
      signal: ctx.signal,
    });
    const subject = chainSubject({
      role: "orchestrator",
      flags: run.plan.orchestratorFlags,
      devnet: run.devnet,
    });
    const report = subject.state === "target" ? this.chain.observe(key, subject.target) : undefined;
    if (subject.state !== "target") this.chain.forget(key);
    return {
      orch,
      plan: run.plan,
      pods: run.pods,
      nodes: this.#cache.list<NodeFacts>(Nodes),
      doctor: { targets, report: doctorReport },
      ai: { runnerPods: run.runnerPods, report: runnerReport },
      live: { runnerPods: run.liveRunnerPods },
      keystore: await this.#keystore.check(orch),
      chain: chainStatus("orchestrator", subject, report),
      duties: this.duties.observe(key, { orch, subject, report, pods: run.pods, cliPort: PORTS.cli }),
      gateways: this.#cache.list<StoredGateway>(Gateways, orch.metadata?.namespace),
      ...(run.rollout ? { rollout: run.rollout } : {}),
    };
  }

  /** Generated once and never rotated: running transcoders hold the current one. */
  async #orchSecret(orch: Orchestrator, plan: Plan): Promise<void> {
    if (!plan.orchSecretName) return;
    const ns = orch.metadata?.namespace;
    if (await this.#ownedSecrets.read(orch, plan.orchSecretName)) return;
    const secret = generatedSecret({
      name: plan.orchSecretName,
      namespace: ns,
      values: { [ORCH_SECRET_KEY]: newSecretValue() },
    });
    this.#ownedSecrets.wrote(orch, await applyOwned(this.#client, Secrets, orch, secret as KubeObject));
  }

  /** A new session limit or price goes to running orchestrator pods before the ConfigMap records it. */
  async #liveSettings(orch: Orchestrator, run: Run): Promise<void> {
    run.restart = await this.#rollout.setLive(orch, run.plan, {
      pods: run.pods,
      component: "orchestrator",
      cliPort: PORTS.cli,
      signal: run.signal,
    });
  }

  /** The StatefulSets as cached (their revisions), in the plan's order. */
  #statefulSets(orch: Orchestrator, run: Run): (RolloutStatefulSet & KubeObject)[] {
    const ns = orch.metadata?.namespace;
    return run.plan.statefulSets
      .map((s) =>
        this.#cache.get<RolloutStatefulSet & KubeObject>(StatefulSets, keyFor(ns, s.metadata?.name ?? "")),
      )
      .filter((s): s is RolloutStatefulSet & KubeObject => !!s);
  }

  /** Replaces the next pod on an older rendering when spec.rollout allows it (status says what it waits for). */
  async #podRollout(orch: Orchestrator, run: Run): Promise<void> {
    run.rollout = planPodRollout({
      spec: orch.spec.rollout,
      previous: orch.status?.rollout,
      statefulSets: this.#statefulSets(orch, run),
      pods: run.pods,
      readings: this.doctor.latestReadings(keyFor(orch.metadata?.namespace, orch.metadata?.name ?? "")),
      now: Date.now(),
      // Two looks' worth: one look may be in flight or delayed.
      freshMs: 2 * this.doctor.lookIntervalMs(),
      ...rolloutGpuFacts(run.plan.statefulSets, this.#cache),
      configHashes: configHashesOf(run.plan.statefulSets, run.plan.configMaps),
      ...(this.#options.inPlaceRestartTimeoutMs !== undefined
        ? { inPlaceTimeoutMs: this.#options.inPlaceRestartTimeoutMs }
        : {}),
    });
    if (run.rollout.recheckAfterMs !== undefined)
      run.recheckAfterMs = Math.min(run.recheckAfterMs ?? Infinity, run.rollout.recheckAfterMs);
    await this.#rollout.unlessHeld(run.plan, async () => {
      if (run.rollout)
        run.replaced = await carryOutRollout(orch, run.rollout, {
          client: this.#client,
          events: this.#events,
          pods: run.pods,
        });
    });
  }

  async #recoverStuckRollouts(orch: Orchestrator, run: Run): Promise<void> {
    // onDelete: no pod goes but by the user's hand.
    if (orch.spec.rollout?.strategy === "onDelete") return;
    const recheck = await recoverStuckRollouts({
      owner: orch,
      statefulSets: this.#statefulSets(orch, run),
      pods: run.pods.filter((p) => !run.replaced.includes(p.metadata?.name ?? "")),
      now: Date.now(),
      graceMs: this.#options.stuckPodGraceMs ?? 60_000,
      client: this.#client,
      events: this.#events,
    });
    if (recheck !== undefined) run.recheckAfterMs = Math.min(run.recheckAfterMs ?? Infinity, recheck + 1_000);
  }
}

/** The part of the status this controller owns, as it is now (to compare with computeStatus). */
function ownedStatus(orch: Orchestrator): OwnedStatus {
  const s = orch.status ?? {};
  return {
    ...(s.observedGeneration !== undefined ? { observedGeneration: s.observedGeneration } : {}),
    conditions: s.conditions ?? [],
    findings: s.findings ?? [],
    maxSessions: s.maxSessions,
    maxSessionsReason: s.maxSessionsReason,
    ...(s.node ? { node: s.node } : {}),
    ...(s.gpuProduct ? { gpuProduct: s.gpuProduct } : {}),
    serviceAddr: s.serviceAddr,
    ...(s.serviceURI !== undefined ? { serviceURI: s.serviceURI } : {}),
    ...(s.balance !== undefined ? { balance: s.balance } : {}),
    ...(s.activeSet !== undefined ? { activeSet: s.activeSet } : {}),
    ...(s.lastRewardRound !== undefined ? { lastRewardRound: s.lastRewardRound } : {}),
    ...(s.pricePerUnit !== undefined ? { pricePerUnit: s.pricePerUnit } : {}),
    ...(s.pixelsPerUnit !== undefined ? { pixelsPerUnit: s.pixelsPerUnit } : {}),
    ...(s.priceSource !== undefined ? { priceSource: s.priceSource } : {}),
    ...(s.quotes !== undefined ? { quotes: s.quotes } : {}),
    ...(s.ai !== undefined ? { ai: s.ai } : {}),
    ...(s.reward !== undefined ? { reward: s.reward } : {}),
    ...(s.onchain !== undefined ? { onchain: s.onchain } : {}),
    ...(s.rollout !== undefined ? { rollout: s.rollout } : {}),
  };
}
