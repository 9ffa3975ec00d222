// The Gateway reconciler: an ordered list of named steps (each applies children built by pure
// functions), then one status computation, written only when it changed.
import {
  ConfigMaps,
  type KubeClient,
  type KubeObject,
  keyFor,
  Nodes,
  type ObjectKey,
  Pods,
  Services,
  StatefulSets,
} from "../../kube/index.ts";
import type { ChainReads } from "../../node/chain/index.ts";
import type { StoredGateway } from "../../schema/gateway.ts";
import type { StoredRemoteSigner } from "../../schema/remote-signer.ts";
import { Gateways, Orchestrators, RemoteSigners } from "../../schema/resources.ts";
import type { DevnetResolution } from "../devnet/deployment-config-map.ts";
import { readDevnet } from "../devnet/lookup.ts";
import type { DoctorReport, NodeDoctor, NodeDoctorOptions, Quote } from "../doctor/index.ts";
import { GatewayDuties } from "../duties/gateway-duties.ts";
import { chainStatus, chainSubject } from "../node-status/chain-status.ts";
import type { ChainWatch } from "../node-status/chain-watch.ts";
import { configHashesOf, mountedConfigHash } from "../node-status/config-restart.ts";
import type { NodeFacts, PodFacts } from "../node-status/facts.ts";
import { rolloutGpuFacts } from "../node-status/gpu-slot.ts";
import { ensureHooksSecret } from "../node-status/hooks-secret-step.ts";
import { KeystoreCheck } from "../node-status/keystore.ts";
import { nodeObservers } from "../node-status/observers.ts";
import { OwnedSecrets } from "../node-status/owned-secrets.ts";
import { carryOutRollout, type PodRolloutPlan, planPodRollout } from "../node-status/pod-rollout.ts";
import { revisitAfter } from "../node-status/revisit.ts";
import { NodeRollout } from "../node-status/rollout.ts";
import { nodeTargets } from "../node-status/targets.ts";
import { type RolloutStatefulSet, recoverStuckRollouts } from "../orchestrator/rollout-recovery.ts";
import { COMPONENT as SIGNER_COMPONENT } from "../remote-signer/names.ts";
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
import { orchestratorAddressing } from "./addressing.ts";
import { hooksSecret } from "./hooks-secret.ts";
import { gatewayChildNames, HOOKS_SECRET_KEYS, PORTS } from "./names.ts";
import { type GatewayPlan, planGateway, type SignerSeen } from "./plan.ts";
import type { OrchestratorView } from "./pool.ts";
import { computeGatewayStatus, ownedGatewayStatus } from "./status.ts";
import { hooksSecretUrl, StreamEndReporter } from "./stream-ends.ts";
import { GATEWAY_INSTANCE_INDEX } from "./watch.ts";

export interface GatewayOptions {
  /** Image of node pods whose resource does not set spec.image. */
  defaultImage: string;
  /**
   * The API server's base URL as gateway pods reach it (its node hooks answer discovery); absent:
   * Gateways that select Orchestrators say they cannot be served.
   */
  nodeHooksUrl?: string;
  /**
   * How gateways reach the orchestrators they are given: their advertised service address (a
   * cluster), or their pod's IP (the embedded default: loopback pod IPs, no cluster DNS).
   */
  orchestratorAddresses?: "service" | "pod-ip";
  doctor?: Partial<Omit<NodeDoctorOptions, "logs" | "wake" | "log">>;
  /** The process's chain reads, shared with the other controllers (default: this controller's own). */
  chain?: ChainReads;
  /** Bound on one live CLI call (default 5 s). */
  liveCallTimeoutMs?: number;
  /** How long a pod of an old revision may stay unready before it is replaced (default 60 s). */
  stuckPodGraceMs?: number;
  /** How long a node's in-place restart may take before its pod is replaced instead (default IN_PLACE_RESTART_TIMEOUT_MS, 5 min). */
  inPlaceRestartTimeoutMs?: number;
}

interface Run {
  plan: GatewayPlan;
  /** spec.remoteSigner: the signer as observed. */
  signer?: SignerSeen;
  /** The devnet deployment spec.devnet names, as read this time. */
  devnet: DevnetResolution;
  /** The node pods as cached when the reconcile began, with the config stamps it wrote on new ones. */
  pods: PodFacts[];
  signal: AbortSignal;
  /** Pods a live change did not reach: restarted once the ConfigMap holds the new value. */
  restart: PodFacts[];
  /** Which pod the rollout replaces next, or what it waits for (spec.rollout). */
  rollout?: PodRolloutPlan;
  /** Pods the rollout deleted this time. */
  replaced: string[];
  /** Look again after this many ms (a deadline, a grace period, a fresh reading). */
  recheckAfterMs?: number;
}

type Step = (gw: StoredGateway, run: Run) => Promise<void>;

/** Transitions told as Events; and every new finding. */
const NEWS: StatusNews = {
  conditions: {
    Scheduled: "Schedule",
    PriceCompatible: "ComparePrices",
    ChainHealthy: "ReadChain",
    Funded: "ReadChain",
    RolloutPending: "Rollout",
    Ready: "Reconcile",
  },
  trueIsUnhealthy: ["RolloutPending"],
};

export class GatewayReconciler implements Reconciler {
  readonly #client: KubeClient;
  readonly #cache: CacheReader;
  readonly #options: GatewayOptions;
  readonly #events: Recorder;
  readonly #children: ChildApplier;
  readonly doctor: NodeDoctor;
  /** Reads what the chain says of each node once a doctor period; wakes a Gateway when it changed. */
  readonly chain: ChainWatch;
  /** The funding guard: tops the deposit and reserve up through the node within the daily cap. */
  readonly duties: GatewayDuties;
  readonly #keystore: KeystoreCheck;
  readonly #ownedSecrets: OwnedSecrets;
  readonly #status: StatusWriter;
  readonly #rollout: NodeRollout;
  /** Ends of streams read in the node's log, reported to the API as stream.idle. */
  readonly #streamEnds: StreamEndReporter;

  constructor(ctx: SetupContext, options: GatewayOptions) {
    this.#client = ctx.client;
    this.#cache = ctx.cache;
    this.#options = options;
    this.#events = ctx.events;
    this.#children = new ChildApplier(ctx.client, ctx.cache);
    this.#streamEnds = new StreamEndReporter({
      hookUrl: hooksSecretUrl(ctx.client),
      log: ctx.log.child("stream-ends"),
    });
    ({ doctor: this.doctor, chain: this.chain } = nodeObservers(ctx, options, this.#streamEnds.onLine));
    this.duties = new GatewayDuties({
      events: ctx.events,
      wake: (key) => ctx.enqueue(key),
      ...(options.doctor?.periodMs !== undefined ? { periodMs: options.doctor.periodMs } : {}),
    });
    this.#keystore = new KeystoreCheck(ctx.client);
    this.#ownedSecrets = new OwnedSecrets(ctx.client);
    this.#status = new StatusWriter(ctx, Gateways, NEWS);
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
    ["settings, live", (g, r) => this.#liveSettings(g, r)],
    [
      "new pods stamped with the config they mounted",
      async (g, r) => {
        r.pods = await this.#rollout.stampNewPods(
          r.pods,
          mountedConfigHash([r.plan.node.statefulSet], (cm) =>
            this.#cache.get(ConfigMaps, keyFor(g.metadata?.namespace, cm)),
          ),
        );
      },
    ],
    [
      "config map",
      (g, r) =>
        this.#rollout.unlessHeld(r.plan, () =>
          this.#rollout.applyAll(ConfigMaps, g, [r.plan.node.configMap]),
        ),
    ],
    ["services", (g, r) => this.#rollout.applyAll(Services, g, r.plan.node.services)],
    [
      "stateful set",
      (g, r) =>
        this.#rollout.unlessHeld(r.plan, () =>
          this.#rollout.statefulSets(g, r.plan, [r.plan.node.statefulSet]),
        ),
    ],
    ["pods the live change missed", (g, r) => this.#rollout.restart(g, r.restart)],
    ["pods on an older rendering, one at a time, each once idle", (g, r) => this.#podRollout(g, r)],
    ["stuck rollout recovery", (g, r) => this.#recoverStuckRollouts(g, r)],
  ];

  async reconcile(key: ObjectKey, ctx: ReconcileContext): Promise<ReconcileResult> {
    const gw = this.#cache.get<StoredGateway>(Gateways, key);
    if (!gw || gw.metadata?.deletionTimestamp) {
      this.#children.forget(key);
      this.doctor.forget(key);
      this.#streamEnds.forget(key);
      this.chain.forget(key);
      this.duties.forget(key);
      this.#status.forget(key);
      return done;
    }
    const hookTokenDigest = await this.#hooksSecret(gw);
    const ns = gw.metadata?.namespace ?? "default";
    const pods = this.#pods(gw);
    // On chain the node lists what its orchestrators quoted it: read each look, it prices the pool.
    const onChain = (gw.spec.network ?? "offchain") !== "offchain";
    const targets = nodeTargets(pods, () => ({
      role: "gateway",
      cliPort: PORTS.cli,
      servicePort: undefined,
      aiExpected: false,
      ...(onChain ? { quotes: true } : {}),
    }));
    const report = this.doctor.observe(key, targets, {
      namespace: ns,
      seed: gw.status?.findings ?? [],
      signal: ctx.signal,
    });
    const run = await this.#plan(gw, hookTokenDigest, ctx.signal, pods, quotesOf(report));
    for (const [name, step] of this.steps) {
      await step(gw, run).catch((err: Error) => {
        ctx.log.warn(`step "${name}" failed; will retry`, { error: err.message });
        throw err;
      });
    }
    this.#streamEnds.track(key, { namespace: ns, name: gw.metadata?.name ?? "" }, run.plan.streamEvents);
    const subject = chainSubject({ role: "gateway", flags: run.plan.node.flags, devnet: run.devnet });
    if (subject.state !== "target") this.chain.forget(key);
    const chainReport = subject.state === "target" ? this.chain.observe(key, subject.target) : undefined;
    const chain = chainStatus("gateway", subject, chainReport);
    const duties = this.duties.observe(key, {
      gateway: gw,
      subject,
      report: chainReport,
      pods: run.pods,
      cliPort: PORTS.cli,
    });
    const status = computeGatewayStatus(
      {
        gateway: gw,
        plan: run.plan,
        pods: run.pods,
        nodes: this.#cache.list<NodeFacts>(Nodes),
        doctor: { targets, report },
        keystore: await this.#keystore.check(gw),
        chain,
        duties,
        ...(hookTokenDigest ? { hookTokenDigest } : {}),
        ...(run.signer ? { signer: run.signer } : {}),
        ...(run.rollout ? { rollout: run.rollout } : {}),
      },
      new Date(),
    );
    await this.#status.write(gw, ownedGatewayStatus(gw), status, ctx.log);
    const next = revisitAfter(status.conditions, run.recheckAfterMs, Math.random());
    return next === undefined ? done : requeueAfter(next);
  }

  #pods(gw: StoredGateway): PodFacts[] {
    const ns = gw.metadata?.namespace ?? "default";
    const names = gatewayChildNames(gw.metadata?.name ?? "");
    return this.#cache.byIndex<PodFacts>(Pods, GATEWAY_INSTANCE_INDEX, keyFor(ns, names.statefulSet));
  }

  async #plan(
    gw: StoredGateway,
    hookTokenDigest: string | undefined,
    signal: AbortSignal,
    pods: PodFacts[],
    quotes: Quote[] | undefined,
  ): Promise<Run> {
    const ns = gw.metadata?.namespace ?? "default";
    const names = gatewayChildNames(gw.metadata?.name ?? "");
    const devnet = await readDevnet(gw.spec, ns, this.#cache, this.#client);
    const signer = gw.spec.remoteSigner ? this.#signer(ns, gw.spec.remoteSigner.name) : undefined;
    const plan = planGateway({
      gateway: gw,
      defaultImage: this.#options.defaultImage,
      devnet,
      orchestrators: this.#cache.list<OrchestratorView & KubeObject>(Orchestrators, ns),
      addressing: orchestratorAddressing(this.#cache, this.#options.orchestratorAddresses, ns),
      hooksConfigured: !!this.#options.nodeHooksUrl,
      ...(hookTokenDigest ? { hookTokenDigest } : {}),
      recorded: this.#cache.get(ConfigMaps, keyFor(ns, names.config))?.metadata?.annotations ?? {},
      ...(signer ? { signer } : {}),
      quotes,
      now: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    });
    return { plan, devnet, pods, signal, restart: [], replaced: [], ...(signer ? { signer } : {}) };
  }

  /** A keyless gateway's signer: its Ready and Funded conditions, address and URL. */
  #signer(ns: string, name: string): SignerSeen {
    const s = this.#cache.get<StoredRemoteSigner>(RemoteSigners, keyFor(ns, name));
    if (!s) return { found: false, ready: false, funded: false };
    const condition = (type: string) => s.status?.conditions?.find((c) => c.type === type);
    const ready = condition("Ready");
    const url =
      this.#options.orchestratorAddresses === "pod-ip" ? this.#signerPodUrl(ns, s) : s.status?.serviceUrl;
    return {
      found: true,
      ready: ready?.status === "True",
      funded: condition("Funded")?.status === "True",
      ...(ready && ready.status !== "True" ? { reason: ready.reason } : {}),
      ...(s.status?.address ? { address: s.status.address } : {}),
      ...(url ? { url } : {}),
    };
  }

  /** Without cluster DNS (the embedded default): the first Ready signer pod, on its IP. */
  #signerPodUrl(ns: string, s: StoredRemoteSigner): string | undefined {
    const pod = this.#cache
      .list<PodFacts>(Pods, ns)
      .filter(
        (p) =>
          p.metadata?.labels?.["app.kubernetes.io/instance"] === s.metadata?.name &&
          p.metadata?.labels?.["app.kubernetes.io/component"] === SIGNER_COMPONENT &&
          p.status?.podIP &&
          p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
      )
      .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""))[0];
    return pod ? `http://${pod.status?.podIP}:${s.spec.port}` : undefined;
  }

  #statefulSet(gw: StoredGateway): (RolloutStatefulSet & KubeObject)[] {
    const sts = this.#cache.get<RolloutStatefulSet & KubeObject>(
      StatefulSets,
      keyFor(gw.metadata?.namespace, gatewayChildNames(gw.metadata?.name ?? "").statefulSet),
    );
    return sts ? [sts] : [];
  }

  /** Replaces the next pod on an older rendering when spec.rollout allows it (status says what it waits for). */
  async #podRollout(gw: StoredGateway, run: Run): Promise<void> {
    run.rollout = planPodRollout({
      spec: gw.spec.rollout,
      previous: gw.status?.rollout,
      statefulSets: this.#statefulSet(gw),
      pods: run.pods,
      readings: this.doctor.latestReadings(keyFor(gw.metadata?.namespace, gw.metadata?.name ?? "")),
      now: Date.now(),
      // Two looks' worth: one look may be in flight or delayed.
      freshMs: 2 * this.doctor.lookIntervalMs(),
      ...rolloutGpuFacts([run.plan.node.statefulSet], this.#cache),
      configHashes: configHashesOf([run.plan.node.statefulSet], [run.plan.node.configMap]),
      ...(this.#options.inPlaceRestartTimeoutMs !== undefined
        ? { inPlaceTimeoutMs: this.#options.inPlaceRestartTimeoutMs }
        : {}),
    });
    if (run.rollout.recheckAfterMs !== undefined) run.recheckAfterMs = run.rollout.recheckAfterMs;
    await this.#rollout.unlessHeld(run.plan, async () => {
      if (run.rollout)
        run.replaced = await carryOutRollout(gw, run.rollout, {
          client: this.#client,
          events: this.#events,
          pods: run.pods,
        });
    });
  }

  async #recoverStuckRollouts(gw: StoredGateway, run: Run): Promise<void> {
    // onDelete: no pod goes but by the user's hand.
    if (gw.spec.rollout?.strategy === "onDelete") return;
    const recheck = await recoverStuckRollouts({
      owner: gw,
      statefulSets: this.#statefulSet(gw),
      pods: run.pods.filter((p) => !run.replaced.includes(p.metadata?.name ?? "")),
      now: Date.now(),
      graceMs: this.#options.stuckPodGraceMs ?? 60_000,
      client: this.#client,
      events: this.#events,
    });
    if (recheck !== undefined) run.recheckAfterMs = Math.min(run.recheckAfterMs ?? Infinity, recheck + 1_000);
  }

  /** A new price cap, AI caps or session limit goes to the running node before the ConfigMap records it. */
  async #liveSettings(gw: StoredGateway, run: Run): Promise<void> {
    run.restart = await this.#rollout.setLive(gw, run.plan, {
      pods: run.pods,
      component: "gateway",
      cliPort: PORTS.cli,
      signal: run.signal,
    });
  }

  /**
   * The hooks Secret of a gateway that selects Orchestrators or sends stream events: created once with a new token; its
   * URL re-rendered (same token) when the API server's URL changes. Returns the token's digest.
   */
  async #hooksSecret(gw: StoredGateway): Promise<string | undefined> {
    const base = this.#options.nodeHooksUrl;
    const needed = gw.spec.orchestrators.selector !== undefined || gw.spec.streamEvents?.enabled === true;
    if (!needed || !base) return undefined;
    const ns = gw.metadata?.namespace ?? "default";
    const name = gw.metadata?.name ?? "";
    return ensureHooksSecret({
      client: this.#client,
      ownedSecrets: this.#ownedSecrets,
      owner: gw,
      name: gatewayChildNames(name).hooksSecret,
      base,
      tokenKey: HOOKS_SECRET_KEYS.token,
      keys: Object.values(HOOKS_SECRET_KEYS),
      render: (token) => hooksSecret({ gateway: name, namespace: ns, token, base }) as KubeObject,
    });
  }
}

/** What the gateway's node lists its orchestrators quoted it (its Ready pods' latest reads); undefined: not read. */
function quotesOf(report: DoctorReport): Quote[] | undefined {
  const read = report.readings.filter((r) => r.quotes !== undefined);
  return read.length ? read.flatMap((r) => r.quotes ?? []) : undefined;
}
