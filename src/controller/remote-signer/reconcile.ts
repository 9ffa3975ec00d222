// The RemoteSigner reconciler: an ordered list of named steps (each applies children built by pure
// functions), then one status computation, written only when it changed. The chain watch and the
// funding guard are the signer's: its account pays for every keyless Gateway and app using it.
import {
  ConfigMaps,
  isNotFound,
  type KubeClient,
  type KubeObject,
  keyFor,
  NetworkPolicies,
  Nodes,
  type ObjectKey,
  PodDisruptionBudgets,
  Pods,
  RoleBindings,
  Roles,
  ServiceAccounts,
  Services,
} from "../../kube/index.ts";
import type { ChainReads } from "../../node/chain/index.ts";
import { flagText } from "../../node/config/index.ts";
import type { StoredRemoteSigner } from "../../schema/remote-signer.ts";
import { Gateways, Orchestrators, RemoteSigners } from "../../schema/resources.ts";
import type { DevnetResolution } from "../devnet/deployment-config-map.ts";
import { readDevnet } from "../devnet/lookup.ts";
import type { NodeDoctor, NodeDoctorOptions } from "../doctor/index.ts";
import { GatewayDuties } from "../duties/gateway-duties.ts";
import { orchestratorAddressing } from "../gateway/addressing.ts";
import type { OrchestratorView } from "../gateway/pool.ts";
import { chainStatus, chainSubject } from "../node-status/chain-status.ts";
import type { ChainWatch } from "../node-status/chain-watch.ts";
import type { NodeFacts, PodFacts } from "../node-status/facts.ts";
import { ensureHooksSecret } from "../node-status/hooks-secret-step.ts";
import { KeystoreCheck } from "../node-status/keystore.ts";
import { nodeObservers } from "../node-status/observers.ts";
import { OwnedSecrets } from "../node-status/owned-secrets.ts";
import { revisitAfter } from "../node-status/revisit.ts";
import { NodeRollout } from "../node-status/rollout.ts";
import { nodeTargets } from "../node-status/targets.ts";
import {
  type CacheReader,
  ChildApplier,
  done,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  requeueAfter,
  type SetupContext,
  type StatusNews,
  StatusWriter,
} from "../runtime/index.ts";
import { signerHooksSecret } from "./hooks-secret.ts";
import { COMPONENT, SIGNER_CLI_PORT, SIGNER_HOOKS_KEYS, signerChildNames } from "./names.ts";
import { planSigner, type SignerPlan } from "./plan.ts";
import { computeSignerStatus, ownedSignerStatus } from "./status.ts";
import { GATEWAY_SIGNER_INDEX, SIGNER_INSTANCE_INDEX } from "./watch.ts";

export interface RemoteSignerOptions {
  /** Image of node pods whose resource does not set spec.image. */
  defaultImage: string;
  /** The API server's base URL as node pods reach it (the auth hook and the discovery feed). */
  nodeHooksUrl?: string;
  /** As the Gateway controller's: how the discovery feed addresses orchestrators. */
  orchestratorAddresses?: "service" | "pod-ip";
  /** The operator's namespace, for the NetworkPolicy (absent: its pods matched in any namespace). */
  operatorNamespace?: string;
  doctor?: Partial<Omit<NodeDoctorOptions, "logs" | "wake" | "log">>;
  chain?: ChainReads;
}

interface Run {
  plan: SignerPlan;
  devnet: DevnetResolution;
  pods: PodFacts[];
}

type Step = (signer: StoredRemoteSigner, run: Run) => Promise<void>;

/** Transitions told as Events; and every new finding. */
const NEWS: StatusNews = {
  conditions: {
    Scheduled: "Schedule",
    ChainHealthy: "ReadChain",
    Funded: "ReadChain",
    Ready: "Reconcile",
  },
};

export class RemoteSignerReconciler implements Reconciler {
  readonly #client: KubeClient;
  readonly #cache: CacheReader;
  readonly #options: RemoteSignerOptions;
  readonly #children: ChildApplier;
  readonly doctor: NodeDoctor;
  readonly chain: ChainWatch;
  /** The funding guard: tops the signer's deposit and reserve up through its node within the daily cap. */
  readonly duties: GatewayDuties;
  readonly #keystore: KeystoreCheck;
  readonly #ownedSecrets: OwnedSecrets;
  readonly #status: StatusWriter;
  readonly #rollout: NodeRollout;

  constructor(ctx: SetupContext, options: RemoteSignerOptions) {
    this.#client = ctx.client;
    this.#cache = ctx.cache;
    this.#options = options;
    this.#children = new ChildApplier(ctx.client, ctx.cache);
    ({ doctor: this.doctor, chain: this.chain } = nodeObservers(ctx, options));
    this.duties = new GatewayDuties({
      events: ctx.events,
      wake: (key) => ctx.enqueue(key),
      ...(options.doctor?.periodMs !== undefined ? { periodMs: options.doctor.periodMs } : {}),
    });
    this.#keystore = new KeystoreCheck(ctx.client);
    this.#ownedSecrets = new OwnedSecrets(ctx.client);
    this.#status = new StatusWriter(ctx, RemoteSigners, NEWS);
    this.#rollout = new NodeRollout({
      client: ctx.client,
      cache: ctx.cache,
      events: ctx.events,
      children: this.#children,
    });
  }

  /** Run in order, stopping at the first error (retried with backoff). */
  readonly steps: ReadonlyArray<[name: string, step: Step]> = [
    [
      "identity",
      async (s, r) => {
        await this.#rollout.applyAll(ServiceAccounts, s, [r.plan.children.serviceAccount]);
        await this.#rollout.applyAll(Roles, s, [r.plan.children.role]);
        await this.#rollout.applyAll(RoleBindings, s, [r.plan.children.roleBinding]);
      },
    ],
    ["network policy", (s, r) => this.#rollout.applyAll(NetworkPolicies, s, [r.plan.children.networkPolicy])],
    [
      "config map",
      (s, r) =>
        this.#rollout.unlessHeld(r.plan, () =>
          this.#rollout.applyAll(ConfigMaps, s, [r.plan.node.configMap]),
        ),
    ],
    ["services", (s, r) => this.#rollout.applyAll(Services, s, r.plan.node.services)],
    [
      "stateful set",
      (s, r) =>
        this.#rollout.unlessHeld(r.plan, () =>
          this.#rollout.statefulSets(s, r.plan, [r.plan.node.statefulSet]),
        ),
    ],
    ["disruption budget", (s, r) => this.#disruptionBudget(s, r.plan)],
  ];

  async reconcile(key: ObjectKey, ctx: ReconcileContext): Promise<ReconcileResult> {
    const signer = this.#cache.get<StoredRemoteSigner>(RemoteSigners, key);
    if (!signer || signer.metadata?.deletionTimestamp) {
      this.#children.forget(key);
      this.doctor.forget(key);
      this.chain.forget(key);
      this.duties.forget(key);
      this.#status.forget(key);
      return done;
    }
    const digest = await this.#hooksSecret(signer);
    const run = await this.#plan(signer, digest);
    for (const [name, step] of this.steps) {
      await step(signer, run).catch((err: Error) => {
        ctx.log.warn(`step "${name}" failed; will retry`, { error: err.message });
        throw err;
      });
    }
    const ns = signer.metadata?.namespace ?? "default";
    const targets = nodeTargets(run.pods, () => ({
      role: "gateway",
      cliPort: SIGNER_CLI_PORT,
      servicePort: undefined,
      aiExpected: false,
    }));
    const report = this.doctor.observe(key, targets, {
      namespace: ns,
      seed: signer.status?.findings ?? [],
      signal: ctx.signal,
    });
    // The chain is read for the signer's account as for an on-chain gateway's: deposit and reserve.
    const subject = chainSubject({ role: "gateway", flags: run.plan.node.flags, devnet: run.devnet });
    if (subject.state !== "target") this.chain.forget(key);
    const chainReport = subject.state === "target" ? this.chain.observe(key, subject.target) : undefined;
    const duties = this.duties.observe(key, {
      gateway: signer,
      component: COMPONENT,
      subject,
      report: chainReport,
      pods: run.pods,
      cliPort: SIGNER_CLI_PORT,
    });
    const address = flagText(run.plan.node.flags, "ethAcctAddr");
    const status = computeSignerStatus(
      {
        signer,
        plan: run.plan,
        pods: run.pods,
        nodes: this.#cache.list<NodeFacts>(Nodes),
        doctor: { targets, report },
        keystore: await this.#keystore.check(signer),
        chain: chainStatus("gateway", subject, chainReport),
        duties,
        ...(digest ? { hookTokenDigest: digest } : {}),
        ...(address ? { address } : {}),
      },
      new Date(),
    );
    await this.#status.write(signer, ownedSignerStatus(signer), status, ctx.log);
    const next = revisitAfter(status.conditions, undefined, Math.random());
    return next === undefined ? done : requeueAfter(next);
  }

  async #plan(signer: StoredRemoteSigner, hookTokenDigest: string | undefined): Promise<Run> {
    const ns = signer.metadata?.namespace ?? "default";
    const name = signer.metadata?.name ?? "";
    const names = signerChildNames(name);
    const pods = this.#cache.byIndex<PodFacts>(Pods, SIGNER_INSTANCE_INDEX, keyFor(ns, names.statefulSet));
    const devnet = await readDevnet(signer.spec, ns, this.#cache, this.#client);
    const gateways = this.#cache
      .byIndex<KubeObject>(Gateways, GATEWAY_SIGNER_INDEX, keyFor(ns, name))
      .map((g) => g.metadata?.name ?? "")
      .sort();
    const plan = planSigner({
      signer,
      defaultImage: this.#options.defaultImage,
      devnet,
      orchestrators: this.#cache.list<OrchestratorView & KubeObject>(Orchestrators, ns),
      addressing: orchestratorAddressing(this.#cache, this.#options.orchestratorAddresses, ns),
      gateways,
      hooksConfigured: !!this.#options.nodeHooksUrl,
      ...(hookTokenDigest ? { hookTokenDigest } : {}),
      ...(this.#options.operatorNamespace ? { operatorNamespace: this.#options.operatorNamespace } : {}),
    });
    return { plan, devnet, pods };
  }

  /** Applied with replicas > 1; removed when the signer goes back to one (it would block drains). */
  async #disruptionBudget(signer: StoredRemoteSigner, plan: SignerPlan): Promise<void> {
    const ns = signer.metadata?.namespace ?? "default";
    const name = signerChildNames(signer.metadata?.name ?? "").disruptionBudget;
    if (plan.children.disruptionBudget) {
      await this.#rollout.applyAll(PodDisruptionBudgets, signer, [plan.children.disruptionBudget]);
      return;
    }
    if (!this.#cache.get(PodDisruptionBudgets, keyFor(ns, name))) return;
    await this.#client.delete(PodDisruptionBudgets, ns, name).catch((err) => {
      if (!isNotFound(err)) throw err;
    });
  }

  /** The hooks Secret: created once with a new token; its URLs re-rendered (same token) when the API's URL changes. */
  async #hooksSecret(signer: StoredRemoteSigner): Promise<string | undefined> {
    const base = this.#options.nodeHooksUrl;
    if (!base) return undefined;
    const ns = signer.metadata?.namespace ?? "default";
    const name = signer.metadata?.name ?? "";
    return ensureHooksSecret({
      client: this.#client,
      ownedSecrets: this.#ownedSecrets,
      owner: signer,
      name: signerChildNames(name).hooksSecret,
      base,
      tokenKey: SIGNER_HOOKS_KEYS.token,
      keys: Object.values(SIGNER_HOOKS_KEYS),
      render: (token) => signerHooksSecret({ signer: name, namespace: ns, token, base }) as KubeObject,
    });
  }
}
