// What the Orchestrator integration files share: apply one by server-side apply (fenced to a node
// pool when given one), read it, and wait until its status says something.
import type { NodePool } from "../../../src/dev/cluster/fleet.ts";
import { waitFor } from "../../../src/dev/cluster/process.ts";
import type { KubeClient } from "../../../src/kube/index.ts";
import type { StoredOrchestrator } from "../../../src/schema/orchestrator.ts";
import { Orchestrators } from "../../../src/schema/resources.ts";
import { kubectl } from "./cluster.ts";

export const condition = (o: StoredOrchestrator | undefined, type: string) =>
  o?.status?.conditions?.find((c) => c.type === type);

/** Ready=True at the current generation: serving what the spec asks now. */
export const isServing = (o: StoredOrchestrator) =>
  condition(o, "Ready")?.status === "True" && o.status?.observedGeneration === o.metadata?.generation;

export interface OrchestratorKit {
  apply(name: string, spec?: Record<string, unknown>, pool?: NodePool, podTemplate?: object): Promise<void>;
  read(name: string): Promise<StoredOrchestrator | undefined>;
  /** Waits (60 s unless told) for `ok`; a timeout shows the last status and `context()`. */
  until(
    name: string,
    ok: (o: StoredOrchestrator) => boolean,
    timeoutMs?: number,
  ): Promise<StoredOrchestrator>;
}

/** `namespace` is read at call time (test files create theirs in beforeAll). */
export function orchestratorKit(
  client: KubeClient,
  namespace: () => string,
  context: () => string = () => "",
): OrchestratorKit {
  const read = (name: string) => client.get<StoredOrchestrator>(Orchestrators, namespace(), name);
  return {
    read,
    async apply(name, spec = {}, pool, podTemplate = {}) {
      const fence = pool ? { nodeSelector: pool.nodeSelector, tolerations: pool.tolerations } : {};
      const template = { ...fence, ...podTemplate };
      const body = {
        apiVersion: "livepeer.org/v1alpha1",
        kind: "Orchestrator",
        metadata: { name, namespace: namespace() },
        spec: { ...spec, ...(Object.keys(template).length ? { podTemplate: template } : {}) },
      };
      await kubectl(["apply", "--server-side", "--field-manager=test", "-f", "-"], JSON.stringify(body));
    },
    async until(name, ok, timeoutMs = 60_000) {
      let last: StoredOrchestrator | undefined;
      await waitFor(
        `Orchestrator ${name}`,
        async () => {
          last = await read(name);
          return !!last && ok(last);
        },
        timeoutMs,
        () => `${JSON.stringify(last?.status, null, 1)}\n${context()}`,
      );
      return last!;
    },
  };
}
