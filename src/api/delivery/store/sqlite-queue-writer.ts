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
import { Worker } from "node:worker_threads";

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
export type QueueAnswer = { n: number; result: string } | { n: number; error: string };

// The thread's file beside this one, .ts from the sources and .js from the build.
const THREAD = fileURLToPath(import.meta.url).replace(
  /sqlite-queue-writer(\.[cm]?[jt]s)$/,
  "sqlite-queue-thread$1",
);

interface Waiting {
  resolve: (result: string) => void;
  reject: (e: Error) => void;
}

export class SqliteQueueWriter {
  readonly #file: string;
  readonly #busyTimeoutMs: number;
  #generation = 0;
  #thread: Worker | undefined;
  readonly #waiting = new Map<number, Waiting>();
  #n = 0;
  #closed = false;

  /** `file`: the store's SQLite file (migrated by the store before the first call). */
  constructor(file: string, opts: { busyTimeoutMs?: number } = {}) {
    this.#file = file;
    this.#busyTimeoutMs = opts.busyTimeoutMs ?? 5_000;
  }

  /** One transaction in the thread; resolves with its answer (JSON text) once it is committed. */
  call(op: QueueCall["op"], args: string): Promise<string> {
    // Closed with its store: no thread starts again (as a closed connection answers no call).
    if (this.#closed) return Promise.reject(new Error("the delivery store is closed"));
    const thread = this.#started();
    const n = ++this.#n;
    if (this.#waiting.size === 0) thread.ref();
    return new Promise((resolve, reject) => {
      this.#waiting.set(n, { resolve, reject });
      thread.postMessage({ n, op, args } satisfies QueueCall);
    });
  }

  /** Ends the thread after what it has been given (its connection closed); later calls fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const thread = this.#thread;
    if (!thread) return;
    const stopped = new Promise<void>((resolve) => {
      thread.on("message", (m) => m === "stopped" && resolve());
      thread.once("exit", () => resolve());
    });
    thread.ref();
    thread.postMessage("stop");
    await stopped;
    this.#ended(thread, "the delivery store was closed");
    await thread.terminate();
  }

  /** For tests: the thread ends as if it had crashed. */
  async crashThreadForTest(): Promise<void> {
    await this.#thread?.terminate();
  }

  #started(): Worker {
    if (this.#thread) return this.#thread;
    const workerData: QueueThreadData = {
      file: this.#file,
      busyTimeoutMs: this.#busyTimeoutMs,
      generation: ++this.#generation,
    };
    const thread = new Worker(THREAD, { workerData, name: "delivery-queue-writer" });
    thread.unref();
    thread.on("message", (m: QueueAnswer | "stopped") => {
      if (m === "stopped") return;
      const waiting = this.#waiting.get(m.n);
      this.#waiting.delete(m.n);
      if ("error" in m) waiting?.reject(new Error(m.error));
      else waiting?.resolve(m.result);
      if (this.#waiting.size === 0) thread.unref();
    });
    thread.on("error", (err) => this.#ended(thread, `the delivery queue thread failed: ${err.message}`));
    thread.on("exit", (code) => this.#ended(thread, `the delivery queue thread exited (code ${code})`));
    this.#thread = thread;
    return thread;
  }

  /** The thread is gone (or going): what it had fails, once; the next call starts another. */
  #ended(thread: Worker, why: string): void {
    if (this.#thread !== thread) return;
    this.#thread = undefined;
    for (const w of this.#waiting.values()) w.reject(new Error(why));
    this.#waiting.clear();
  }
}
