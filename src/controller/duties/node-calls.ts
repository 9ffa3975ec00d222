// What the duty runners share: which pod's CLI port to ask, the node's own answer out of a failed
// call, a duty's finding as the status lists it, and a wake-up while a duty waits on time.

import type { ObjectKey } from "../../kube/index.ts";
import type { NodeChainFacts } from "../../node/chain/index.ts";
import { catalogEntry } from "../../node/diagnosis/catalog.ts";
import type { Finding } from "../../schema/finding.ts";
import { cliUrl, livePods } from "../live/apply.ts";
import type { PodFacts } from "../node-status/facts.ts";
import { type BalanceBefore, gasUsedSince } from "./wallet-policy.ts";

/** The CLI URL of the first running pod of `component`, or undefined when none runs. */
export function nodeCliUrl(
  pods: readonly PodFacts[],
  component: string,
  port: number,
): { pod: string; url: string } | undefined {
  const pod = livePods(pods, component)[0];
  if (!pod) return undefined;
  return { pod: pod.metadata?.name ?? "", url: cliUrl(pod.status?.podIP ?? "", port) };
}

/** "POST /reward of http://... failed: HTTP 500: Error calling reward: ..." -> the node's words. */
export function nodeAnswer(err: unknown): string {
  const message = (err as Error).message ?? String(err);
  const m = /failed: (?:HTTP \d+: )?([\s\S]*)$/.exec(message);
  return (m?.[1] ?? message).trim().slice(0, 900);
}

export function dutyFinding(id: string, message: string): Omit<Finding, "since"> {
  return { id, severity: catalogEntry(id).severity as Finding["severity"], message };
}

/** Wakes each key once after a delay while asked to (a duty waiting on the round or a retry). */
export class Revisits {
  readonly #timers = new Map<ObjectKey, { due: number; timer: NodeJS.Timeout }>();
  readonly #wake: (key: ObjectKey) => void;
  readonly #periodMs: number;

  constructor(wake: (key: ObjectKey) => void, periodMs: number) {
    this.#wake = wake;
    this.#periodMs = periodMs;
  }

  /** Wake `key` in `ms` (default: one period), unless a wake is due sooner already. */
  after(key: ObjectKey, ms = this.#periodMs): void {
    const due = Date.now() + ms;
    const pending = this.#timers.get(key);
    if (pending && pending.due <= due) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      this.#wake(key);
    }, ms);
    timer.unref();
    this.#timers.set(key, { due, timer });
  }

  forget(key: ObjectKey): void {
    clearTimeout(this.#timers.get(key)?.timer);
    this.#timers.delete(key);
  }

  stop(): void {
    for (const key of [...this.#timers.keys()]) this.forget(key);
  }
}

/** The wallet as the report read it, to measure what the next transaction costs. */
export function balanceBefore(read: NodeChainFacts | undefined, valueWei = 0n): BalanceBefore | undefined {
  if (!read?.rpc.ok || read.balanceWei === undefined || read.gasPriceWei === undefined) return undefined;
  return {
    block: read.rpc.blockNumber,
    balanceWei: read.balanceWei,
    gasPriceWei: read.gasPriceWei,
    valueWei,
  };
}

/** Once a report read after the transaction finished: its gas joins the recent ones (5 kept). */
export function measureGas(
  m: { recentGas: bigint[]; measure?: { before: BalanceBefore; finishedAt: number } },
  read: NodeChainFacts | undefined,
): void {
  if (!m.measure || !read?.rpc.ok || read.balanceWei === undefined || read.readAt <= m.measure.finishedAt)
    return;
  const gas = gasUsedSince(m.measure.before, { block: read.rpc.blockNumber, balanceWei: read.balanceWei });
  if (gas !== undefined) m.recentGas = [...m.recentGas, gas].slice(-5);
  delete m.measure;
}
