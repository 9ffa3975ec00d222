// Kubernetes client configuration with connection reuse.
//
// client-node's KubeConfig.applySecurityAuthentication calls createDispatcher for every request,
// which builds a new undici Agent: every request then pays a TLS handshake and a new
// SecureContext (5-10x slower, see kubernetes.md). PooledKubeConfig memoizes the dispatcher per
// (cluster, user, TLS material), so requests share keep-alive connections. Rotated client
// certificates or CA files change the TLS material, which yields a new dispatcher; the old one
// is closed gracefully (requests in flight finish).
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import type https from "node:https";
import type { Cluster } from "@kubernetes/client-node";
// Deep import: the package index loads every generated API class (see slim-client-node.ts).
import { KubeConfig } from "@kubernetes/client-node/dist/config.js";

interface Dispatcher {
  close(): Promise<void>;
}
type CreateDispatcher = (cluster: Cluster | null, agentOptions: https.AgentOptions) => Dispatcher | undefined;

function tlsFingerprint(cluster: Cluster | null, user: string | undefined, o: https.AgentOptions): string {
  const h = createHash("sha256");
  h.update(JSON.stringify([cluster?.name, cluster?.server, user, o.rejectUnauthorized, o.servername]));
  for (const part of [o.ca, o.cert, o.key, o.pfx, o.passphrase]) {
    h.update("|");
    if (part !== undefined) h.update(Array.isArray(part) ? part.map(String).join("\n") : String(part));
  }
  return h.digest("hex");
}

export class PooledKubeConfig extends KubeConfig {
  readonly #dispatchers = new Map<string, Dispatcher>();

  constructor() {
    super();
    // createDispatcher is private in the typings, so it is wrapped on the instance.
    const self = this as unknown as { createDispatcher: CreateDispatcher };
    const build = self.createDispatcher.bind(this);
    self.createDispatcher = (cluster, agentOptions) => {
      const scope = `${cluster?.name ?? ""}\u0000${this.getCurrentUser()?.name ?? ""}`;
      const fingerprint = tlsFingerprint(cluster, this.getCurrentUser()?.name, agentOptions);
      const key = `${scope}\u0000${fingerprint}`;
      const cached = this.#dispatchers.get(key);
      if (cached) return cached;
      const fresh = build(cluster, agentOptions);
      if (!fresh) return undefined;
      // Same cluster and user with new TLS material (rotation): retire the old pool.
      for (const [k, d] of this.#dispatchers) {
        if (k.startsWith(`${scope}\u0000`)) {
          this.#dispatchers.delete(k);
          void d.close().catch(() => undefined);
        }
      }
      this.#dispatchers.set(key, fresh);
      return fresh;
    };
  }

  /** How many connection pools are open (1 in normal operation). */
  get dispatcherCount(): number {
    return this.#dispatchers.size;
  }

  /** Closes the pooled connections; in-flight requests finish first. */
  async close(): Promise<void> {
    const all = [...this.#dispatchers.values()];
    this.#dispatchers.clear();
    await Promise.all(all.map((d) => d.close().catch(() => undefined)));
  }
}

const IN_CLUSTER_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";

export interface KubeConfigSource {
  /** Explicit kubeconfig file (the --kubeconfig flag). */
  kubeconfig?: string | undefined;
}

/**
 * Loads, in order: the given file, $KUBECONFIG, the in-cluster service account (inside a pod),
 * ~/.kube/config. Returns where it came from for the startup log line.
 */
export function loadKubeConfig(source: KubeConfigSource = {}): { kc: PooledKubeConfig; from: string } {
  const kc = new PooledKubeConfig();
  if (source.kubeconfig) {
    if (!existsSync(source.kubeconfig)) {
      throw new Error(
        `kubeconfig ${source.kubeconfig} does not exist: pass an existing file to --kubeconfig`,
      );
    }
    kc.loadFromFile(source.kubeconfig);
    return { kc, from: source.kubeconfig };
  }
  if (process.env.KUBECONFIG) {
    kc.loadFromDefault();
    return { kc, from: `KUBECONFIG=${process.env.KUBECONFIG}` };
  }
  if (process.env.KUBERNETES_SERVICE_HOST && existsSync(IN_CLUSTER_TOKEN)) {
    kc.loadFromCluster();
    return { kc, from: "in-cluster service account" };
  }
  kc.loadFromDefault();
  if (!kc.getCurrentCluster()) {
    throw new Error(
      "no Kubernetes cluster configured: set KUBECONFIG, pass --kubeconfig, or run inside a pod with a service account",
    );
  }
  return { kc, from: "~/.kube/config" };
}
