// The devnet deployment as the ConfigMap a resource's
// spec.devnet names (contract: ARCHITECTURE.md "Devnet deployment"), printed as JSON for
// `kubectl apply --server-side -f -` (a client-side apply would copy the ABIs into an annotation,
// which is limited to 256 kB). Used by `livepeer-operator devnet configmap` and the embedded default.
import { devnetConfigMap } from "../controller/devnet/deployment-config-map.ts";
import { devnetPaths, readDeployments, readDevnetState } from "../devnet/index.ts";

/** What is missing to make the ConfigMap, with the exit code a command should end with (2: usage). */
export class DevnetConfigMapError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = "DevnetConfigMapError";
    this.exitCode = exitCode;
  }
}

export interface ConfigMapOptions {
  dir: string;
  name: string;
  namespace?: string;
  ethUrl?: string;
}

export function devnetConfigMapJson(o: ConfigMapOptions): string {
  const paths = devnetPaths(o.dir);
  const deployments = readDeployments(paths.deploymentsDir);
  if (!deployments) {
    throw new DevnetConfigMapError(
      `no deployment in ${paths.deploymentsDir}: run "livepeer-operator devnet up" first (or pass --dir where it ran)`,
      1,
    );
  }
  const ethUrl = o.ethUrl ?? readDevnetState(paths)?.url;
  if (!ethUrl) {
    throw new DevnetConfigMapError(
      "--eth-url is required when no devnet state says where the chain is: the chain's JSON-RPC URL as the node pods reach it",
    );
  }
  if (!/^(https?|wss?):\/\/\S+$/.test(ethUrl)) {
    throw new DevnetConfigMapError(
      `--eth-url ${JSON.stringify(ethUrl)} must start with http://, https://, ws:// or wss://`,
    );
  }
  if (!deployments.contracts.Controller) {
    throw new DevnetConfigMapError(
      `${paths.deploymentsDir} has no Controller.json: the node needs the Controller's address`,
      1,
    );
  }
  const cm = devnetConfigMap({
    name: o.name,
    ...(o.namespace ? { namespace: o.namespace } : {}),
    ethUrl,
    ...(deployments.chainId !== undefined ? { chainId: deployments.chainId } : {}),
    contracts: deployments.contracts,
  });
  return `${JSON.stringify(cm)}\n`;
}
