// Delivery requests sent from a thread of their own. The HTTP client is the largest part of a
// delivery's CPU; on a thread it runs on a second core, and the API's event loop stays free for
// its clients however many deliveries are going out (measured: bench/delivery.ts). The same
// interface as Sender. Requests and answers cross in batches, one message per turn of each event
// loop. A thread that dies (it should not: Sender never throws) ends what it had in flight as a
// network error, retried like one, and the next send starts a new thread.
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { type Allowlist, DEFAULT_DELIVERY_EGRESS, type DeliveryEgress } from "./address-policy.ts";
import type { SenderOptions, SendResult } from "./sender.ts";

/** What the thread is started with (an Allowlist crosses as its CIDRs; the egress always explicit). */
export interface SenderThreadData {
  options: Omit<SenderOptions, "allow" | "egress" | "resolve">;
  allow: readonly string[];
  egress: DeliveryEgress;
}
/** [request number, url, headers, body] */
export type SendRequest = [number, string, Record<string, string>, string];
/**
 * Answers cross as one flat array, ANSWER_FIELDS values per answer: the request number, then the
 * result (answerFields/fromAnswer). Flat primitives clone in about a quarter of the time of a
 * result object with its nested outcome and response (measured: v8.serialize of 128 answers,
 * 0.25 against 0.94 us each, and reading them back 1.7 us each as objects).
 */
export type SendAnswers = (string | number | undefined)[];
export const ANSWER_FIELDS = 7;

/** Appends [n, kind, status, statusText or error, body, retryAfter, durationMs] to `out`. */
export function answerFields(out: SendAnswers, n: number, r: SendResult): void {
  const o = r.outcome;
  if (o.kind === "response")
    out.push(n, "response", o.status, o.statusText, o.body, o.retryAfter, r.durationMs);
  else out.push(n, o.kind, undefined, o.error, undefined, undefined, r.durationMs);
}

/** The result at `i` of `a` (as answerFields wrote it): a response's outcome and logged response share their values, as Sender's do. */
export function fromAnswer(a: SendAnswers, i: number): SendResult {
  const kind = a[i + 1] as "response" | "error" | "refused";
  const durationMs = a[i + 6] as number;
  if (kind !== "response") return { outcome: { kind, error: a[i + 3] as string }, durationMs };
  const status = a[i + 2] as number;
  const statusText = a[i + 3] as string;
  const body = a[i + 4] as string;
  return {
    outcome: { kind, status, statusText, body, retryAfter: a[i + 5] as string | undefined },
    response: { status, statusText, body },
    durationMs,
  };
}

// The thread's file beside this one, .ts from the sources and .js from the build.
const here = fileURLToPath(import.meta.url);
const THREAD = here.replace(/threaded-sender(\.[cm]?[jt]s)$/, "sender-thread$1");

export class ThreadedSender {
  readonly #data: SenderThreadData;
  #thread: Worker | undefined;
  #requests: SendRequest[] = [];
  readonly #waiting = new Map<number, (r: SendResult) => void>();
  #n = 0;

  constructor(opts: Omit<SenderOptions, "allow" | "resolve"> & { allow: Allowlist }) {
    const { allow, egress, ...options } = opts;
    this.#data = { options, allow: allow.cidrs, egress: egress ?? DEFAULT_DELIVERY_EGRESS };
  }

  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const thread = this.#started();
    const n = ++this.#n;
    if (this.#requests.push([n, url, headers, body]) === 1) setImmediate(() => this.#flush());
    // In flight: the thread keeps the process alive, as the sockets of an in-process request would.
    if (this.#waiting.size === 0) thread.ref();
    return new Promise((resolve) => this.#waiting.set(n, resolve));
  }

  /** Ends the thread (its keep-alive connections with it); sends in flight end as errors. A later send starts another. */
  close(): void {
    const thread = this.#thread;
    if (!thread) return;
    this.#ended(thread, "the sender was closed");
    void thread.terminate();
  }

  /** For tests: the thread ends as if it had crashed. */
  async crashThreadForTest(): Promise<void> {
    await this.#thread?.terminate();
  }

  #started(): Worker {
    if (this.#thread) return this.#thread;
    const thread = new Worker(THREAD, { workerData: this.#data, name: "delivery-sender" });
    thread.unref();
    thread.on("message", (answers: SendAnswers) => {
      for (let i = 0; i < answers.length; i += ANSWER_FIELDS) {
        const n = answers[i] as number;
        const resolve = this.#waiting.get(n);
        this.#waiting.delete(n);
        resolve?.(fromAnswer(answers, i));
      }
      if (this.#waiting.size === 0) thread.unref();
    });
    thread.on("error", (err) => this.#ended(thread, `the delivery sender thread failed: ${err.message}`));
    thread.on("exit", (code) => this.#ended(thread, `the delivery sender thread exited (code ${code})`));
    this.#thread = thread;
    return thread;
  }

  /** The thread is gone (or going): what it had ends as an error, once. */
  #ended(thread: Worker, why: string): void {
    if (this.#thread !== thread) return;
    this.#thread = undefined;
    this.#requests = [];
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const resolve of waiting) resolve(stopped(why));
  }

  #flush(): void {
    const batch = this.#requests;
    this.#requests = [];
    if (batch.length > 0) this.#thread?.postMessage(batch);
  }
}

function stopped(error: string): SendResult {
  return { outcome: { kind: "error", error }, durationMs: 0 };
}
