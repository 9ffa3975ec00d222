// What wakes a Gateway besides its own children: its pods (by the instance label), the
// Orchestrators of its namespace (one becoming Ready, changing its price or labels changes what the
// gateway is given), the keystore Secret and the devnet deployment it names. The caches are the
// Orchestrator controller's, shared (same transforms and selectors).
import {
  ConfigMaps,
  type KubeObject,
  keyFor,
  keyOf,
  type ObjectKey,
  Pods,
  Secrets,
} from "../../kube/index.ts";
import type { StoredGateway } from "../../schema/gateway.ts";
import { Gateways, Orchestrators } from "../../schema/resources.ts";
import { isDevnetConfigMap } from "../devnet/deployment-config-map.ts";
import { instanceOf } from "../node-status/facts.ts";
import { orchestratorCaches } from "../orchestrator/watch.ts";
import type { CacheReader, CacheSpec, WatchSpec } from "../runtime/index.ts";

export const GATEWAY_INSTANCE_INDEX = "livepeerGatewayInstance";
const KEYSTORE_INDEX = "livepeerGatewayKeystoreSecret";
const DEVNET_INDEX = "livepeerGatewayDevnet";

const gatewayPod = (pod: KubeObject): ObjectKey[] => instanceOf(pod, ["gateway"]);

function named(field: "keystoreSecret" | "devnet") {
  return (o: KubeObject): ObjectKey[] => {
    const name = (o as StoredGateway).spec?.[field];
    return name ? [keyFor(o.metadata?.namespace, name)] : [];
  };
}

/** Every Gateway of the Orchestrator's namespace that selects Orchestrators. */
function selectingGateways(orch: KubeObject, cache: CacheReader): ObjectKey[] {
  return cache
    .list<StoredGateway>(Gateways, orch.metadata?.namespace)
    .filter((g) => g.spec?.orchestrators?.selector !== undefined)
    .map(keyOf);
}

/** The Orchestrator controller's caches of the same resources (shared), without its indexes. */
const shared: CacheSpec[] = orchestratorCaches
  .filter((c) => c.resource !== Orchestrators)
  .map(({ indexes: _theirs, ...cache }) => cache);

export const gatewayCaches: CacheSpec[] = [
  ...shared.filter((c) => c.resource !== Pods),
  { ...shared.find((c) => c.resource === Pods)!, indexes: { [GATEWAY_INSTANCE_INDEX]: gatewayPod } },
  {
    resource: Gateways,
    indexes: { [KEYSTORE_INDEX]: named("keystoreSecret"), [DEVNET_INDEX]: named("devnet") },
  },
  { resource: Orchestrators },
];

export const gatewayWatches: WatchSpec[] = [
  { resource: Pods, map: gatewayPod },
  { resource: Orchestrators, map: selectingGateways },
  { resource: Secrets, map: (s, cache) => cache.byIndex(Gateways, KEYSTORE_INDEX, keyOf(s)).map(keyOf) },
  {
    resource: ConfigMaps,
    map: (cm, cache) =>
      isDevnetConfigMap(cm) ? cache.byIndex(Gateways, DEVNET_INDEX, keyOf(cm)).map(keyOf) : [],
  },
];
