// One HTTP/2 connection to the API server (node:http2, native nghttp2), as client-go keeps one:
// every request and watch of the controller is a stream on it. Compared with HTTP/1.1 connections
// this measured 1.25 instead of 1.30-1.34 x the bare script at 1,000 Orchestrators (bench/orchestrators.ts):
// the API server, the bottleneck on a busy cluster, serves multiplexed streams more cheaply.
//
// The connection keeps the process alive only while a stream is open. A connection that went
// silent (a dropped network path sends no RST) is found by a PING that gets no answer, and
// destroyed: its streams fail, informers re-list and re-watch on a fresh connection. A GOAWAY,
// an error or a close retires it (streams in flight finish where the server lets them).
import http2 from "node:http2";
import type { RequestOptions } from "node:https";
import type { Readable } from "node:stream";

/** The TLS material of one (cluster, user): what a connection is keyed and opened by. */
export type TlsOptions = Pick<
  RequestOptions,
  "ca" | "cert" | "key" | "pfx" | "passphrase" | "rejectUnauthorized" | "servername"
>;
export interface H2SessionOptions {
  /** A PING this often while a stream is open (client-go: after 30 s of reading nothing). */
  pingEveryMs?: number;
  /** No answer within this long: the connection is dead (client-go: 15 s). */
  pingTimeoutMs?: number;
}

export interface H2Response {
  status: number;
  body: Readable;
}

export class H2Session {
  readonly #session: http2.ClientHttp2Session;
  readonly #pinger: NodeJS.Timeout;
  readonly #pingTimeoutMs: number;
  #streams = 0;
  #pingPending = false;
  #gone = false;

  /** `onGone` runs once when the connection can take no new streams. */
  constructor(server: string, tls: TlsOptions, onGone: () => void, o: H2SessionOptions = {}) {
    this.#pingTimeoutMs = o.pingTimeoutMs ?? 15_000;
    this.#session = http2.connect(server, tls);
    this.#session.unref();
    const gone = () => {
      if (this.#gone) return;
      this.#gone = true;
      clearInterval(this.#pinger);
      onGone();
    };
    // Errors reach the streams that were open; the session itself is only retired.
    this.#session.on("error", gone);
    this.#session.on("goaway", gone);
    this.#session.on("close", gone);
    this.#pinger = setInterval(() => this.#ping(), o.pingEveryMs ?? 30_000).unref();
  }

  /** Can take new streams. */
  get usable(): boolean {
    return !this.#gone && !this.#session.closed && !this.#session.destroyed;
  }

  /** One request; resolves when the answer's headers arrive, the body still to read. */
  request(
    method: string,
    pathAndQuery: string,
    headers: Record<string, string>,
    payload: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<H2Response> {
    return new Promise((resolve, reject) => {
      const h: http2.OutgoingHttpHeaders = { ":method": method, ":path": pathAndQuery };
      for (const [k, v] of Object.entries(headers)) h[k.toLowerCase()] = v;
      let stream: http2.ClientHttp2Stream;
      try {
        stream = this.#session.request(h, {
          endStream: payload === undefined,
          ...(signal ? { signal } : {}),
        });
      } catch (err) {
        reject(err);
        return;
      }
      if (this.#streams++ === 0) this.#session.ref();
      stream.once("close", () => {
        if (--this.#streams === 0) this.#session.unref();
      });
      stream.once("response", (rh) => resolve({ status: Number(rh[":status"]), body: stream }));
      stream.once("error", reject);
      if (payload !== undefined) stream.end(payload);
    });
  }

  /** Lets open streams finish, then closes the connection. */
  close(): void {
    clearInterval(this.#pinger);
    if (!this.#session.closed) this.#session.close();
  }

  #ping(): void {
    if (this.#streams === 0 || this.#pingPending || !this.usable) return;
    this.#pingPending = true;
    const timer = setTimeout(() => {
      this.#session.destroy(
        new Error(`the API server did not answer an HTTP/2 PING within ${this.#pingTimeoutMs / 1000} s`),
      );
    }, this.#pingTimeoutMs).unref();
    const sent = this.#session.ping(() => {
      clearTimeout(timer);
      this.#pingPending = false;
    });
    if (!sent) {
      clearTimeout(timer);
      this.#pingPending = false;
    }
  }
}
