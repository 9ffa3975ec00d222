// The operator's HTTP endpoints for Prometheus and the kubelet:
//   /metrics  Prometheus text format
//   /healthz  liveness: the process answers and no informer is dead (a failing probe restarts the pod)
//   /readyz   readiness: every cache has synced; a replica that is not the leader is ready too
// Each probe lists its checks with `?verbose`, like the API server's.
import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import { http } from "../../process/builtin-http.ts";
import type { Logger } from "../../process/log.ts";
import { ObjectGaugeRegistry } from "./object-gauge.ts";

export interface Check {
  name: string;
  ok: boolean;
  detail?: string;
}

export interface Probes {
  healthz(): Check[];
  readyz(): Check[];
}

export interface HealthServer {
  /** host:port actually bound (port 0 picks a free one). */
  address: string;
  close(): Promise<void>;
}

/** "127.0.0.1:8080", "0.0.0.0:8080", ":8080" (all interfaces), "[::1]:8080". */
export function parseAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(address.trim());
  if (!m)
    throw new Error(
      `bad address ${JSON.stringify(address)}: use host:port, e.g. 127.0.0.1:8080 or 0.0.0.0:8080`,
    );
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`bad port in ${address}`);
  return { host: m[1] ?? (m[2] || "0.0.0.0"), port };
}

function probeResponse(res: ServerResponse, checks: Check[], verbose: boolean): void {
  const ok = checks.every((c) => c.ok);
  const lines = checks.map(
    (c) => `[${c.ok ? "+" : "-"}]${c.name} ${c.ok ? "ok" : `failed: ${c.detail ?? ""}`}`,
  );
  res.writeHead(ok ? 200 : 500, { "content-type": "text/plain; charset=utf-8" });
  // Failures are always spelled out: a probe log that says only "500" helps nobody at 3 am.
  res.end(verbose || !ok ? `${lines.join("\n")}\n${ok ? "ok" : "failed"}\n` : "ok\n");
}

/**
 * Answers a scrape. An ObjectGaugeRegistry's text is written as it is rendered, so a scrape of
 * thousands of objects is never held whole; a failure before the first piece is a 500, after it
 * the response is cut off (Prometheus then records the scrape as failed).
 */
async function scrape(registry: Registry, res: ServerResponse): Promise<void> {
  const pieces =
    registry instanceof ObjectGaugeRegistry
      ? registry.chunks()
      : (async function* () {
          yield await registry.metrics();
        })();
  let started = false;
  try {
    for await (const piece of pieces) {
      if (res.destroyed) return;
      if (!started) {
        res.writeHead(200, { "content-type": registry.contentType });
        started = true;
      }
      if (!res.write(piece)) await drainedOrClosed(res);
    }
    res.end();
  } catch (err) {
    if (started) res.destroy();
    else res.writeHead(500).end(String(err));
  }
}

/** Until the response can take more, or its connection is gone (then no drain ever comes). */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

export async function startHealthServer(
  address: string,
  registry: Registry,
  probes: Probes,
  log: Logger,
): Promise<HealthServer> {
  const { host, port } = parseAddress(address);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const verbose = url.searchParams.has("verbose");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405).end();
      return;
    }
    switch (url.pathname) {
      case "/metrics":
        void scrape(registry, res);
        return;
      case "/healthz":
      case "/livez":
        probeResponse(res, probes.healthz(), verbose);
        return;
      case "/readyz":
        probeResponse(res, probes.readyz(), verbose);
        return;
      default:
        res
          .writeHead(404, { "content-type": "text/plain" })
          .end("not found: try /metrics, /healthz or /readyz\n");
    }
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        err.code === "EADDRINUSE"
          ? new Error(
              `${host}:${port} is already in use: pick another --metrics-addr (port 0 = any free port)`,
            )
          : err,
      ),
    );
    server.listen(port, host, resolve);
  });
  const bound = server.address() as AddressInfo;
  const shown =
    bound.family === "IPv6" ? `[${bound.address}]:${bound.port}` : `${bound.address}:${bound.port}`;
  log.info(`serving /metrics, /healthz and /readyz on http://${shown}`);
  return {
    address: shown,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
