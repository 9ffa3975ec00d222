// Kubernetes client configuration: client-node's KubeConfig (kubeconfig files, in-cluster service
// accounts, exec plugins and token files) with the operator's pooled keep-alive connections
// (kube-connections.ts) shared by every KubeClient built on it.
import { existsSync } from "node:fs";
// Deep import: the package index loads every generated API class (see slim-client-node.ts).
import { KubeConfig } from "@kubernetes/client-node/dist/config.js";
import { KubeConnections } from "./kube-connections.ts";

export class PooledKubeConfig extends KubeConfig {
  readonly connections = new KubeConnections(this);

  /** Closes the pooled connections; requests in flight finish first. */
  async close(): Promise<void> {
    this.connections.close();
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
