// The SQLite store's writes (the queue's enqueue, claim and settle, and retention, forgotten
// webhooks, streams: sqlite-queue.ts) run in a thread of their own, with its own connection to
// the store's file: the queue's statements and the commits' writes
// (about 26 µs of the API thread's time per delivery at the peak, measured with
// bench/delivery.ts) run on a second core, and the event loop only hands over a batch and takes
// the answer, as JSON text (one copy; a structured clone of objects costs more, see
// sqlite-spend-writer.ts). The store's contract is unchanged: a call resolves once its
// transaction is committed (in the WAL, in the OS's hands: it survives the process being killed);
// a process killed before that loses it, as it would a batch not yet committed on the API thread.
// A thread that fails or exits fails what it had (enqueues are retried by their callers, claims by
// the worker, settles after their lease), and the next call starts another.
import { fileURLToPath } from "node:url";
import { type ThreadAnswer, ThreadCalls } from "./thread-calls.ts";

export interface QueueThreadData {
  file: string;
  busyTimeoutMs: number;
  /** Which thread of this writer it is (claim tokens stay unique across a restarted thread). */
  generation: number;
}
/** A call: `args` as JSON text, per op (see sqlite-queue-thread.ts). */
export interface QueueCall {
  n: number;
  op: "enqueue" | "claim" | "settle" | "prune" | "forgetWebhook" | "openStream" | "endStream";
  args: string;
}
export type QueueAnswer = ThreadAnswer;

// The thread's file beside this one, .ts from the sources and .js from the build.
const THREAD = fileURLToPath(import.meta.url).replace(
  /sqlite-queue-writer(\.[cm]?[jt]s)$/,
  "sqlite-queue-thread$1",
);

export class SqliteQueueWriter {
  readonly #thread: ThreadCalls;
  #generation = 0;

  /** `file`: the store's SQLite file (migrated by the store before the first call). */
  constructor(file: string, opts: { busyTimeoutMs?: number } = {}) {
    const busyTimeoutMs = opts.busyTimeoutMs ?? 5_000;
    this.#thread = new ThreadCalls({
      script: THREAD,
      name: "delivery-queue-writer",
      what: "the delivery queue thread",
      // Closed with its store: no thread starts again (as a closed connection answers no call).
      closed: "the delivery store is closed",
      workerData: () => ({ file, busyTimeoutMs, generation: ++this.#generation }) satisfies QueueThreadData,
    });
  }

  /** One transaction in the thread; resolves with its answer (JSON text) once it is committed. */
  call(op: QueueCall["op"], args: string): Promise<string> {
    return this.#thread.call({ op, args } satisfies Omit<QueueCall, "n">);
  }

  /** Ends the thread after what it has been given (its connection closed); later calls fail. */
  close(): Promise<void> {
    return this.#thread.close();
  }

  /** For tests: the thread ends as if it had crashed. */
  crashThreadForTest(): Promise<void> {
    return this.#thread.crashForTest();
  }
}
