// An orchestrator's service port (-httpAddr) as the node serves it (server/rpc.go
// StartTranscodeServer): TLS with a certificate made at start, HTTP/2 (and HTTP/1.1 for plain
// clients), requests with content-type application/grpc over HTTP/2 to the gRPC services, every
// other request to the HTTP routes (/segment, /stream/, AI jobs, /status ...).
import type { IncomingMessage, ServerResponse } from "node:http";
import { createSecureServer, type Http2SecureServer, type Http2Session } from "node:http2";
import type { Socket } from "node:net";
import type { TlsCredentials } from "../node/wire/self-signed-certificate.ts";
import { grpcDispatcher, isGrpcRequest, type UnaryMethod } from "./grpc-server.ts";
import { type Handler, routeRequest } from "./http-server.ts";
import type { SimulatorState } from "./state.ts";

export interface ServiceServer {
  server: Http2SecureServer;
  /** Stops listening and drops every connection (HTTP/2 servers have no closeAllConnections). */
  close(): Promise<void>;
}

export function serviceServer(
  routes: Record<string, Handler>,
  services: Record<string, Record<string, UnaryMethod>>,
  tls: TlsCredentials,
  state: SimulatorState,
  onError: (err: unknown) => void,
): ServiceServer {
  const http = routeRequest(routes, state, onError);
  const grpc = grpcDispatcher(services, onError);
  const server = createSecureServer({ ...tls, allowHTTP1: true }, (req, res) => {
    const path = req.url.split("?")[0] ?? "";
    // An injected fault applies to a gRPC method's path too (routeRequest answers it).
    if (isGrpcRequest(req) && !state.faults.has(path)) return grpc(req, res);
    // The compatibility API is node:http's as far as the routes use it.
    http(req as unknown as IncomingMessage, res as unknown as ServerResponse);
  });
  const sockets = new Set<Socket>();
  const sessions = new Set<Http2Session>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  // A client that drops the TLS handshake is its own business, not the node's.
  server.on("tlsClientError", () => {});
  return {
    server,
    close: async () => {
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.destroy();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
