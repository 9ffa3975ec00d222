// What every node resource's reconciler looks through besides its cache: the node doctor (pods'
// endpoints and logs) and the chain watch (what the chain says of the node), each waking the
// resource when what it saw changed. One setup, shared by the Orchestrator and Gateway reconcilers.
import { ChainReads } from "../../node/chain/index.ts";
import { KubePodLogs, NodeDoctor, type NodeDoctorOptions } from "../doctor/index.ts";
import type { SetupContext } from "../runtime/index.ts";
import { ChainWatch } from "./chain-watch.ts";

export interface ObserverOptions {
  /** Tuning of the node doctor (periods, timeouts, concurrency); defaults suit production. */
  doctor?: Partial<Omit<NodeDoctorOptions, "logs" | "wake" | "log" | "onLine">>;
  /** The process's shared chain reads (one per RPC); absent: this controller's own. */
  chain?: ChainReads;
}

export function nodeObservers(
  ctx: SetupContext,
  o: ObserverOptions,
  onLine?: NodeDoctorOptions["onLine"],
): { doctor: NodeDoctor; chain: ChainWatch } {
  const wake = (key: string) => ctx.enqueue(key);
  return {
    doctor: new NodeDoctor({
      ...o.doctor,
      logs: new KubePodLogs(ctx.client),
      wake,
      ...(onLine ? { onLine } : {}),
      log: ctx.log.child("doctor"),
    }),
    chain: new ChainWatch({
      reads: o.chain ?? new ChainReads(),
      wake,
      ...(o.doctor?.periodMs !== undefined ? { periodMs: o.doctor.periodMs } : {}),
      log: ctx.log.child("chain"),
    }),
  };
}
