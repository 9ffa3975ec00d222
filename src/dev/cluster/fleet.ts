// Puts fake nodes into the cluster and waits until the scheduler may use them; node pools fence
// a test's nodes off so parallel tests never fight over GPUs.
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Toleration } from "@kubernetes/client-node";
import { type FakeNodeSpec, nodeObject, POOL_LABEL } from "./nodes.ts";
import { waitFor } from "./process.ts";

function isConflict(err: unknown): boolean {
  return (err as { code?: number }).code === 409;
}

/** Creates the nodes (existing ones are kept) and waits until each is Ready and untainted by the node lifecycle. */
export async function applyFleet(kc: KubeConfig, specs: FakeNodeSpec[], timeoutMs = 60_000): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  await Promise.all(
    specs.map(async (spec) => {
      try {
        await core.createNode({ body: nodeObject(spec) });
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
    }),
  );
  const names = new Set(specs.map((s) => s.name));
  await waitFor(
    `nodes ${[...names].join(", ")} to become Ready`,
    async () => {
      const list = await core.listNode();
      const ready = list.items.filter(
        (n) =>
          names.has(n.metadata?.name ?? "") &&
          n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") &&
          !n.spec?.taints?.some((t) => t.key.startsWith("node.kubernetes.io/")),
      );
      return ready.length === names.size;
    },
    timeoutMs,
  );
}

export interface NodePool {
  name: string;
  nodes: string[];
  /** Add to a pod (or an Orchestrator's podTemplate) to land on this pool only. */
  nodeSelector: Record<string, string>;
  tolerations: V1Toleration[];
  delete(): Promise<void>;
}

/**
 * A private set of fake nodes for one test: labelled and tainted with the pool name so no other
 * test's pods land there, and only pods that select the pool (and tolerate it) do.
 */
export async function createNodePool(kc: KubeConfig, pool: string, specs: FakeNodeSpec[]): Promise<NodePool> {
  const fenced = specs.map((s) => ({
    ...s,
    name: `${pool}-${s.name}`,
    labels: { ...s.labels, [POOL_LABEL]: pool },
    taints: [...(s.taints ?? []), { key: POOL_LABEL, value: pool, effect: "NoSchedule" as const }],
  }));
  await applyFleet(kc, fenced);
  const core = kc.makeApiClient(CoreV1Api);
  return {
    name: pool,
    nodes: fenced.map((s) => s.name),
    nodeSelector: { [POOL_LABEL]: pool },
    tolerations: [{ key: POOL_LABEL, operator: "Equal", value: pool, effect: "NoSchedule" }],
    async delete() {
      await Promise.all(fenced.map((s) => core.deleteNode({ name: s.name }).catch(() => undefined)));
    },
  };
}

/**
 * Makes `kubectl logs` of a fake pod read `file` (CRI log format, see criLogLine): what a node
 * simulator writes there is what the controller and users see as the pod's log.
 */
export async function attachPodLogs(
  kc: KubeConfig,
  target: { namespace: string; pod: string; containers?: string[]; file: string },
): Promise<void> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const body = {
    apiVersion: "kwok.x-k8s.io/v1alpha1",
    kind: "Logs",
    metadata: { name: target.pod, namespace: target.namespace },
    spec: { logs: [{ containers: target.containers ?? [], logsFile: target.file, follow: true }] },
  };
  try {
    await custom.createNamespacedCustomObject({
      group: "kwok.x-k8s.io",
      version: "v1alpha1",
      namespace: target.namespace,
      plural: "logs",
      body,
    });
  } catch (err) {
    if (!isConflict(err)) throw err;
  }
}
