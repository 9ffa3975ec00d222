// The chain side of the node doctor: for every resource it reads what the chain says about the
// node (checkNodeChain through the process's one ChainReads, so resources on the same RPC share
// its reads and rate bound) once per period, never in a reconcile's path. The reconciler hands it
// the node's chain target and gets the latest finished report back at once; when a report shows
// something new in status, the resource is woken (its controller's queue) so the status follows.
import type { ObjectKey } from "../../kube/index.ts";
import {
  type ChainPolicy,
  type ChainReads,
  checkNodeChain,
  DEFAULT_CHAIN_POLICY,
  type NodeChainCheck,
  type NodeChainTarget,
} from "../../node/chain/index.ts";
import { type Logger, silentLogger } from "../../process/log.ts";

export interface ChainWatchOptions {
  /** The process's chain reads, shared by every controller. */
  reads: ChainReads;
  /** Called when a resource's report shows something new (enqueue its key). */
  wake(key: ObjectKey): void;
  /** Between two checks of one resource (default 30 s, the node doctor's period). */
  periodMs?: number;
  /**
   * Stop checking a resource not observed this long (default 30 min; the controller's resync
   * observes every live one each 10 min): one deleted while this replica did not lead is dropped.
   */
  idleMs?: number;
  policy?: ChainPolicy;
  log?: Logger;
}

interface Watched {
  /** The target as JSON: a new one starts over. */
  target: string;
  report?: NodeChainCheck;
  /** What of the report a status shows, as JSON: a change wakes the resource. */
  shown: string;
  observedAt: number;
  timer?: NodeJS.Timeout;
}

export class ChainWatch {
  readonly #o: Required<Omit<ChainWatchOptions, "log">> & { log: Logger };
  readonly #watched = new Map<ObjectKey, Watched>();
  #checks = 0;

  constructor(o: ChainWatchOptions) {
    this.#o = { periodMs: 30_000, idleMs: 1_800_000, policy: DEFAULT_CHAIN_POLICY, log: silentLogger, ...o };
  }

  /** The latest finished report for this target (undefined until the first check ends). */
  observe(key: ObjectKey, target: NodeChainTarget): NodeChainCheck | undefined {
    const id = JSON.stringify(target);
    const w = this.#watched.get(key);
    if (w?.target === id) {
      w.observedAt = Date.now();
      return w.report;
    }
    if (w) clearTimeout(w.timer);
    const fresh: Watched = { target: id, shown: "", observedAt: Date.now() };
    this.#watched.set(key, fresh);
    void this.#check(key, fresh, target);
    return undefined;
  }

  forget(key: ObjectKey): void {
    clearTimeout(this.#watched.get(key)?.timer);
    this.#watched.delete(key);
  }

  stop(): void {
    for (const key of [...this.#watched.keys()]) this.forget(key);
  }

  /** Checks started since this watch began (for tests and the benchmark). */
  stats(): { checks: number; watched: number } {
    return { checks: this.#checks, watched: this.#watched.size };
  }

  async #check(key: ObjectKey, w: Watched, target: NodeChainTarget): Promise<void> {
    this.#checks++;
    try {
      const report = await checkNodeChain(this.#o.reads, target, this.#o.policy);
      if (this.#watched.get(key) !== w) return;
      w.report = report;
      const shown = JSON.stringify([report.conditions, report.findings, shownFacts(report)]);
      if (shown !== w.shown) {
        w.shown = shown;
        this.#o.wake(key);
      }
    } catch (err) {
      // A defect, not a chain answer (those are reports): keep the last report, try next period.
      this.#o.log.warn("chain check failed", { key, error: (err as Error).message });
    }
    if (this.#watched.get(key) !== w) return;
    if (Date.now() - w.observedAt > this.#o.idleMs) {
      this.#watched.delete(key);
      return;
    }
    w.timer = setTimeout(() => void this.#check(key, w, target), this.#o.periodMs);
    w.timer.unref();
  }
}

/** The facts a status shows (the head's block number moves every read and is not shown). */
function shownFacts({ facts }: NodeChainCheck): unknown {
  const { serviceURI, deposit, reserve, balance, activeSet, lastRewardRound } = facts;
  return { serviceURI, deposit, reserve, balance, activeSet, lastRewardRound };
}
