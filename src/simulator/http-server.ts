// The simulator's HTTP plumbing: routing by path (subtrees as Go's ServeMux), injected faults
// (status, body or a hang), Go's plain-text 404, and listening with the node's errors. (Answers say
// they are simulated in their bodies - "Simulated": true - not in a header nobody reads.)
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Server as NetServer } from "node:net";
import type { SimulatorState } from "./state.ts";

/**
 * A route. On an orchestrator's service port (HTTP/2 over TLS, service-server.ts) the request and
 * response are node:http2's compatibility objects, which offer the same API the routes use.
 */
export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

export function sendJson(res: ServerResponse, body: Record<string, unknown>, status = 200): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ ...body, Simulated: true }));
}

/** Go's http.Error: plain text with a newline. */
export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" });
  res.end(`${text}\n`);
}

/** Form values from the query string and a url-encoded body, as Go's r.FormValue reads them. */
export async function formOf(req: IncomingMessage, url: URL): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
  for (const [k, v] of url.searchParams) if (!form.has(k)) form.set(k, v);
  return form;
}

export function nodeServer(
  routes: Record<string, Handler>,
  state: SimulatorState,
  onError: (err: unknown) => void,
): Server {
  return createServer(routeRequest(routes, state, onError));
}

/** Faults first, then the route for the path (404 when none). */
export function routeRequest(
  routes: Record<string, Handler>,
  state: SimulatorState,
  onError: (err: unknown) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = new URL(req.url ?? "/", "http://simulator");
    const fault = url.pathname.startsWith("/__sim/") ? undefined : state.faults.get(url.pathname);
    if (fault?.hang) {
      // Held open, unanswered, until its client or the server goes (clearing the fault serves only
      // later requests); counted, so that steering can tell a request is being held.
      state.heldRequests++;
      res.once("close", () => {
        state.heldRequests--;
      });
      return;
    }
    if (fault) {
      const status = fault.status ?? (fault.body === undefined ? 500 : 200);
      res.writeHead(status, {
        "Content-Type":
          fault.contentType ?? (fault.body === undefined ? "text/plain; charset=utf-8" : "application/json"),
      });
      res.end(fault.body ?? `simulated failure of ${url.pathname}\n`);
      return;
    }
    const route = routes[url.pathname] ?? subtreeRoute(routes, url.pathname);
    if (!route) return sendText(res, 404, "404 page not found");
    Promise.resolve(route(req, res, url)).catch((err: unknown) => {
      onError(err);
      if (!res.headersSent) sendText(res, 500, "internal simulator error");
      else res.end();
    });
  };
}

/** As Go's ServeMux: a pattern ending in "/" serves its whole subtree (the longest one wins). */
function subtreeRoute(routes: Record<string, Handler>, pathname: string): Handler | undefined {
  let best: string | undefined;
  for (const pattern of Object.keys(routes)) {
    if (pattern.endsWith("/") && pathname.startsWith(pattern) && (!best || pattern.length > best.length))
      best = pattern;
  }
  return best === undefined ? undefined : routes[best];
}

/** Listens like the node: a busy port fails with Go's wording ("listen tcp ...: bind: address already in use"). */
export function listen(server: NetServer, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      const addr = `${host || "0.0.0.0"}:${port}`;
      const why =
        err.code === "EADDRINUSE"
          ? "bind: address already in use"
          : err.code === "EADDRNOTAVAIL"
            ? "bind: cannot assign requested address"
            : err.code === "EACCES"
              ? "bind: permission denied"
              : err.message;
      reject(new Error(`listen tcp ${addr}: ${why}`));
    };
    server.once("error", onError);
    server.listen(port, host || "127.0.0.1", () => {
      server.off("error", onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

export async function closeServer(server: Server): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}
