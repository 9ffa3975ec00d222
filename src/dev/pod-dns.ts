// Cluster DNS for a StatefulSet's pods, for the local simulators: live runners are named by their
// pod's DNS name under a headless Service (`<pod>.<svc>.<ns>.svc.cluster.local`: each runner's
// runner_url in -liveRunnerConfig, the node's -liveRunnerAddr the runners heartbeat to), but local
// pods have loopback IPs and no cluster DNS. The fleet rewrites its local copy of a file or a
// variable to the pod's IP, as the cluster's DNS would resolve it; the controller, the Secret and
// the ConfigMap keep the DNS names, so the rendered config is the same everywhere.
import type { CoreV1Api } from "@kubernetes/client-node";

const POD_HOST =
  /\b([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.svc\.cluster\.local\b/g;

export interface PodHost {
  host: string;
  pod: string;
  namespace: string;
}

/** The pod DNS names a text holds (each once). */
export function podHostsIn(text: string): PodHost[] {
  const found = new Map<string, PodHost>();
  for (const m of text.matchAll(POD_HOST)) found.set(m[0], { host: m[0], pod: m[1]!, namespace: m[5]! });
  return [...found.values()];
}

/** `text` with each pod DNS name `ipOf` knows replaced by the IP. */
export function routePodHosts(text: string, ipOf: (h: PodHost) => string | undefined): string {
  let out = text;
  for (const h of podHostsIn(text)) {
    const ip = ipOf(h);
    if (ip) out = out.split(h.host).join(ip);
  }
  return out;
}

/** The pods' IPs, each waited for up to `timeoutMs` (a pod starting beside the one that names it). */
export async function podIps(
  core: CoreV1Api,
  hosts: readonly PodHost[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Map<string, string>> {
  const ips = new Map<string, string>();
  const deadline = Date.now() + timeoutMs;
  for (const h of hosts) {
    for (;;) {
      const ip = await core
        .readNamespacedPod({ name: h.pod, namespace: h.namespace })
        .then((p) =>
          p.status?.phase === "Running" && !p.metadata?.deletionTimestamp ? p.status.podIP : undefined,
        )
        .catch(() => undefined);
      if (ip) ips.set(h.host, ip);
      if (ip || Date.now() > deadline || signal?.aborted) break;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return ips;
}

/** `text` routed to the pods' IPs (waiting for each up to `timeoutMs`). */
export async function resolvePodHosts(
  core: CoreV1Api,
  text: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<string> {
  const hosts = podHostsIn(text);
  if (hosts.length === 0) return text;
  const ips = await podIps(core, hosts, timeoutMs, signal);
  return routePodHosts(text, (h) => ips.get(h.host));
}

/** What a pod needs for a cluster DNS name (a StatefulSet's pod under its headless Service). */
export interface NamedPod {
  metadata?: { name?: string; namespace?: string; deletionTimestamp?: unknown };
  spec?: { hostname?: string; subdomain?: string };
  status?: { phase?: string; podIP?: string };
}

/**
 * `HOST:IP` pairs (as curl's --resolve) for every running pod with a cluster DNS name
 * (`<hostname>.<subdomain>.<namespace>.svc.cluster.local`) and a loopback IP: what the cluster's
 * DNS would answer, for a client on this machine (the local pods' IPs are loopback; any other
 * address is left out, never dialled).
 */
export function clusterDnsPairs(pods: readonly NamedPod[]): string[] {
  return pods
    .filter(
      (p) =>
        p.spec?.hostname &&
        p.spec.subdomain &&
        p.status?.phase === "Running" &&
        !p.metadata?.deletionTimestamp &&
        p.status.podIP?.startsWith("127."),
    )
    .map(
      (p) =>
        `${p.spec!.hostname}.${p.spec!.subdomain}.${p.metadata?.namespace ?? "default"}.svc.cluster.local:${p.status!.podIP}`,
    )
    .sort();
}
