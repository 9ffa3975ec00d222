// A unary gRPC server on the node's HTTP/2 service port, as the node's grpc.Server behind
// lphttp.ServeHTTP (server/rpc.go: HTTP/2 with content-type application/grpc goes to gRPC, every
// other request to the HTTP mux). A request is one length-prefixed protobuf message; the answer is
// one message and the grpc-status trailer, or a trailers-only answer carrying the error status.
// Errors a handler throws without a code are grpc-go's for a plain Go error: UNKNOWN.
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import {
  encodeGrpcMessage,
  frameMessage,
  GRPC_CONTENT_TYPE,
  GrpcStatus,
  unframeMessage,
} from "../node/wire/grpc.ts";

export class GrpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** A method: the request message's bytes in, the answer's bytes out. */
export type UnaryMethod = (request: Buffer, req: Http2ServerRequest) => Promise<Buffer>;

export function isGrpcRequest(req: { httpVersionMajor: number; headers: Record<string, unknown> }): boolean {
  const type = req.headers["content-type"];
  return req.httpVersionMajor === 2 && typeof type === "string" && type.startsWith(GRPC_CONTENT_TYPE);
}

/** Serves `/<service>/<method>` for the services given; others answer UNIMPLEMENTED as grpc-go. */
export function grpcDispatcher(
  services: Record<string, Record<string, UnaryMethod>>,
  onError: (err: unknown) => void,
): (req: Http2ServerRequest, res: Http2ServerResponse) => void {
  return (req, res) => {
    const [, service = "", method = ""] = /^\/([^/]*)\/([^/]*)$/.exec(req.url) ?? [];
    const methods = services[service];
    const handler = methods?.[method];
    if (req.method !== "POST" || !handler) {
      // Drain what the client sent; the status says why.
      req.resume();
      const why = !methods ? `unknown service ${service}` : `unknown method ${method} for service ${service}`;
      return answerStatus(res, GrpcStatus.UNIMPLEMENTED, why);
    }
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      let request: Buffer;
      try {
        request = unframeMessage(Buffer.concat(chunks));
      } catch (err) {
        return answerStatus(res, GrpcStatus.INTERNAL, `grpc: ${(err as Error).message}`);
      }
      let answer: Buffer;
      try {
        answer = await handler(request, req);
      } catch (err) {
        if (err instanceof GrpcError) return answerStatus(res, err.code, err.message);
        return answerStatus(res, GrpcStatus.UNKNOWN, (err as Error).message);
      }
      res.writeHead(200, { "content-type": GRPC_CONTENT_TYPE });
      res.addTrailers({ "grpc-status": String(GrpcStatus.OK), "grpc-message": "" });
      res.end(frameMessage(answer));
    })().catch((err: unknown) => {
      onError(err);
      if (!res.headersSent) answerStatus(res, GrpcStatus.INTERNAL, "internal simulator error");
      else res.end();
    });
  };
}

/**
 * A trailers-only answer: one HEADERS frame carrying the status and ending the stream (clients
 * such as grpc-js read grpc-status from headers only when they end the stream).
 */
function answerStatus(res: Http2ServerResponse, code: number, message: string): void {
  if (res.stream.destroyed || res.headersSent) return void res.end();
  res.stream.respond(
    {
      ":status": 200,
      "content-type": GRPC_CONTENT_TYPE,
      "grpc-status": String(code),
      "grpc-message": encodeGrpcMessage(message),
    },
    { endStream: true },
  );
}
