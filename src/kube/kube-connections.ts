// Connections to the API server, with client-node's KubeConfig supplying only the TLS material and
// the credentials (bearer tokens, exec plugins, token files, basic auth, impersonation), asked for
// on every request so refreshed tokens apply at once: one HTTP/2 connection (h2-session.ts) per
// (cluster, user, TLS material) for an https server; HTTP/1.1 keep-alive agents for a plain http
// server and behind a kubeconfig proxy-url (client-node's SOCKS or CONNECT agent).
//
// Why not client-node's own transport: it fetches through the npm undici (30 MB of RSS just
// loaded, and a second copy beside Node's built-in one) and builds a new dispatcher, so a new TLS
// handshake, per request. Rotated certificates or CA files change the material and yield a new
// connection; the old one is retired gracefully: requests in flight finish, then it closes.
import { createHash } from "node:crypto";
import type { Agent } from "node:http";
import type { RequestOptions } from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import { http } from "../process/builtin-http.ts";
import { H2Session, type TlsOptions } from "./h2-session.ts";

export type KubeConnection = (
  | { protocol: "http/2"; session: H2Session }
  | { protocol: "http/1.1"; agent: Agent }
) & {
  /** Credentials and impersonation, to send with the request. */
  headers: Record<string, string>;
};

/** HTTP/1.1: client-node matches TCP keep-alive to client-go's 30 s (cloud load balancers drop idle flows at 60 s). */
const KEEP_ALIVE_MS = 30_000;

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
  readonly #sessions = new Map<string, H2Session>();

  constructor(kc: KubeConfig) {
    this.#kc = kc;
  }

  /** The connection and headers for the next request to the current cluster as the current user. */
  async connection(): Promise<KubeConnection> {
    const cluster = this.#kc.getCurrentCluster();
    if (!cluster) throw new Error("the kubeconfig has no current cluster: set current-context");
    const opts: RequestOptions = { headers: {} };
    // TLS material, auth headers (refreshing exec and file tokens), and client-node's agent,
    // which is only used behind a proxy (SOCKS or HTTP CONNECT agents, cached by client-node).
    await this.#kc.applyToHTTPSOptions(opts);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) if (v !== undefined) headers[k] = String(v);
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString("base64")}`;
    if (cluster.proxyUrl && opts.agent instanceof http.Agent) {
      return { protocol: "http/1.1", agent: opts.agent, headers };
    }

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
    // Same cluster and user with new TLS material (rotation): retire the old connections.
    for (const [k, old] of this.#agents) {
      if (k.startsWith(`${scope}\u0000`) && k !== key) {
        this.#agents.delete(k);
        retire(old);
      }
    }
    for (const [k, old] of this.#sessions) {
      if (k.startsWith(`${scope}\u0000`) && k !== key) {
        this.#sessions.delete(k);
        old.close();
      }
    }
    if (cluster.server.startsWith("https:")) {
      let session = this.#sessions.get(key);
      if (!session?.usable) {
        const fresh = new H2Session(cluster.server, definedOnly(tls), () => {
          if (this.#sessions.get(key) === fresh) this.#sessions.delete(key);
        });
        this.#sessions.set(key, fresh);
        session = fresh;
      }
      return { protocol: "http/2", session, headers };
    }
    let agent = this.#agents.get(key);
    if (!agent) {
      agent = new http.Agent({ keepAlive: true, keepAliveMsecs: KEEP_ALIVE_MS });
      this.#agents.set(key, agent);
    }
    return { protocol: "http/1.1", agent, headers };
  }

  /** How many connections (HTTP/2) and connection pools (HTTP/1.1) are open: 1 in normal operation. */
  get size(): number {
    return this.#agents.size + this.#sessions.size;
  }

  /** Closes the pooled connections; requests in flight finish first. */
  close(): void {
    for (const agent of this.#agents.values()) retire(agent);
    this.#agents.clear();
    for (const session of this.#sessions.values()) session.close();
    this.#sessions.clear();
  }
}

// rejectUnauthorized left unset means Node's default (NODE_TLS_REJECT_UNAUTHORIZED), as client-node.
function definedOnly(o: TlsOptions): TlsOptions {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as TlsOptions;
}
