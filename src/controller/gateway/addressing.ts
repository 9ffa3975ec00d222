// How a node the operator feeds orchestrators to (a Gateway's discovery hook, a RemoteSigner's
// -remoteDiscovery) reaches them: through their Services, or (the embedded default, no cluster DNS)
// the orchestrator pod's IP. Shared by the Gateway and RemoteSigner reconcilers.
import { keyFor, Pods } from "../../kube/index.ts";
import type { PodFacts } from "../node-status/facts.ts";
import { PORTS as ORCHESTRATOR_PORTS } from "../orchestrator/names.ts";
import { INSTANCE_INDEX } from "../orchestrator/watch.ts";
import type { CacheReader } from "../runtime/index.ts";
import type { AddressMode } from "./pool.ts";

export function orchestratorAddressing(
  cache: CacheReader,
  mode: "service" | "pod-ip" | undefined,
  namespace: string,
): AddressMode {
  if (mode !== "pod-ip") return "service";
  return {
    podAddress: (name) => {
      const pod = cache
        .byIndex<PodFacts>(Pods, INSTANCE_INDEX, keyFor(namespace, name))
        .find(
          (p) => p.metadata?.labels?.["app.kubernetes.io/component"] === "orchestrator" && p.status?.podIP,
        );
      return pod ? `${pod.status?.podIP}:${ORCHESTRATOR_PORTS.service}` : undefined;
    },
  };
}
