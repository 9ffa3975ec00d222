// JSON-RPC over HTTP to one chain endpoint, shared by every check that reads it. Calls made
// within a short window travel together in one batch request (JSON-RPC 2.0 batches), requests
// are paced by a token bucket and bounded in number in flight, and every answer is bounded in
// time and size. Over node:http(s) like the node client (fetch would load undici into the
// controller). A failure names the endpoint only in its redacted form (API keys live in URLs).
import https from "node:https";
import { http } from "../../process/builtin-http.ts";
import { RequestPacer } from "./request-pacer.ts";
import type { RpcUrl } from "./rpc-url.ts";

export interface JsonRpcOptions {
  /** One HTTP exchange, headers and body (default 5000 ms). */
  timeoutMs?: number;
  /** HTTP requests per second to this endpoint, on average (default 10). */
  requestsPerSecond?: number;
  /** Calls per HTTP request (default 20; 1 turns batching off). */
  batchMaxCount?: number;
  /** How long a call waits for others to share its request (default 2 ms). */
  batchWindowMs?: number;
  /** HTTP requests in flight at once (default 4). */
  maxInFlight?: number;
}

export type RpcFailureKind = "timeout" | "refused" | "unreachable" | "http-status" | "bad-answer";

/** The endpoint did not answer usefully: nothing a retry of the same call would change soon. */
export class RpcTransportError extends Error {
  readonly kind: RpcFailureKind;
  constructor(kind: RpcFailureKind, message: string) {
    super(message);
    this.name = "RpcTransportError";
    this.kind = kind;
  }
}

/** The endpoint answered the call with a JSON-RPC error (a revert, a limit, an unknown method). */
export class RpcCallError extends Error {
  readonly code: number | undefined;
  constructor(method: string, error: { code?: number; message?: string }) {
    super(`${method}: ${error.message ?? "error"}${error.code !== undefined ? ` (code ${error.code})` : ""}`);
    this.name = "RpcCallError";
    this.code = error.code;
  }
}

export interface JsonRpcStats {
  httpRequests: number;
  calls: number;
  failedRequests: number;
}

interface Pending {
  method: string;
  params: unknown[];
  resolve(value: unknown): void;
  reject(err: Error): void;
}

const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

export class JsonRpcClient {
  readonly rpc: RpcUrl;
  readonly stats: JsonRpcStats = { httpRequests: 0, calls: 0, failedRequests: 0 };
  private readonly timeoutMs: number;
  private batchMaxCount: number;
  private readonly batchWindowMs: number;
  private readonly maxInFlight: number;
  private readonly pacer: RequestPacer;
  private queue: Pending[] = [];
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(rpc: RpcUrl, opts: JsonRpcOptions = {}) {
    if (!rpc.readable) throw new Error(`${rpc.shown}: the chain checks read JSON-RPC over http(s) only`);
    this.rpc = rpc;
    this.timeoutMs = opts.timeoutMs ?? 5_000;
    this.batchMaxCount = Math.max(1, opts.batchMaxCount ?? 20);
    this.batchWindowMs = opts.batchWindowMs ?? 2;
    this.maxInFlight = Math.max(1, opts.maxInFlight ?? 4);
    const perSecond = opts.requestsPerSecond ?? 10;
    // Pacing runs on the real clock, whatever clock the caches are tested with.
    this.pacer = new RequestPacer(perSecond, Math.ceil(perSecond), performance.now());
  }

  call<T>(method: string, params: unknown[] = []): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ method, params, resolve: resolve as (v: unknown) => void, reject });
      this.schedule(this.queue.length >= this.batchMaxCount ? 0 : this.batchWindowMs);
    });
  }

  private schedule(ms: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, ms);
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.maxInFlight) {
      const wait = this.pacer.take(performance.now());
      if (wait > 0) {
        this.schedule(wait);
        return;
      }
      const batch = this.queue.splice(0, this.batchMaxCount);
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        if (this.queue.length > 0) this.schedule(0);
      });
    }
  }

  private async send(batch: Pending[]): Promise<void> {
    this.stats.httpRequests++;
    this.stats.calls += batch.length;
    const bodies = batch.map((p, i) => ({ jsonrpc: "2.0", id: i + 1, method: p.method, params: p.params }));
    let answer: unknown;
    try {
      answer = await this.exchange(JSON.stringify(batch.length === 1 ? bodies[0] : bodies));
    } catch (err) {
      this.stats.failedRequests++;
      for (const p of batch) p.reject(err as Error);
      return;
    }
    if (batch.length === 1 && !Array.isArray(answer)) {
      settle(batch[0]!, answer, this.rpc.shown);
      return;
    }
    if (!Array.isArray(answer)) {
      // Some endpoints refuse batches with one error object: send these one by one from now on.
      this.batchMaxCount = 1;
      this.queue.unshift(...batch);
      this.schedule(0);
      return;
    }
    const byId = new Map<unknown, unknown>(answer.map((a) => [(a as { id?: unknown })?.id, a]));
    batch.forEach((p, i) => {
      settle(p, byId.get(i + 1), this.rpc.shown);
    });
  }

  private exchange(body: string): Promise<unknown> {
    const url = new URL(this.rpc.url);
    const lib = url.protocol === "https:" ? https : http;
    const shown = this.rpc.shown;
    return new Promise((resolve, reject) => {
      const req = lib.request(
        url,
        {
          method: "POST",
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
          signal: AbortSignal.timeout(this.timeoutMs),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size > MAX_ANSWER_BYTES) {
              req.destroy(
                new RpcTransportError("bad-answer", `${shown} answered more than ${MAX_ANSWER_BYTES} bytes`),
              );
              return;
            }
            chunks.push(c);
          });
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            const status = res.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              const hint = status === 429 ? " (rate limited by the provider)" : "";
              reject(
                new RpcTransportError(
                  "http-status",
                  `${shown} answered HTTP ${status}${hint}: ${text.slice(0, 160)}`,
                ),
              );
              return;
            }
            try {
              resolve(JSON.parse(text));
            } catch {
              reject(
                new RpcTransportError(
                  "bad-answer",
                  `${shown} answered something that is not JSON (${JSON.stringify(text.slice(0, 80))}): is it a JSON-RPC endpoint?`,
                ),
              );
            }
          });
          res.on("error", (err) => reject(transportError(err, shown, this.timeoutMs)));
        },
      );
      req.on("error", (err) => reject(transportError(err, shown, this.timeoutMs)));
      req.end(body);
    });
  }
}

function transportError(err: Error, shown: string, timeoutMs: number): RpcTransportError {
  if (err instanceof RpcTransportError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ECONNREFUSED") return new RpcTransportError("refused", `${shown}: connection refused`);
  if (code === "ETIMEDOUT" || code === "ABORT_ERR" || err.name === "AbortError")
    return new RpcTransportError("timeout", `${shown} did not answer within ${timeoutMs} ms`);
  return new RpcTransportError("unreachable", `${shown}: ${code ?? err.message}`);
}

function settle(p: Pending, answer: unknown, shown: string): void {
  const a = answer as { result?: unknown; error?: { code?: number; message?: string } } | undefined;
  if (a && typeof a === "object" && a.error) {
    p.reject(new RpcCallError(p.method, a.error));
  } else if (a && typeof a === "object" && "result" in a) {
    p.resolve(a.result);
  } else {
    p.reject(new RpcTransportError("bad-answer", `${shown} gave no answer to ${p.method}`));
  }
}
