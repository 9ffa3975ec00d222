// What both duty keepers share: their options, a memory per resource (outcomes a status alone
// cannot carry: in-flight calls, measured gas), and revisits while a duty waits. The Orchestrator's
// reward and settings and the Gateway's funding differ only in what they decide and call.
import type { ObjectKey } from "../../kube/index.ts";
import type { Recorder } from "../runtime/index.ts";
import { type balanceBefore, Revisits } from "./node-calls.ts";

export interface DutyOptions {
  events: Recorder;
  wake(key: ObjectKey): void;
  /** Between two looks at a waiting duty, and between reward retries (default 30 s). */
  periodMs?: number;
  /** Bound on one call to the node (a transaction is mined meanwhile; default 120 s). */
  callTimeoutMs?: number;
  now?: () => number;
}

/** The memory every duty keeps of one node: a call in flight, and what its transactions cost. */
export interface GasMemory {
  busy: boolean;
  /** Gas of this node's recent duty transactions (latest last), measured from its balance. */
  recentGas: bigint[];
  /** A finished transaction whose cost is not measured yet. */
  measure?: { before: NonNullable<ReturnType<typeof balanceBefore>>; finishedAt: number };
}

export abstract class DutyKeeper<M extends GasMemory> {
  protected readonly o: Required<Omit<DutyOptions, "now">> & { now: () => number };
  protected readonly memory = new Map<ObjectKey, M>();
  protected readonly revisits: Revisits;

  constructor(o: DutyOptions) {
    this.o = { periodMs: 30_000, callTimeoutMs: 120_000, now: Date.now, ...o };
    this.revisits = new Revisits(o.wake, this.o.periodMs);
  }

  forget(key: ObjectKey): void {
    this.memory.delete(key);
    this.revisits.forget(key);
  }

  stop(): void {
    this.revisits.stop();
  }
}
