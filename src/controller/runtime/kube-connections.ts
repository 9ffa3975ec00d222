// Keep-alive connections to the API server over node:http(s), with client-node's KubeConfig
// supplying only the TLS material and the credentials (bearer tokens, exec plugins, token files,
// basic auth, impersonation), asked for on every request so refreshed tokens apply at once.
//
// Why not client-node's own transport: it fetches through the npm undici (30 MB of RSS just
// loaded, and a second copy beside Node's built-in one) and builds a new dispatcher, so a new TLS
// handshake, per request. Here one agent per (cluster, user, TLS material) keeps connections
// open; rotated certificates or CA files change the material and yield a new agent, and the old
// one is retired gracefully: requests in flight finish, then its sockets close.
import { createHash } from "node:crypto";
import type { Agent } from "node:http";
import https from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import { http } from "../../process/builtin-http.ts";

export interface KubeConnection {
  agent: Agent;
  /** Credentials and impersonation, to send with the request. */
  headers: Record<string, string>;
}

/** client-node matches TCP keep-alive to client-go's 30 s (cloud load balancers drop idle flows at 60 s). */
const KEEP_ALIVE_MS = 30_000;

type TlsOptions = Pick<
  https.RequestOptions,
  "ca" | "cert" | "key" | "pfx" | "passphrase" | "rejectUnauthorized" | "servername"
>;

function tlsFingerprint(scope: string, o: TlsOptions): string {
  const h = createHash("sha256");
  h.update(JSON.stringify([scope, o.rejectUnauthorized, o.servername]));
  for (const part of [o.ca, o.cert, o.key, o.pfx, o.passphrase]) {
    h.update("|");
    if (part !== undefined) h.update(Array.isArray(part) ? part.map(String).join("\n") : String(part));
  }
  return h.digest("hex");
}

/** Stops an agent from keeping sockets: busy ones close when their request ends, idle ones now. */
function retire(agent: Agent): void {
  agent.keepSocketAlive = () => false;
  for (const sockets of Object.values(agent.freeSockets)) for (const s of sockets ?? []) s.destroy();
}

export class KubeConnections {
  readonly #kc: KubeConfig;
  readonly #agents = new Map<string, Agent>();

  constructor(kc: KubeConfig) {
    this.#kc = kc;
  }

  /** The agent and headers for the next request to the current cluster as the current user. */
  async connection(): Promise<KubeConnection> {
    const cluster = this.#kc.getCurrentCluster();
    if (!cluster) throw new Error("the kubeconfig has no current cluster: set current-context");
    const opts: https.RequestOptions = { headers: {} };
    // TLS material, auth headers (refreshing exec and file tokens), and client-node's agent,
    // which is only used behind a proxy (SOCKS or HTTP CONNECT agents, cached by client-node).
    await this.#kc.applyToHTTPSOptions(opts);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) if (v !== undefined) headers[k] = String(v);
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString("base64")}`;
    if (cluster.proxyUrl && opts.agent instanceof http.Agent) return { agent: opts.agent, headers };

    const scope = `${cluster.name}\u0000${this.#kc.getCurrentUser()?.name ?? ""}`;
    const tls: TlsOptions = {
      ca: opts.ca,
      cert: opts.cert,
      key: opts.key,
      pfx: opts.pfx,
      passphrase: opts.passphrase,
      rejectUnauthorized: opts.rejectUnauthorized,
      servername: opts.servername,
    };
    const key = `${scope}\u0000${tlsFingerprint(scope, tls)}`;
    const cached = this.#agents.get(key);
    if (cached) return { agent: cached, headers };
    const agent = cluster.server.startsWith("http:")
      ? new http.Agent({ keepAlive: true, keepAliveMsecs: KEEP_ALIVE_MS })
      : new https.Agent({ keepAlive: true, keepAliveMsecs: KEEP_ALIVE_MS, ...definedOnly(tls) });
    // Same cluster and user with new TLS material (rotation): retire the old pool.
    for (const [k, old] of this.#agents) {
      if (k.startsWith(`${scope}\u0000`)) {
        this.#agents.delete(k);
        retire(old);
      }
    }
    this.#agents.set(key, agent);
    return { agent, headers };
  }

  /** How many connection pools are open (1 in normal operation). */
  get size(): number {
    return this.#agents.size;
  }

  /** Closes the pooled connections; requests in flight finish first. */
  close(): void {
    for (const agent of this.#agents.values()) retire(agent);
    this.#agents.clear();
  }
}

// rejectUnauthorized left unset means Node's default (NODE_TLS_REJECT_UNAUTHORIZED), as client-node.
function definedOnly(o: TlsOptions): TlsOptions {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as TlsOptions;
}
