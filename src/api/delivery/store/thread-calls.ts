// A worker thread answering numbered calls, for the SQLite store's writers (the delivery queue's,
// sqlite-queue-writer.ts, and the signers' spend, sqlite-spend-writer.ts): the event loop posts a
// call with its number and waits for `{n, result}` or `{n, error}`. The thread starts at the first
// call and does not hold the process open while nothing waits on it. A thread that fails or
// exits fails what it had, once, and the next call starts another (with fresh `workerData()`).
// `close()` lets it finish what it was given ("stop", answered "stopped") and ends it; later calls
// fail, as a closed connection answers none.
import { Worker } from "node:worker_threads";

/** What a thread posts back for call `n`: its result as text, or why it failed. */
export type ThreadAnswer = { n: number; result: string } | { n: number; error: string };

export interface ThreadCallsOptions {
  /** The thread's module (a path). */
  script: string;
  /** The thread's name (in profiles and `/proc/<pid>/task`), and what its failures are called. */
  name: string;
  /** Said in failures: "the delivery queue thread". */
  what: string;
  /** Said to calls after close() and to those it cut. */
  closed: string;
  /** Read at each start. */
  workerData: () => unknown;
  /** Prefixed to an error the thread answered (not to its failing or exiting). */
  errorPrefix?: string;
}

interface Waiting {
  resolve: (result: string) => void;
  reject: (e: Error) => void;
}

export class ThreadCalls {
  readonly #o: ThreadCallsOptions;
  #thread: Worker | undefined;
  readonly #waiting = new Map<number, Waiting>();
  #n = 0;
  #closed = false;

  constructor(o: ThreadCallsOptions) {
    this.#o = o;
  }

  /** Posts `call` with its number (`n`); resolves with the thread's answer. */
  call(call: Record<string, unknown>): Promise<string> {
    if (this.#closed) return Promise.reject(new Error(this.#o.closed));
    const thread = this.#started();
    const n = ++this.#n;
    if (this.#waiting.size === 0) thread.ref();
    return new Promise((resolve, reject) => {
      this.#waiting.set(n, { resolve, reject });
      thread.postMessage({ ...call, n });
    });
  }

  /** Ends the thread after what it has been given; later calls fail. */
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
    this.#ended(thread, this.#o.closed);
    await thread.terminate();
  }

  /** For tests: the thread ends as if it had crashed. */
  async crashForTest(): Promise<void> {
    await this.#thread?.terminate();
  }

  #started(): Worker {
    if (this.#thread) return this.#thread;
    const thread = new Worker(this.#o.script, { workerData: this.#o.workerData(), name: this.#o.name });
    thread.unref();
    thread.on("message", (m: ThreadAnswer | "stopped") => {
      if (m === "stopped") return;
      const waiting = this.#waiting.get(m.n);
      this.#waiting.delete(m.n);
      if ("error" in m) waiting?.reject(new Error(`${this.#o.errorPrefix ?? ""}${m.error}`));
      else waiting?.resolve(m.result);
      if (this.#waiting.size === 0) thread.unref();
    });
    thread.on("error", (err) => this.#ended(thread, `${this.#o.what} failed: ${err.message}`));
    thread.on("exit", (code) => this.#ended(thread, `${this.#o.what} exited (code ${code})`));
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
