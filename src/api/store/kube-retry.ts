// Which failed Kubernetes API calls the webhook API retries itself before answering its client.
// Under load the API server pushes back (429 from API Priority and Fairness, 503, 504, etcd
// "request timed out") and HTTP/2 streams get reset; an SDK call should not see a 5xx for what
// one more try a moment later would have done. Every write we retry is safe to repeat: creates
// use a name this request made up (a 409 AlreadyExists on a later try is our own earlier try that
// landed), updates carry a resourceVersion, deletes a uid precondition.
import { KubeApiError } from "../../kube/api-error.ts";
import { backoffDelay, sleep } from "../../kube/backoff.ts";

export interface RetryDecision {
  retry: boolean;
  /** Why, for logs. */
  why: string;
}

// ERR_STREAM_PREMATURE_CLOSE: the answer's body was cut off after its status arrived, so the
// write may have landed (the next try of a create then finds it: AlreadyExists). Until bodyBytes
// read with events this was 10-18 in 3,000 creates at 16 in flight (bench/api-get.ts).
const TRANSPORT_CODES =
  /^(ERR_STREAM_PREMATURE_CLOSE|ERR_HTTP2_(STREAM_ERROR|STREAM_CANCEL|GOAWAY_SESSION|SESSION_ERROR|INVALID_SESSION)|ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT)$/;

/** Pure policy: is `err` (from one API server call) worth another try? */
export function kubeRetryDecision(err: unknown): RetryDecision {
  if (err instanceof KubeApiError) {
    if (err.status === 429) return { retry: true, why: "the API server asked to slow down (429)" };
    // 409 Conflict is not retried here: an update re-reads and re-applies (webhook-repository.ts).
    if (err.status === 500 && /etcdserver|request timed out|leader changed|timeout/i.test(err.message)) {
      return { retry: true, why: "etcd did not answer in time (500)" };
    }
    if (err.status === 503 || err.status === 504) {
      return { retry: true, why: `the API server is unavailable (${err.status})` };
    }
    return { retry: false, why: `HTTP ${err.status} ${err.reason}` };
  }
  const e = err as { name?: unknown; code?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  if (TRANSPORT_CODES.test(code)) return { retry: true, why: `the connection failed (${code})` };
  if (e?.name === "TimeoutError") return { retry: true, why: "no answer in time" };
  return { retry: false, why: "not a transient failure" };
}

export const isAlreadyExists = (err: unknown): boolean =>
  err instanceof KubeApiError && err.status === 409 && err.reason === "AlreadyExists";

export interface KubeRetryOptions {
  /** Tries in all (default 4). */
  attempts?: number;
  /** No new try starts after this long since the first (default 3 s): the client is waiting. */
  budgetMs?: number;
  onRetry?: (why: string, attempt: number) => void;
  /** For tests. */
  delay?: (attempt: number) => number;
}

/**
 * Runs `step(attempt)` (1-based) until it succeeds, fails for good, or the tries or the time
 * budget run out; throws the last error (translateKubeError turns it into the client's answer).
 */
export async function withKubeRetries<T>(
  step: (attempt: number) => Promise<T>,
  o: KubeRetryOptions = {},
): Promise<T> {
  const attempts = o.attempts ?? 4;
  const budgetMs = o.budgetMs ?? 3_000;
  const delay = o.delay ?? ((n: number) => backoffDelay(n, { initialMs: 100, maxMs: 1_000, jitter: 0.5 }));
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await step(attempt);
    } catch (err) {
      const d = kubeRetryDecision(err);
      const wait = delay(attempt);
      if (!d.retry || attempt >= attempts || Date.now() - started + wait > budgetMs) throw err;
      o.onRetry?.(d.why, attempt);
      await sleep(wait);
    }
  }
}
