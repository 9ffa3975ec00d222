// The devnet deployment in a cluster (contract, ARCHITECTURE.md "Devnet deployment"): a ConfigMap
// named by a resource's `spec.devnet` holding the same `<ContractName>.json` = {"address", "abi"}
// files as `deployments/devnet/`, plus `.chainId` and `ethUrl`, the chain's JSON-RPC URL as pods
// reach it (the files on disk do not say where the chain is). Pure: the `devnet configmap`
// command builds it, the controllers' cache keeps only what they read, and a resource's chain
// settings are resolved from it with a message naming the ConfigMap, the key and the fix.
import type { V1ConfigMap } from "@kubernetes/client-node";
import type { KubeObject } from "../../kube/index.ts";
import type { ChainSpec } from "../../schema/chain.ts";

export const DEVNET_KEYS = {
  ethUrl: "ethUrl",
  controller: "Controller.json",
  chainId: ".chainId",
} as const;

/**
 * Labels the operator selects devnet ConfigMaps by: its ConfigMap cache holds only objects
 * managed by livepeer-operator (children and these), never the cluster's other ConfigMaps.
 */
export const DEVNET_LABELS = {
  "app.kubernetes.io/managed-by": "livepeer-operator",
  "app.kubernetes.io/component": "devnet-deployment",
} as const;

/** A ConfigMap (with all values) is at most ~1 MiB: etcd's request limit. */
export const CONFIG_MAP_MAX_BYTES = 1024 * 1024;

export interface DevnetConfigMapInput {
  name: string;
  namespace?: string;
  ethUrl: string;
  chainId?: number;
  contracts: Record<string, { address: string; abi: unknown }>;
}

/** The ConfigMap for a deployment: compact JSON per contract, so the ABIs fit in 1 MiB. */
export function devnetConfigMap(i: DevnetConfigMapInput): V1ConfigMap {
  const data: Record<string, string> = { [DEVNET_KEYS.ethUrl]: i.ethUrl };
  if (i.chainId !== undefined) data[DEVNET_KEYS.chainId] = String(i.chainId);
  for (const [name, c] of Object.entries(i.contracts).sort(([a], [b]) => a.localeCompare(b))) {
    data[`${name}.json`] = JSON.stringify({ address: c.address, abi: c.abi });
  }
  const size = Object.entries(data).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v), 0);
  if (size > CONFIG_MAP_MAX_BYTES) {
    throw new Error(
      `the deployment is ${size} bytes, more than a ConfigMap holds (${CONFIG_MAP_MAX_BYTES}): the contracts' ABIs are too large`,
    );
  }
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: i.name,
      ...(i.namespace ? { namespace: i.namespace } : {}),
      labels: { ...DEVNET_LABELS },
    },
    data,
  };
}

export const isDevnetConfigMap = (obj: KubeObject): boolean =>
  obj.metadata?.labels?.["app.kubernetes.io/component"] === DEVNET_LABELS["app.kubernetes.io/component"];

/**
 * What the cache keeps of a devnet ConfigMap: `ethUrl` and the Controller's address, not the
 * ABIs (hundreds of kB each). A Controller.json that is not JSON is kept short, so the resolver
 * can still say what is wrong with it.
 */
export function devnetDataFacts(data: Record<string, string> | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  const url = data?.[DEVNET_KEYS.ethUrl];
  if (url !== undefined) kept[DEVNET_KEYS.ethUrl] = url;
  const controller = data?.[DEVNET_KEYS.controller];
  if (controller !== undefined) {
    try {
      const address = (JSON.parse(controller) as { address?: unknown }).address;
      kept[DEVNET_KEYS.controller] = JSON.stringify({ address });
    } catch {
      kept[DEVNET_KEYS.controller] = controller.slice(0, 120);
    }
  }
  return kept;
}

/** What of a spec a devnet deployment can fill in. */
export type DevnetChainSpec = Pick<ChainSpec, "devnet" | "ethUrl" | "ethController">;

/** How the ConfigMap named by spec.devnet was found. */
export type DevnetLookup =
  | { found: true; data: Record<string, string> | undefined }
  /** `unlabelled`: it exists, but without the labels the operator's cache selects. */
  | { found: false; unlabelled?: boolean };

export type DevnetResolution =
  /** spec.devnet is absent, or every value it would give is set explicitly. */
  | { state: "unused" }
  | { state: "resolved"; configMap: string; ethUrl?: string; controller?: string; chainId?: number }
  | { state: "unresolved"; configMap: string; reason: string; message: string };

const ETH_URL = /^(https?|wss?):\/\/\S+$/;
const ETH_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Whether spec.devnet is read at all: only for the values the spec leaves out. */
export const devnetNeeded = (spec: DevnetChainSpec): boolean =>
  !!spec.devnet && (!spec.ethUrl || !spec.ethController);

/**
 * The chain settings spec.devnet supplies. Explicit spec fields win, and only what they leave out
 * is read from the ConfigMap, so a missing key matters only when it is needed.
 */
export function resolveDevnet(
  spec: DevnetChainSpec,
  namespace: string,
  lookup: DevnetLookup,
): DevnetResolution {
  const name = spec.devnet;
  const needUrl = !spec.ethUrl;
  const needController = !spec.ethController;
  if (!name || !devnetNeeded(spec)) return { state: "unused" };
  const where = `ConfigMap ${namespace}/${name}`;
  const unresolved = (reason: string, message: string): DevnetResolution => ({
    state: "unresolved",
    configMap: name,
    reason,
    message,
  });
  if (!lookup.found) {
    if (lookup.unlabelled) {
      return unresolved(
        "DevnetConfigMapUnlabelled",
        `${where} (spec.devnet) lacks the labels the operator reads devnet ConfigMaps by: kubectl label configmap ${name} -n ${namespace} ${labelArgs()}`,
      );
    }
    return unresolved(
      "DevnetConfigMapNotFound",
      `${where} (spec.devnet) not found: create it from a devnet deployment with "livepeer-operator devnet configmap --name ${name} --namespace ${namespace} --eth-url <chain URL pods reach> | kubectl apply --server-side -f -", or correct spec.devnet`,
    );
  }
  const data = lookup.data ?? {};
  const out: { ethUrl?: string; controller?: string } = {};
  if (needUrl) {
    const url = data[DEVNET_KEYS.ethUrl]?.trim();
    if (url === undefined) {
      return unresolved(
        "DevnetKeyMissing",
        `${where} has no key ${DEVNET_KEYS.ethUrl}: add the chain's JSON-RPC URL as pods reach it (kubectl patch configmap ${name} -n ${namespace} --type merge -p '{"data":{"${DEVNET_KEYS.ethUrl}":"http://<chain host>:8545"}}'), or set spec.ethUrl`,
      );
    }
    if (!ETH_URL.test(url)) {
      return unresolved(
        "DevnetKeyInvalid",
        `${where} key ${DEVNET_KEYS.ethUrl} is ${JSON.stringify(url.slice(0, 80))}, not a URL starting with http://, https://, ws:// or wss://: correct it, or set spec.ethUrl`,
      );
    }
    out.ethUrl = url;
  }
  if (needController) {
    const text = data[DEVNET_KEYS.controller];
    if (text === undefined) {
      return unresolved(
        "DevnetKeyMissing",
        `${where} has no key ${DEVNET_KEYS.controller}: it must hold the deployment's ${DEVNET_KEYS.controller} ({"address", "abi"}, as "livepeer-operator devnet up" writes to deployments/devnet/), or set spec.ethController`,
      );
    }
    let address: unknown;
    try {
      address = (JSON.parse(text) as { address?: unknown }).address;
    } catch {
      address = undefined;
    }
    if (typeof address !== "string" || !ETH_ADDRESS.test(address)) {
      return unresolved(
        "DevnetKeyInvalid",
        `${where} key ${DEVNET_KEYS.controller} has no "address" of 0x and 40 hex digits: write the deployment's ${DEVNET_KEYS.controller} there again, or set spec.ethController`,
      );
    }
    out.controller = address;
  }
  // The chain id the RPC must answer, when the deployment recorded it (the chain checks compare).
  const chainId = Number(data[DEVNET_KEYS.chainId]);
  return {
    state: "resolved",
    configMap: name,
    ...out,
    ...(Number.isSafeInteger(chainId) && chainId > 0 ? { chainId } : {}),
  };
}

function labelArgs(): string {
  return Object.entries(DEVNET_LABELS)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
}
