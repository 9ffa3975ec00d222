// One kept HTTP/2 connection over TLS to a node's service port, for unary gRPC calls
// (net.Orchestrator) and plain requests on the same port (POST /segment, AI jobs), as a gateway
// uses it. The node's certificate is self-signed and made anew at each start, so nothing can
// verify it against a CA; what the connection checks is set by `trust`:
// - "any": accept whatever the node presents, as go-livepeer's own gateway does
//   (InsecureSkipVerify in startOrchestratorClient);
// - a CertificatePins: trust on first use, the first certificate seen for host:port pinned, and a
//   different one accepted at once when the caller's `pinKey` changed (the pod restarted, so a new
//   certificate is expected); within the same run a different one is refused once, said, and the
//   pin dropped, so the next connection pins what the node presents then, as the official Python
//   SDK evicts its pin on a verification failure and tries again. (A new pod can reuse an
//   address while the old node still answers there: a pin taken from it must not hold forever.)
import type { ClientHttp2Session, IncomingHttpHeaders } from "node:http2";
import type { TLSSocket } from "node:tls";
import { type EndpointFailure, NodeEndpointError } from "../client/errors.ts";
import {
  decodeGrpcMessage,
  frameMessage,
  GRPC_CONTENT_TYPE,
  GrpcStatus,
  grpcStatusName,
  methodPath,
  type OrchestratorMethod,
  unframeMessage,
} from "./grpc.ts";
import {
  decodeMessage,
  encodeMessage,
  type MessageInput,
  type MessageName,
  type Messages,
} from "./messages.ts";

// As src/process/builtin-http.ts: the CommonJS module object, so that its lazy getters (which
// load Node's bundled undici, 14 MB the controller never uses) stay lazy.
const { connect, constants } = process.getBuiltinModule("node:http2");

export interface CallOptions {
  /** The whole call (default 5000 ms). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface Response {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Pinned certificates by host:port; `pinKey` says which run of the node the pin belongs to. */
export class CertificatePins {
  readonly #pins = new Map<string, { fingerprint: string; pinKey: string | undefined }>();

  /** undefined when accepted (and pinned), else why it is refused. */
  check(hostPort: string, fingerprint: string, pinKey: string | undefined): string | undefined {
    const pin = this.#pins.get(hostPort);
    if (!pin || pin.pinKey !== pinKey) {
      this.#pins.set(hostPort, { fingerprint, pinKey });
      return undefined;
    }
    if (pin.fingerprint === fingerprint) return undefined;
    this.#pins.delete(hostPort);
    return `the node presented another TLS certificate (SHA-256 ${fingerprint.slice(0, 23)}...) than the one pinned on first use (${pin.fingerprint.slice(0, 23)}...) while the same node run was expected: refused this time (a node makes a new certificate only when it starts; the next connection pins the one it presents then)`;
  }

  forget(hostPort: string): void {
    this.#pins.delete(hostPort);
  }

  get size(): number {
    return this.#pins.size;
  }
}

export const DEFAULT_CALL_TIMEOUT_MS = 5000;

export class NodeConnection {
  readonly url: string;
  readonly #origin: string;
  readonly #hostPort: string;
  readonly #trust: "any" | CertificatePins;
  #pinKey: string | undefined;
  #session: ClientHttp2Session | undefined;
  #refused: string | undefined;

  /** `url`: https://host:port (the service URI); http:// speaks h2c, as a node behind -httpAddr http://. */
  constructor(url: string, trust: "any" | CertificatePins, pinKey?: string) {
    const u = new URL(url);
    if (u.protocol !== "https:" && u.protocol !== "http:") {
      throw new Error(`a node's service address is https://host:port, got ${url}`);
    }
    this.url = url;
    this.#origin = u.origin;
    this.#hostPort = u.host;
    this.#trust = trust;
    this.#pinKey = pinKey;
  }

  /** A new run of the node (its pod restarted): the next connection may present a new certificate. */
  setPinKey(pinKey: string | undefined): void {
    if (pinKey === this.#pinKey) return;
    this.#pinKey = pinKey;
    this.close();
  }

  /** A unary net.Orchestrator call. */
  async call<Req extends MessageName, Res extends MessageName>(
    method: OrchestratorMethod,
    request: { type: Req; value: MessageInput<Req> },
    response: Res,
    options: CallOptions = {},
  ): Promise<Messages[Res]> {
    const endpoint = methodPath(method);
    const fail = failure("POST", this.url, endpoint);
    const answer = await this.request(
      "POST",
      endpoint,
      { "content-type": GRPC_CONTENT_TYPE, te: "trailers" },
      frameMessage(encodeMessage(request.type, request.value)),
      options,
      true,
    );
    const grpc = answer as Response & { trailers: IncomingHttpHeaders };
    if (grpc.status !== 200) {
      throw fail(
        "http-status",
        `HTTP ${grpc.status} where gRPC answers 200 (is this the node's service port?)`,
        {
          status: grpc.status,
        },
      );
    }
    const statusText = grpc.trailers["grpc-status"] ?? grpc.headers["grpc-status"];
    const code = Number(statusText ?? Number.NaN);
    if (!Number.isInteger(code))
      throw fail("grpc-status", "the answer has no grpc-status: not a gRPC server");
    if (code !== GrpcStatus.OK) {
      const message = decodeGrpcMessage(
        (grpc.trailers["grpc-message"] ?? grpc.headers["grpc-message"]) as string | undefined,
      );
      throw fail("grpc-status", `gRPC ${grpcStatusName(code)}${message ? `: ${message}` : ""}`, {
        grpcCode: code,
      });
    }
    try {
      return decodeMessage(response, unframeMessage(grpc.body));
    } catch (err) {
      throw fail("bad-protobuf", `not a net.${response}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** A request on the same connection; answers any status (the caller judges it). */
  request(
    method: string,
    path: string,
    headers: Record<string, string | number>,
    body: Buffer | undefined,
    options: CallOptions = {},
    withTrailers = false,
  ): Promise<Response & { trailers: IncomingHttpHeaders }> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const fail = failure(method, this.url, path.split("?")[0] ?? path);
    return new Promise((resolve, reject) => {
      let session: ClientHttp2Session;
      try {
        session = this.#connect();
      } catch (err) {
        reject(err);
        return;
      }
      const stream = session.request({
        [constants.HTTP2_HEADER_METHOD]: method,
        [constants.HTTP2_HEADER_PATH]: path,
        ...headers,
      });
      let settled = false;
      const done = (err: Error | undefined, value?: Response & { trailers: IncomingHttpHeaders }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        if (err) {
          stream.close(constants.NGHTTP2_CANCEL);
          reject(err);
        } else resolve(value!);
      };
      const timer = setTimeout(
        () => done(fail("timeout", `no complete answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onAbort = () => done(fail("aborted", "the read was cancelled"));
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener("abort", onAbort, { once: true });
      let responseHeaders: IncomingHttpHeaders = {};
      let trailers: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      stream.on("response", (h) => {
        responseHeaders = h;
      });
      stream.on("trailers", (t) => {
        trailers = t;
      });
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () =>
        done(undefined, {
          status: Number(responseHeaders[constants.HTTP2_HEADER_STATUS] ?? 0),
          headers: responseHeaders,
          body: Buffer.concat(chunks),
          trailers: withTrailers ? trailers : {},
        }),
      );
      stream.on("error", (err) => done(this.#transportError(fail, err)));
      stream.end(body);
    });
  }

  close(): void {
    this.#session?.close();
    this.#session = undefined;
  }

  #connect(): ClientHttp2Session {
    if (this.#session && !this.#session.closed && !this.#session.destroyed) return this.#session;
    this.#refused = undefined;
    const session = connect(this.#origin, {
      rejectUnauthorized: false,
      // Loopback addresses carry no name to send; a hostname is sent as SNI like any client.
      ...(/^[\d.]+$|^\[/.test(new URL(this.#origin).hostname) ? { servername: "" } : {}),
    });
    session.on("error", () => {
      // Reported to the streams that were open (their own error event); the session is dropped.
      if (this.#session === session) this.#session = undefined;
    });
    session.on("close", () => {
      if (this.#session === session) this.#session = undefined;
    });
    session.on("goaway", () => {
      if (this.#session === session) this.#session = undefined;
    });
    if (this.#trust !== "any" && this.#origin.startsWith("https:")) {
      const pins = this.#trust;
      session.socket.once("secureConnect", () => {
        const cert = (session.socket as TLSSocket).getPeerCertificate();
        const why = pins.check(this.#hostPort, cert.fingerprint256 ?? "", this.#pinKey);
        if (why) {
          this.#refused = why;
          session.destroy(new Error(why));
        }
      });
    }
    // A kept connection must not hold the process open.
    session.unref();
    this.#session = session;
    return session;
  }

  #transportError(fail: ReturnType<typeof failure>, err: Error & { code?: string }): NodeEndpointError {
    if (this.#refused) return fail("tls-certificate", this.#refused);
    const cause = (err as { cause?: { code?: string } }).cause;
    const code = err.code === "ERR_HTTP2_STREAM_CANCEL" && cause?.code ? cause.code : err.code;
    if (code === "ECONNREFUSED") {
      return fail(
        "connection-refused",
        "connection refused: nothing listens there (is the node up, and bound to that address?)",
        { cause: err },
      );
    }
    if (
      code === "ERR_SSL_WRONG_VERSION_NUMBER" ||
      /wrong version number|packet length too long/i.test(err.message)
    ) {
      return fail(
        "unreachable",
        "the port does not speak TLS (a node's service port does unless -httpAddr says http://)",
        { cause: err },
      );
    }
    return fail(
      "unreachable",
      code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message,
      {
        cause: err,
      },
    );
  }
}

function failure(method: string, baseUrl: string, endpoint: string) {
  return (
    reason: EndpointFailure,
    detail: string,
    extra: { status?: number; cause?: unknown; grpcCode?: number } = {},
  ) =>
    new NodeEndpointError({
      method,
      baseUrl,
      endpoint,
      reason,
      detail,
      ...(extra.status !== undefined ? { status: extra.status } : {}),
      ...(extra.grpcCode !== undefined ? { grpcCode: extra.grpcCode } : {}),
      cause: extra.cause,
    });
}
