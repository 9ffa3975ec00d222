// The Manager ties the runtime together: shared informers (one per resource, on every replica so
// a successor starts warm), controllers registered from src/controller/controllers.ts, the
// metrics/health server, and leader election (workers run only while this replica leads).
//
// Shutdown (SIGTERM/SIGINT or stop()): stop taking work, let reconciles in flight finish
// (bounded), release the lease so a successor takes over within one retry period, close the
// watches, the server and the pooled connections.
import type { KubeConfig } from "@kubernetes/client-node";
import { errorMessage } from "../../kube/api-error.ts";
import { sleep } from "../../kube/backoff.ts";
import { Informer, type InformerOptions } from "../../kube/informer.ts";
import { KubeClient } from "../../kube/kube-client.ts";
import { PooledKubeConfig } from "../../kube/kube-config.ts";
import type { KubeObject, ObjectKey } from "../../kube/objects.ts";
import { type ResourceType, resourceName } from "../../kube/resources.ts";
import { type Logger, silentLogger } from "../../process/log.ts";
import { Controller } from "./controller.ts";
import { EventRecorder } from "./events.ts";
import { type Check, type HealthServer, startHealthServer } from "./health-server.ts";
import { type LeaderElectionConfig, LeaderElector } from "./leader-election.ts";
import { RuntimeMetrics } from "./metrics.ts";
import type { RateLimiterOptions } from "./rate-limiter.ts";
import type { CacheReader, CacheSpec, ControllerDefinition } from "./reconciler.ts";

export const REPORTING_CONTROLLER = "livepeer.org/livepeer-operator";

export interface ManagerOptions {
  kubeConfig: KubeConfig;
  /** This replica's name in the Lease and in Events (pod name in a cluster). */
  identity: string;
  /** Namespaces to watch; absent or empty = all. */
  namespaces?: string[] | undefined;
  /** host:port for /metrics, /healthz, /readyz; undefined = no server. */
  metricsAddress?: string | undefined;
  /** false = every replica reconciles (only safe with one replica). */
  leaderElection: Omit<LeaderElectionConfig, "identity"> | false;
  /** Default workers per controller (a definition may set its own). */
  workers?: number;
  resyncPeriodMs?: number;
  /** Window in which a key's child and watch events wake one reconcile (default 1 s). */
  coalesceMs?: number;
  /** Bound on waiting for reconciles in flight when stopping. */
  shutdownTimeoutMs?: number;
  rateLimiter?: RateLimiterOptions;
  /** Informer tuning (tests use short backoffs and watch timeouts). */
  informer?: Pick<
    InformerOptions<KubeObject>,
    "backoff" | "watchTimeoutSeconds" | "deadAfterMs" | "pageSize"
  >;
  log?: Logger;
  /** Process metrics (CPU, memory, event loop lag); tests with several managers turn them off. */
  processMetrics?: boolean;
  /**
   * Runs once, when this replica first leads (or at start without leader election), before any
   * controller starts: work that must not happen while another replica still reconciles (the
   * controller keeps its CRDs current here on an upgrade). A failure stops the manager and is
   * kept in `failure`.
   */
  beforeLeading?: (signal: AbortSignal) => Promise<void>;
}

export class Manager {
  readonly client: KubeClient;
  readonly metrics: RuntimeMetrics;
  readonly events: EventRecorder;
  readonly cache: CacheReader;
  readonly #o: ManagerOptions;
  readonly #log: Logger;
  readonly #informers = new Map<string, { informer: Informer; spec: Omit<CacheSpec, "indexes"> }>();
  readonly #controllers: Controller[] = [];
  readonly #definitions: ControllerDefinition[] = [];
  #elector: LeaderElector | undefined;
  #beforeLeadingRun: Promise<boolean> | undefined;
  #failure: Error | undefined;
  #server: HealthServer | undefined;
  #abort = new AbortController();
  #started = false;
  #stopping: Promise<void> | undefined;
  #resolveDone!: () => void;
  readonly done: Promise<void> = new Promise((r) => {
    this.#resolveDone = r;
  });

  constructor(o: ManagerOptions) {
    this.#o = o;
    this.#log = o.log ?? silentLogger;
    this.client = new KubeClient(o.kubeConfig);
    this.metrics = new RuntimeMetrics({ processMetrics: o.processMetrics ?? true });
    this.client.observe((method, status, seconds) => this.metrics.request(method, status, seconds));
    this.events = new EventRecorder(this.client, {
      controller: REPORTING_CONTROLLER,
      instance: o.identity,
      log: this.#log,
    });
    const informerFor = <T extends KubeObject>(t: ResourceType) =>
      this.#informer(t) as unknown as Informer<T>;
    this.cache = {
      informer: informerFor,
      get: <T extends KubeObject>(t: ResourceType, key: ObjectKey) => informerFor<T>(t).store.get(key),
      list: <T extends KubeObject>(t: ResourceType, namespace?: string) =>
        informerFor<T>(t).store.list(namespace),
      byIndex: <T extends KubeObject>(t: ResourceType, index: string, value: string) =>
        informerFor<T>(t).store.byIndex(index, value),
    };
  }

  get isLeader(): boolean {
    return this.#o.leaderElection === false ? this.#started : (this.#elector?.isLeader ?? false);
  }

  get metricsAddress(): string | undefined {
    return this.#server?.address;
  }

  get controllers(): readonly Controller[] {
    return this.#controllers;
  }

  /** Registers a controller; call before start(). */
  add(def: ControllerDefinition): void {
    if (this.#started) throw new Error(`add controller ${def.name} before the manager starts`);
    if (this.#definitions.some((d) => d.name === def.name)) {
      throw new Error(`two controllers are named ${def.name}: names label metrics and must be unique`);
    }
    for (const spec of def.cache ?? []) this.#cacheAs(spec);
    for (const t of [def.resource, ...(def.owns ?? []), ...(def.watches ?? []).map((w) => w.resource)]) {
      this.#informer(t);
    }
    const log = this.#log.child(def.name);
    let controller: Controller | undefined;
    const enqueue = (key: ObjectKey) => controller?.enqueue(key);
    const reconciler = def.setup({
      client: this.client,
      cache: this.cache,
      events: this.events,
      log,
      enqueue,
      findings: this.metrics.findingsMetrics(),
    });
    controller = new Controller(def, reconciler, this.cache, this.metrics, log, {
      workers: def.workers ?? this.#o.workers ?? 2,
      resyncPeriodMs: def.resyncPeriodMs ?? this.#o.resyncPeriodMs ?? 10 * 60_000,
      stopTimeoutMs: this.#o.shutdownTimeoutMs ?? 20_000,
      ...(this.#o.rateLimiter ? { rateLimiter: this.#o.rateLimiter } : {}),
      ...(this.#o.coalesceMs !== undefined ? { coalesceMs: this.#o.coalesceMs } : {}),
    });
    controller.attach((t) => this.#informer(t));
    this.#definitions.push(def);
    this.#controllers.push(controller);
  }

  #cacheAs(spec: CacheSpec): void {
    const name = resourceName(spec.resource);
    const existing = this.#informers.get(name);
    if (existing) {
      const disagreement = cacheDisagreement(existing.spec, spec);
      if (disagreement) {
        throw new Error(
          `two controllers cache ${name} with different ${disagreement}: share one (the cache is shared)`,
        );
      }
    }
    const informer = existing?.informer ?? this.#newInformer(spec);
    for (const [index, fn] of Object.entries(spec.indexes ?? {})) {
      informer.store.addIndex(index, fn as (o: KubeObject) => string[]);
    }
  }

  #informer(t: ResourceType): Informer {
    return this.#informers.get(resourceName(t))?.informer ?? this.#newInformer({ resource: t });
  }

  #newInformer({ indexes: _added, ...spec }: CacheSpec): Informer {
    const t = spec.resource;
    if (this.#started)
      throw new Error(`${resourceName(t)} is not cached: declare it in a controller definition`);
    const informer = new Informer(this.client, {
      resource: t,
      namespaces: spec.namespaces ? [...spec.namespaces] : this.#o.namespaces,
      transform: spec.transform,
      labelSelector: spec.labelSelector,
      log: this.#log,
      metrics: this.metrics.informer(),
      ...this.#o.informer,
    });
    this.#informers.set(resourceName(t), { informer, spec });
    return informer;
  }

  /** Starts serving, caching and campaigning; resolves once every cache has synced. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    if (this.#o.metricsAddress) {
      this.#server = await startHealthServer(
        this.#o.metricsAddress,
        this.metrics.registry,
        { healthz: () => this.#healthz(), readyz: () => this.#readyz() },
        this.#log,
      );
    }
    const informers = [...this.#informers.values()].map((i) => i.informer);
    for (const i of informers) i.start();
    const t0 = Date.now();
    const progress = setInterval(() => {
      const waiting = informers.filter((i) => !i.hasSynced()).map((i) => i.name);
      this.#log.info(`waiting for caches to sync: ${waiting.join(", ")}`, {
        waitedSeconds: Math.round((Date.now() - t0) / 1000),
      });
    }, 10_000);
    progress.unref();
    try {
      await Promise.all(informers.map((i) => i.waitForSync(this.#abort.signal)));
    } finally {
      clearInterval(progress);
    }
    if (this.#abort.signal.aborted) return;
    this.#log.info(`caches synced in ${Date.now() - t0} ms`, {
      resources: informers.map((i) => i.name).join(","),
    });
    if (this.#o.leaderElection === false) {
      if (await this.#beforeLeading(this.#abort.signal)) for (const c of this.#controllers) c.start();
      return;
    }
    const lease = this.#o.leaderElection;
    this.#elector = new LeaderElector(
      this.client,
      { ...lease, identity: this.#o.identity },
      {
        onStartedLeading: (term) => {
          void this.#beforeLeading(term).then((ok) => {
            if (ok && !term.aborted) for (const c of this.#controllers) c.start();
          });
        },
        onStoppedLeading: async () => {
          await Promise.all(this.#controllers.map((c) => c.stop()));
        },
      },
      {
        log: this.#log,
        onStatus: (leader) => this.metrics.leaderStatus.set({ name: lease.name }, leader ? 1 : 0),
      },
    );
    this.metrics.leaderStatus.set({ name: lease.name }, 0);
    this.#elector.start();
  }

  /** Why the manager stopped itself (its beforeLeading work failed); undefined otherwise. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** The beforeLeading work, once per process: true when controllers may start. */
  async #beforeLeading(signal: AbortSignal): Promise<boolean> {
    const work = this.#o.beforeLeading;
    if (!work) return true;
    this.#beforeLeadingRun ??= work(signal).then(
      () => true,
      (err: unknown) => {
        if (signal.aborted) {
          this.#beforeLeadingRun = undefined; // a lost term or a stop: the next term tries again
          return false;
        }
        this.#failure = err instanceof Error ? err : new Error(String(err));
        this.#log.error(`could not start the controllers: ${this.#failure.message}`);
        void this.stop(this.#failure.message);
        return false;
      },
    );
    return this.#beforeLeadingRun;
  }

  /** Stops on the first SIGTERM/SIGINT; a second one exits at once. */
  stopOnSignals(): void {
    const onSignal = (signal: NodeJS.Signals) => {
      if (this.#stopping) {
        this.#log.warn(`${signal} again: exiting without finishing the graceful shutdown`);
        process.exit(1);
      }
      void this.stop(`received ${signal}`);
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
    void this.done.then(() => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    });
  }

  stop(reason = "stop requested"): Promise<void> {
    this.#stopping ??= this.#shutdown(reason);
    return this.#stopping;
  }

  async #shutdown(reason: string): Promise<void> {
    const t0 = Date.now();
    this.#log.info(`shutting down: ${reason}`);
    this.#abort.abort();
    try {
      // The elector keeps renewing while reconciles drain, then hands the lease over.
      await Promise.all(this.#controllers.map((c) => c.stop()));
      await this.#elector?.stop({ release: true });
      await Promise.race([this.events.flush(), sleep(2_000)]);
      await Promise.all([...this.#informers.values()].map((i) => i.informer.stop()));
      await this.#server?.close();
      if (this.#o.kubeConfig instanceof PooledKubeConfig) await this.#o.kubeConfig.close();
      this.#log.info(`stopped in ${Date.now() - t0} ms`);
    } catch (err) {
      this.#log.error("shutdown failed", { error: errorMessage(err) });
    } finally {
      this.#resolveDone();
    }
  }

  #healthz(): Check[] {
    const checks: Check[] = [{ name: "ping", ok: true }];
    for (const { informer } of this.#informers.values()) {
      const h = informer.health();
      checks.push({
        name: `informer-${h.resource}`,
        ok: !h.dead,
        ...(h.dead
          ? { detail: `failing for ${Math.round(h.failingForMs / 1000)} s: ${h.lastError ?? "loop ended"}` }
          : {}),
      });
    }
    return checks;
  }

  #readyz(): Check[] {
    const checks: Check[] = [{ name: "shutdown", ok: !this.#stopping, detail: "shutting down" }];
    for (const { informer } of this.#informers.values()) {
      const h = informer.health();
      checks.push({
        name: `cache-${h.resource}`,
        ok: h.synced,
        ...(h.synced ? {} : { detail: `not synced yet${h.lastError ? `: ${h.lastError}` : ""}` }),
      });
    }
    return checks;
  }
}

/** What two declarations of one shared cache disagree on (undefined: they agree). */
export function cacheDisagreement(a: CacheSpec, b: CacheSpec): string | undefined {
  if (a.transform !== b.transform) return "transforms";
  if (a.labelSelector !== b.labelSelector) {
    return `label selectors ("${a.labelSelector ?? ""}" and "${b.labelSelector ?? ""}")`;
  }
  const ns = (s: CacheSpec) => (s.namespaces ? [...s.namespaces].sort().join(",") : "the manager's");
  if (ns(a) !== ns(b)) return `namespaces (${ns(a)} and ${ns(b)})`;
  return undefined;
}
