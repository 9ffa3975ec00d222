// Cluster DNS and Service routing for the local simulators: the node's aiModels.json names each
// runner by its Service (`http://<svc>.<ns>.svc.cluster.local:8000`, what a real cluster
// resolves), but local pods have loopback pod IPs and no cluster DNS. The simulator fleet rewrites
// its local copy of the file to a pod IP behind each Service, as kube-proxy would route it; the
// controller and the Secret keep the Service URLs, so the rendered config is the same everywhere.
import type { CoreV1Api, V1Pod } from "@kubernetes/client-node";

export interface ServiceRef {
  name: string;
  namespace: string;
  port: number;
}

const SERVICE_HOST =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.svc(\.cluster\.local)?$/;

/** The Service a URL names by its cluster DNS name, or undefined for any other URL. */
export function serviceOfUrl(url: string): ServiceRef | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const m = SERVICE_HOST.exec(u.hostname);
  if (!m) return undefined;
  const port = u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
  return { name: m[1]!, namespace: m[3]!, port };
}

export const serviceKey = (s: ServiceRef) => `${s.namespace}/${s.name}:${s.port}`;

function modelEntries(text: string): unknown[] | undefined {
  try {
    const models: unknown = JSON.parse(text);
    return Array.isArray(models) ? models : undefined;
  } catch {
    return undefined;
  }
}

const urlOf = (entry: unknown) =>
  entry && typeof entry === "object" && typeof (entry as { url?: unknown }).url === "string"
    ? (entry as { url: string }).url
    : undefined;

/** The Services an aiModels.json's entries name by cluster DNS (each once). */
export function servicesInModelsFile(text: string): ServiceRef[] {
  const found = new Map<string, ServiceRef>();
  for (const entry of modelEntries(text) ?? []) {
    const url = urlOf(entry);
    const service = url ? serviceOfUrl(url) : undefined;
    if (service) found.set(serviceKey(service), service);
  }
  return [...found.values()];
}

/**
 * aiModels.json with each Service URL replaced by `endpoint(service)` (host:port), when it has
 * one; other entries, and text that is not a JSON list, are returned as they are.
 */
export function routeModelsFile(text: string, endpoint: (s: ServiceRef) => string | undefined): string {
  const models = modelEntries(text);
  if (!models) return text;
  const routed = models.map((entry) => {
    const url = urlOf(entry);
    const service = url ? serviceOfUrl(url) : undefined;
    const target = service && endpoint(service);
    if (!url || !target) return entry;
    const u = new URL(url);
    return { ...(entry as object), url: `${u.protocol}//${target}${u.pathname === "/" ? "" : u.pathname}` };
  });
  return `${JSON.stringify(routed, null, 2)}\n`;
}

/**
 * A running pod behind the Service, as host:targetPort (the first by name: one runner takes the
 * Service's traffic). Waits up to `timeoutMs` for one: runner pods start beside the node's pod.
 */
export async function serviceEndpoint(
  core: CoreV1Api,
  ref: ServiceRef,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await core
      .readNamespacedService({ name: ref.name, namespace: ref.namespace })
      .then(async (svc) => {
        const selector = svc.spec?.selector;
        if (!selector || Object.keys(selector).length === 0) return undefined;
        const port = svc.spec?.ports?.find((p) => p.port === ref.port);
        const target = typeof port?.targetPort === "number" ? port.targetPort : ref.port;
        const pods = await core.listNamespacedPod({
          namespace: ref.namespace,
          labelSelector: Object.entries(selector)
            .map(([k, v]) => `${k}=${v}`)
            .join(","),
        });
        const pod = pods.items.filter(serving).sort(byName)[0];
        return pod ? `${pod.status!.podIP}:${target}` : undefined;
      })
      .catch(() => undefined);
    if (found || Date.now() > deadline || signal?.aborted) return found;
    await new Promise((r) => setTimeout(r, 500));
  }
}

const serving = (pod: V1Pod) =>
  !pod.metadata?.deletionTimestamp && pod.status?.phase === "Running" && !!pod.status.podIP;
const byName = (a: V1Pod, b: V1Pod) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? "");
