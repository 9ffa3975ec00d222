// gRPC over HTTP/2 on a unix socket with node:http2, for the two call shapes the device-plugin
// API has: unary and server streaming. The wire protocol is small (a POST per call, each
// message framed as 1 flag byte + 4-byte length, the status in trailers), and doing it here
// keeps the project free of @grpc/grpc-js's protobufjs dependency and its install script.
import http2 from "node:http2";
import net from "node:net";

export const GRPC_OK = 0;
export const GRPC_CANCELLED = 1;
export const GRPC_UNKNOWN = 2;
export const GRPC_INVALID_ARGUMENT = 3;
export const GRPC_UNIMPLEMENTED = 12;
export const GRPC_UNAVAILABLE = 14;

export class GrpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = "GrpcError";
    this.code = code;
  }
}

/** One length-prefixed message (uncompressed). */
export function frame(message: Uint8Array): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

/** Splits a byte stream into messages as the bytes arrive. */
export class FrameReader {
  #buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    const out: Buffer[] = [];
    while (this.#buf.length >= 5) {
      if (this.#buf[0] !== 0)
        throw new GrpcError(GRPC_UNIMPLEMENTED, "compressed messages are not supported");
      const len = this.#buf.readUInt32BE(1);
      if (this.#buf.length < 5 + len) break;
      out.push(this.#buf.subarray(5, 5 + len));
      this.#buf = this.#buf.subarray(5 + len);
    }
    return out;
  }

  get pending(): number {
    return this.#buf.length;
  }
}

export type Handler =
  | { kind: "unary"; handle(request: Buffer): Promise<Buffer> | Buffer }
  | {
      kind: "stream";
      /** Sends messages with `send` until done; `signal` aborts when the client goes away. */
      handle(request: Buffer, send: (message: Buffer) => void, signal: AbortSignal): Promise<void>;
    };

export interface GrpcServer {
  socketPath: string;
  close(): Promise<void>;
}

function grpcHeaders(): http2.OutgoingHttpHeaders {
  return { ":status": 200, "content-type": "application/grpc" };
}

/** Serves `handlers` (keyed by `/package.Service/Method`) on a unix socket. */
export function serveGrpc(socketPath: string, handlers: Record<string, Handler>): Promise<GrpcServer> {
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
    s.on("error", () => undefined);
  });
  server.on("stream", (stream, headers) => {
    stream.on("error", () => undefined);
    const handler = handlers[String(headers[":path"])];
    if (!handler) {
      stream.respond(
        {
          ...grpcHeaders(),
          "grpc-status": GRPC_UNIMPLEMENTED,
          "grpc-message": `unknown method ${headers[":path"]}`,
        },
        { endStream: true },
      );
      return;
    }
    const reader = new FrameReader();
    const messages: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => {
      try {
        messages.push(...reader.push(chunk));
      } catch {
        stream.close(http2.constants.NGHTTP2_PROTOCOL_ERROR);
      }
    });
    stream.on("end", () => void respond(stream, handler, messages));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve({
        socketPath,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sessions) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

async function respond(stream: http2.ServerHttp2Stream, handler: Handler, messages: Buffer[]): Promise<void> {
  if (stream.destroyed) return;
  let status = GRPC_OK;
  let message = "";
  stream.respond(grpcHeaders(), { waitForTrailers: true });
  stream.on("wantTrailers", () => {
    stream.sendTrailers({ "grpc-status": status, "grpc-message": encodeURIComponent(message) });
  });
  const aborted = new AbortController();
  stream.on("close", () => aborted.abort());
  try {
    if (messages.length !== 1) {
      throw new GrpcError(GRPC_INVALID_ARGUMENT, `expected one request message, got ${messages.length}`);
    }
    if (handler.kind === "unary") {
      stream.write(frame(await handler.handle(messages[0]!)));
    } else {
      await handler.handle(
        messages[0]!,
        (m) => {
          if (!stream.destroyed) stream.write(frame(m));
        },
        aborted.signal,
      );
    }
  } catch (err) {
    status = err instanceof GrpcError ? err.code : GRPC_UNKNOWN;
    message = (err as Error).message;
  }
  if (!stream.destroyed) stream.end();
}

export interface GrpcCall {
  /** Resolves with the status once the call is over (rejects with a GrpcError when it failed). */
  done: Promise<void>;
  cancel(): void;
}

/**
 * Calls `path` on the server at `socketPath`, handing each response message to `onMessage`.
 * One connection per call: the device-plugin API makes a handful of calls.
 */
export function grpcCall(
  socketPath: string,
  path: string,
  request: Uint8Array,
  onMessage: (message: Buffer) => void,
  timeoutMs?: number,
): GrpcCall {
  const session = http2.connect("http://localhost", { createConnection: () => net.connect(socketPath) });
  let timer: NodeJS.Timeout | undefined;
  const req = session.request({
    ":method": "POST",
    ":path": path,
    "content-type": "application/grpc",
    te: "trailers",
    ...(timeoutMs ? { "grpc-timeout": `${timeoutMs}m` } : {}),
  });
  const done = new Promise<void>((resolve, reject) => {
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      session.close();
      if (err) reject(err);
      else resolve();
    };
    session.on("error", (err) => finish(new GrpcError(GRPC_UNAVAILABLE, `${socketPath}: ${err.message}`)));
    req.on("error", (err) => finish(new GrpcError(GRPC_UNAVAILABLE, `${path}: ${err.message}`)));
    let status: number | undefined;
    let statusMessage = "";
    const takeStatus = (h: http2.IncomingHttpHeaders) => {
      if (h["grpc-status"] !== undefined) {
        status = Number(h["grpc-status"]);
        statusMessage = decodeURIComponent(String(h["grpc-message"] ?? ""));
      }
    };
    req.on("response", (h) => {
      if (h[":status"] !== 200) finish(new GrpcError(GRPC_UNKNOWN, `${path}: HTTP status ${h[":status"]}`));
      takeStatus(h);
    });
    req.on("trailers", takeStatus);
    const reader = new FrameReader();
    req.on("data", (chunk: Buffer) => {
      for (const m of reader.push(chunk)) onMessage(m);
    });
    req.on("end", () => {
      if (status === GRPC_OK) finish();
      else
        finish(
          new GrpcError(
            status ?? GRPC_UNKNOWN,
            `${path}: ${statusMessage || "no grpc-status in the response"}`,
          ),
        );
    });
    req.on("close", () => {
      if (status === undefined) finish(new GrpcError(GRPC_CANCELLED, `${path}: the call was closed`));
    });
    if (timeoutMs) {
      timer = setTimeout(() => {
        req.close(http2.constants.NGHTTP2_CANCEL);
        finish(new GrpcError(4, `${path}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
    }
  });
  done.catch(() => undefined);
  req.end(frame(request));
  return {
    done,
    cancel: () => req.close(http2.constants.NGHTTP2_CANCEL),
  };
}

/** A unary call: the one response message. */
export async function grpcUnary(
  socketPath: string,
  path: string,
  request: Uint8Array,
  timeoutMs = 10_000,
): Promise<Buffer> {
  let response: Buffer | undefined;
  await grpcCall(
    socketPath,
    path,
    request,
    (m) => {
      response = m;
    },
    timeoutMs,
  ).done;
  if (!response) throw new GrpcError(GRPC_UNKNOWN, `${path}: no response message`);
  return response;
}
