// Leader election on a coordination.k8s.io/v1 Lease, as client-go does it:
// - a candidate polls every retry period; it takes the lease when nobody holds it or when the
//   holder has not renewed for leaseDuration, measured on OUR clock from when we last saw the
//   record change (no trust in other machines' clocks);
// - every write is a PUT with the resourceVersion read (optimistic concurrency): of two
//   candidates racing, one gets 409 and stays a candidate;
// - the leader renews every retry period; if it cannot renew for renewDeadline it stops leading
//   (before leaseDuration, so no other replica can have taken over yet);
// - release() (on SIGTERM) clears the holder and sets the duration to 1 s, so a successor takes
//   over at its next poll (within one retry period) instead of waiting out the lease.
import { errorMessage, isConflict, isNotFound } from "../../kube/api-error.ts";
import { backoffDelay, sleep } from "../../kube/backoff.ts";
import type { KubeClient } from "../../kube/kube-client.ts";
import type { KubeObject } from "../../kube/objects.ts";
import { Leases } from "../../kube/resources.ts";
import { type Logger, silentLogger } from "../../process/log.ts";
import { microTime } from "./events.ts";

export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number;
}
export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

export interface LeaderElectionConfig {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

export interface LeaderCallbacks {
  /** Called when this replica becomes leader; `signal` aborts when leadership ends. */
  onStartedLeading(signal: AbortSignal): void;
  /** Called when leadership ends (lost or released); awaited before campaigning again. */
  onStoppedLeading(): Promise<void> | void;
  onNewLeader?(identity: string): void;
}

export const LEADER_ELECTION_DEFAULTS = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

export class LeaderElector {
  readonly #client: KubeClient;
  readonly #c: Required<LeaderElectionConfig>;
  readonly #callbacks: LeaderCallbacks;
  readonly #log: Logger;
  readonly #onStatus: (leader: boolean) => void;
  #lease: Lease | undefined;
  #observed = "";
  #observedAt = 0;
  #leader = false;
  #lastRenew = 0;
  #knownLeader = "";
  #term: AbortController | undefined;
  #stopped = false;
  #wake: AbortController = new AbortController();
  #running: Promise<void> | undefined;

  constructor(
    client: KubeClient,
    config: LeaderElectionConfig,
    callbacks: LeaderCallbacks,
    opts: { log?: Logger; onStatus?: (leader: boolean) => void } = {},
  ) {
    const c = { ...LEADER_ELECTION_DEFAULTS, ...config };
    if (c.leaseDurationMs <= c.renewDeadlineMs) {
      throw new Error(
        `leader election: lease duration (${c.leaseDurationMs} ms) must exceed the renew deadline (${c.renewDeadlineMs} ms)`,
      );
    }
    if (c.renewDeadlineMs <= c.retryPeriodMs) {
      throw new Error(
        `leader election: renew deadline (${c.renewDeadlineMs} ms) must exceed the retry period (${c.retryPeriodMs} ms)`,
      );
    }
    if (c.leaseDurationMs % 1000 !== 0) {
      throw new Error(
        `leader election: lease duration must be whole seconds (Lease.spec.leaseDurationSeconds)`,
      );
    }
    this.#client = client;
    this.#c = c;
    this.#callbacks = callbacks;
    this.#log = (opts.log ?? silentLogger).child("leader-election");
    this.#onStatus = opts.onStatus ?? (() => {});
  }

  get isLeader(): boolean {
    return this.#leader;
  }

  get identity(): string {
    return this.#c.identity;
  }

  /** Campaigns until stop(); leads whenever it holds the lease. */
  start(): void {
    this.#running ??= this.#run();
  }

  async #run(): Promise<void> {
    const where = `lease ${this.#c.namespace}/${this.#c.name}`;
    this.#log.info(`campaigning for ${where}`, { identity: this.#c.identity });
    let failures = 0;
    while (!this.#stopped) {
      const wait = this.#leader ? this.#c.retryPeriodMs : this.#c.retryPeriodMs * (0.8 + 0.2 * Math.random());
      let ok = false;
      try {
        ok = await this.#tryAcquireOrRenew();
        failures = 0;
      } catch (err) {
        failures++;
        const level = failures > 1 || !this.#leader ? "warn" : "info";
        this.#log[level](`could not read or write ${where}`, { error: errorMessage(err), attempt: failures });
      }
      if (this.#stopped) break;
      const now = Date.now();
      if (ok && !this.#leader) {
        this.#leader = true;
        this.#lastRenew = now;
        this.#term = new AbortController();
        this.#onStatus(true);
        this.#log.info(`became leader of ${where}`, { identity: this.#c.identity });
        this.#callbacks.onStartedLeading(this.#term.signal);
      } else if (ok) {
        this.#lastRenew = now;
      } else if (this.#leader && now - this.#lastRenew >= this.#c.renewDeadlineMs) {
        this.#log.warn(
          `lost ${where}: not renewed for ${now - this.#lastRenew} ms (renew deadline ${this.#c.renewDeadlineMs} ms); stopping reconciles`,
          { holder: this.#knownLeader || "none" },
        );
        await this.#endTerm();
      } else if (this.#leader && this.#knownLeader && this.#knownLeader !== this.#c.identity) {
        this.#log.warn(`lost ${where} to ${this.#knownLeader}; stopping reconciles`);
        await this.#endTerm();
      }
      const delay =
        failures > 1 && !this.#leader ? backoffDelay(failures, { initialMs: wait, maxMs: 4 * wait }) : wait;
      this.#wake = new AbortController();
      await sleep(delay, this.#wake.signal);
    }
  }

  async #endTerm(): Promise<void> {
    this.#leader = false;
    this.#onStatus(false);
    this.#term?.abort();
    await this.#callbacks.onStoppedLeading();
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date();
    const desired = (old: LeaseSpec | undefined): LeaseSpec => {
      const ours = old?.holderIdentity === this.#c.identity;
      return {
        holderIdentity: this.#c.identity,
        leaseDurationSeconds: this.#c.leaseDurationMs / 1000,
        acquireTime: ours && old?.acquireTime ? old.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: ours
          ? (old?.leaseTransitions ?? 0)
          : (old?.leaseTransitions ?? 0) + (old?.holderIdentity ? 1 : 0),
      };
    };
    const timeoutMs = Math.min(this.#c.renewDeadlineMs, 5_000);
    let lease: Lease;
    try {
      lease = await this.#client.request<Lease>(
        "GET",
        `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.#c.namespace)}/leases/${encodeURIComponent(this.#c.name)}`,
        { timeoutMs },
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        this.#lease = await this.#client.create<Lease>(Leases, {
          metadata: { name: this.#c.name, namespace: this.#c.namespace },
          spec: desired(undefined),
        });
        this.#observe(this.#lease, Date.now());
        return true;
      } catch (createErr) {
        if (isConflict(createErr)) return false; // another candidate created it first
        throw createErr;
      }
    }
    const spec = lease.spec ?? {};
    this.#observe(lease, Date.now());
    const holder = spec.holderIdentity ?? "";
    if (holder !== this.#knownLeader) {
      this.#knownLeader = holder;
      if (holder) this.#callbacks.onNewLeader?.(holder);
      if (holder && holder !== this.#c.identity) this.#log.info(`leader is ${holder}`);
    }
    const expiresAt = this.#observedAt + (spec.leaseDurationSeconds ?? 0) * 1000;
    if (holder && holder !== this.#c.identity && expiresAt > Date.now()) return false;
    try {
      this.#lease = await this.#client.replace<Lease>(Leases, {
        metadata: { ...lease.metadata },
        spec: desired(spec),
      });
      this.#observe(this.#lease, Date.now());
      this.#knownLeader = this.#c.identity;
      return true;
    } catch (err) {
      if (isConflict(err)) return false; // someone wrote in between; look again next round
      throw err;
    }
  }

  #observe(lease: Lease, at: number): void {
    const s = lease.spec ?? {};
    const fingerprint = `${s.holderIdentity}|${s.renewTime}|${s.leaseDurationSeconds}|${lease.metadata?.resourceVersion}`;
    if (fingerprint !== this.#observed) {
      this.#observed = fingerprint;
      this.#observedAt = at;
    }
  }

  /**
   * Stops campaigning. With `release`, a leader first ends its term (onStoppedLeading) and then
   * clears the Lease so a successor need not wait for it to expire.
   */
  async stop(opts: { release: boolean } = { release: true }): Promise<void> {
    this.#stopped = true;
    this.#wake.abort();
    await this.#running;
    if (this.#leader) await this.#endTerm();
    // Also when the last write won the lease but the term never started (stopped meanwhile).
    if (opts.release) await this.release();
  }

  async release(): Promise<void> {
    const lease = this.#lease;
    if (!lease || lease.spec?.holderIdentity !== this.#c.identity) return;
    const now = microTime(new Date());
    try {
      await this.#client.replace<Lease>(Leases, {
        metadata: { ...lease.metadata },
        spec: {
          holderIdentity: null,
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: lease.spec?.leaseTransitions ?? 0,
        },
      });
      this.#log.info(`released lease ${this.#c.namespace}/${this.#c.name}`);
    } catch (err) {
      if (isConflict(err)) return; // someone else wrote it since: it is not ours to release
      this.#log.warn("could not release the lease; a successor takes over when it expires", {
        error: errorMessage(err),
        leaseSeconds: this.#c.leaseDurationMs / 1000,
      });
    }
  }
}
