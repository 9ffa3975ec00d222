// What wakes a Gateway besides its own children: its pods (by the instance label), the
// Orchestrators of its namespace (one becoming Ready, changing its price or labels changes what the
// gateway is given), the RemoteSigner it names and the devnet deployment it names. The caches are the Orchestrator
// controller's, shared (same transforms and selectors). The keystore Secret is read by name, not
// watched (see node-status/keystore.ts).
import { ConfigMaps, type KubeObject, keyFor, keyOf, type ObjectKey, Pods } from "../../kube/index.ts";
import type { StoredGateway } from "../../schema/gateway.ts";
import { Gateways, Orchestrators, RemoteSigners } from "../../schema/resources.ts";
import { isDevnetConfigMap } from "../devnet/deployment-config-map.ts";
import { instanceOf } from "../node-status/facts.ts";
import { orchestratorCaches } from "../orchestrator/watch.ts";
import { gatewaySignerKey } from "../remote-signer/watch.ts";
import type { CacheReader, CacheSpec, WatchSpec } from "../runtime/index.ts";

export const GATEWAY_INSTANCE_INDEX = "livepeerGatewayInstance";
const DEVNET_INDEX = "livepeerGatewayDevnet";
/** Keyless Gateways by the RemoteSigner they name. */
const SIGNER_INDEX = "livepeerGatewayRemoteSigner";

const gatewayPod = (pod: KubeObject): ObjectKey[] => instanceOf(pod, ["gateway"]);

function named(field: "devnet") {
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
  .filter((c) => c.resource !== Orchestrators && c.resource !== Gateways)
  .map(({ indexes: _theirs, ...cache }) => cache);

export const gatewayCaches: CacheSpec[] = [
  ...shared.filter((c) => c.resource !== Pods),
  { ...shared.find((c) => c.resource === Pods)!, indexes: { [GATEWAY_INSTANCE_INDEX]: gatewayPod } },
  {
    resource: Gateways,
    indexes: { [DEVNET_INDEX]: named("devnet"), [SIGNER_INDEX]: gatewaySignerKey },
  },
  { resource: Orchestrators },
  { resource: RemoteSigners },
];

export const gatewayWatches: WatchSpec[] = [
  { resource: Pods, map: gatewayPod },
  { resource: Orchestrators, map: selectingGateways },
  // A signer becoming Ready (or not), Funded, or moving pods changes what its Gateways may do.
  { resource: RemoteSigners, map: (s, cache) => cache.byIndex(Gateways, SIGNER_INDEX, keyOf(s)).map(keyOf) },
  {
    resource: ConfigMaps,
    map: (cm, cache) =>
      isDevnetConfigMap(cm) ? cache.byIndex(Gateways, DEVNET_INDEX, keyOf(cm)).map(keyOf) : [],
  },
];
