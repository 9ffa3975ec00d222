// What wakes a RemoteSigner besides its own children: its pods (by the instance label), the
// Orchestrators of its namespace when it offers remote discovery, the Gateways that name it (the
// NetworkPolicy admits their pods) and the devnet deployment it names. The caches are shared with
// the Orchestrator and Gateway controllers (same transforms and selectors). The keystore Secret is
// read by name, not watched.
import {
  ConfigMaps,
  type KubeObject,
  keyFor,
  keyOf,
  NetworkPolicies,
  type ObjectKey,
  PodDisruptionBudgets,
  Pods,
  RoleBindings,
  Roles,
  ServiceAccounts,
} from "../../kube/index.ts";
import type { StoredGateway } from "../../schema/gateway.ts";
import type { StoredRemoteSigner } from "../../schema/remote-signer.ts";
import { Gateways, Orchestrators, RemoteSigners } from "../../schema/resources.ts";
import { isDevnetConfigMap } from "../devnet/deployment-config-map.ts";
import { CHILD_SELECTOR } from "../node-status/child-facts.ts";
import { instanceOf } from "../node-status/facts.ts";
import { orchestratorCaches } from "../orchestrator/watch.ts";
import type { CacheReader, CacheSpec, WatchSpec } from "../runtime/index.ts";
import { COMPONENT } from "./names.ts";

export const SIGNER_INSTANCE_INDEX = "livepeerSignerInstance";
/** Gateways by the RemoteSigner they name (`namespace/name`). */
export const GATEWAY_SIGNER_INDEX = "livepeerGatewaySigner";
const DEVNET_INDEX = "livepeerSignerDevnet";

const signerPod = (pod: KubeObject): ObjectKey[] => instanceOf(pod, [COMPONENT]);

export function gatewaySignerKey(o: KubeObject): ObjectKey[] {
  const name = (o as StoredGateway).spec?.remoteSigner?.name;
  return name ? [keyFor(o.metadata?.namespace, name)] : [];
}

const devnetKey = (o: KubeObject): ObjectKey[] => {
  const name = (o as StoredRemoteSigner).spec?.devnet;
  return name ? [keyFor(o.metadata?.namespace, name)] : [];
};

/** Every RemoteSigner of the Orchestrator's namespace that offers remote discovery. */
function discoveringSigners(orch: KubeObject, cache: CacheReader): ObjectKey[] {
  return cache
    .list<StoredRemoteSigner>(RemoteSigners, orch.metadata?.namespace)
    .filter((s) => s.spec?.discovery !== undefined)
    .map(keyOf);
}

/** The Orchestrator controller's caches of the same resources (shared), without its indexes. */
const shared: CacheSpec[] = orchestratorCaches
  .filter((c) => c.resource !== Orchestrators)
  .map(({ indexes: _theirs, ...cache }) => cache);

/** The children only a RemoteSigner has: cached by the managed-by label, as the others. */
export const SIGNER_CHILD_TYPES = [
  PodDisruptionBudgets,
  NetworkPolicies,
  ServiceAccounts,
  Roles,
  RoleBindings,
];

export const signerCaches: CacheSpec[] = [
  ...shared.filter((c) => c.resource !== Pods),
  { ...shared.find((c) => c.resource === Pods)!, indexes: { [SIGNER_INSTANCE_INDEX]: signerPod } },
  ...SIGNER_CHILD_TYPES.map((resource) => ({ resource, labelSelector: CHILD_SELECTOR })),
  { resource: RemoteSigners, indexes: { [DEVNET_INDEX]: devnetKey } },
  { resource: Gateways, indexes: { [GATEWAY_SIGNER_INDEX]: gatewaySignerKey } },
  { resource: Orchestrators },
];

export const signerWatches: WatchSpec[] = [
  { resource: Pods, map: signerPod },
  { resource: Orchestrators, map: discoveringSigners },
  // A Gateway naming the signer (or no longer) changes who the NetworkPolicy admits.
  { resource: Gateways, map: gatewaySignerKey },
  {
    resource: ConfigMaps,
    map: (cm, cache) =>
      isDevnetConfigMap(cm) ? cache.byIndex(RemoteSigners, DEVNET_INDEX, keyOf(cm)).map(keyOf) : [],
  },
];
