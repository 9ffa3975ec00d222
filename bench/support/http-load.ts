// The HTTP load generator of bench/api-get.ts, run as its own process:
//   node bench/support/http-load.ts '<LoadSpec as JSON>'   (prints one LoadResult as JSON)
// It imports Node's built-ins only. The child used to be bench/api-get.ts itself, which loads the
// whole API (fastify, the Kubernetes client, the control plane helpers): about 1.3 s of CPU per
// start on 2 cores, with V8's background compile and GC threads still busy when the first
// requests went out. Each create round starts a new child, so every round's first requests
// carried that start-up (first request per connection p50 83 ms against 35 ms for the others, 10
// of the 11 slowest of 800), and the create p99, the 8th slowest, measured the load generator's
// start. The connections are also opened before the clock starts: a keep-alive client, like the
// bare side's already connected Kubernetes client.
import { randomUUID } from "node:crypto";
import net from "node:net";
import { fileURLToPath } from "node:url";

export interface LoadResult {
  /** Kept for pooling rounds; not printed. */
  latencies?: number[];
  /** CPU time of the servers' process per request, µs (GET rounds; filled in by the caller). */
  cpuUs?: number;
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
  /** Why requests failed: "status: error text" (or the thrown error), with counts. */
  causes: Record<string, number>;
}

export interface LoadSpec {
  url: string;
  method: "GET" | "POST";
  token: string;
  connections: number;
  requests: number;
  /** POST: a webhook body; each request gets a unique name. */
  body?: Record<string, unknown>;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export function summarize(
  latencies: number[],
  elapsedMs: number,
  failures: number,
  causes: Record<string, number> = {},
): LoadResult {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    latencies,
    requests: latencies.length,
    perSecond: Math.round((latencies.length / elapsedMs) * 1000),
    p50Ms: Number(percentile(sorted, 50).toFixed(2)),
    p99Ms: Number(percentile(sorted, 99).toFixed(2)),
    failures,
    causes,
  };
}

/** Counts one failure under its cause, clipped so one line stays readable. */
export function countCause(causes: Record<string, number>, cause: string): void {
  const key = cause.replace(/\s+/g, " ").slice(0, 300);
  causes[key] = (causes[key] ?? 0) + 1;
}

interface RawAnswer {
  status: number;
  body: string;
  retryAfter: string | undefined;
}

/**
 * A minimal HTTP/1.1 keep-alive client on raw sockets: node:http's client costs more CPU per
 * request than the servers being measured, which would make the ratio measure the client.
 * Handles exactly what these servers send: a status line, headers with Content-Length, a body.
 */
class RawConnection {
  readonly #socket: net.Socket;
  readonly connected: Promise<void>;
  #buffer: Buffer = Buffer.alloc(0);
  #waiting: ((answer: RawAnswer) => void) | undefined;
  #failed: ((err: Error) => void) | undefined;
  #error: Error | undefined;

  constructor(host: string, port: number) {
    this.#socket = net.connect({ host, port, noDelay: true });
    // Settles either way: a connection that failed fails its requests, which are counted.
    this.connected = new Promise((resolve) => {
      this.#socket.once("connect", resolve);
      this.#socket.once("error", () => resolve());
    });
    this.#socket.on("data", (chunk: Buffer) => {
      this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
      this.#drain();
    });
    this.#socket.on("error", (err) => {
      this.#error = err;
      this.#failed?.(err);
    });
  }

  #drain(): void {
    const end = this.#buffer.indexOf("\r\n\r\n");
    if (end < 0) return;
    const head = this.#buffer.subarray(0, end).toString("latin1");
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (this.#buffer.length < end + 4 + length) return;
    const body = this.#buffer.subarray(end + 4, end + 4 + length).toString("utf8");
    this.#buffer = this.#buffer.subarray(end + 4 + length);
    const resolve = this.#waiting;
    this.#waiting = undefined;
    const retryAfter = /\r\nretry-after: *([^\r]*)/i.exec(head)?.[1];
    resolve?.({ status: Number(head.slice(9, 12)), body, retryAfter });
  }

  send(request: string): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      if (this.#error) {
        reject(this.#error);
        return;
      }
      this.#waiting = resolve;
      this.#failed = reject;
      this.#socket.write(request);
    });
  }

  close(): void {
    this.#socket.destroy();
  }
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const url = new URL(spec.url);
  const request = () => {
    const payload = spec.body ? JSON.stringify({ ...spec.body, name: `bench-${randomUUID()}` }) : "";
    const headers = [
      `${spec.method} ${url.pathname}${url.search} HTTP/1.1`,
      `host: ${url.host}`,
      `authorization: Bearer ${spec.token}`,
      ...(payload ? ["content-type: application/json", `content-length: ${Buffer.byteLength(payload)}`] : []),
    ];
    return `${headers.join("\r\n")}\r\n\r\n${payload}`;
  };
  const latencies: number[] = [];
  let failures = 0;
  const causes: Record<string, number> = {};
  let issued = 0;
  const conns = Array.from(
    { length: spec.connections },
    () => new RawConnection(url.hostname, Number(url.port)),
  );
  await Promise.all(conns.map((c) => c.connected));
  const t0 = performance.now();
  await Promise.all(
    conns.map(async (conn) => {
      while (issued < spec.requests) {
        issued++;
        const text = request();
        const s = performance.now();
        const answer = await conn
          .send(text)
          .catch((err: Error) => ({ status: 0, body: err.message, retryAfter: undefined }));
        if (answer.status !== 200) {
          failures++;
          const retry = answer.retryAfter ? ` (Retry-After ${answer.retryAfter})` : "";
          countCause(causes, `${answer.status || "no answer"}${retry}: ${answer.body}`);
        }
        latencies.push(performance.now() - s);
      }
      conn.close();
    }),
  );
  return summarize(latencies, performance.now() - t0, failures, causes);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const spec = JSON.parse(process.argv[2] ?? "") as LoadSpec;
  process.stdout.write(`${JSON.stringify(await runLoad(spec))}\n`);
}
