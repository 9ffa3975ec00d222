// Connecting to a chain and finding a protocol contract on it, with errors that say which of the
// usual mistakes happened: RPC unreachable (naming the URL), wrong network (chain id differs
// from the deployment's, or no contract code at the address), wrong Controller.
import { Contract, type InterfaceAbi, isAddress, JsonRpcProvider, Network, ZeroAddress } from "ethers";
import { type ArtifactName, loadArtifact } from "./artifacts.ts";
import { contractId } from "./contract-id.ts";
import { readDeployments } from "./deployment-record.ts";
import { chainIdAt } from "./rpc.ts";

export class ChainActionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChainActionError";
  }
}

export interface ChainConnection {
  url: string;
  chainId: number;
  provider: JsonRpcProvider;
}

/** Probes `url` once (no endless retries) and returns a provider pinned to its chain id. */
export async function connectChain(url: string): Promise<ChainConnection> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ChainActionError(`--eth-url '${url}' is not a URL: give one like http://127.0.0.1:8545`);
  }
  if (!/^https?:$/.test(parsed.protocol)) {
    throw new ChainActionError(
      `--eth-url '${url}': only http:// and https:// JSON-RPC endpoints are supported`,
    );
  }
  let chainId: number;
  try {
    chainId = await chainIdAt(url, 5_000);
  } catch (err) {
    throw new ChainActionError((err as Error).message);
  }
  const provider = new JsonRpcProvider(url, Network.from(chainId), {
    staticNetwork: true,
    batchMaxCount: 1,
    cacheTimeout: -1,
    pollingInterval: 250,
  });
  return { url, chainId, provider };
}

/** Where to find the protocol: a deployments folder, or a Controller to ask. */
export type ProtocolLocation = { deploymentsDir: string } | { controller: string };

export interface LocatedContract {
  name: string;
  address: string;
  abi: InterfaceAbi;
  /** How it was found, for messages ("deployments/devnet/TicketBroker.json"). */
  via: string;
}

export async function locateContract(
  chain: ChainConnection,
  where: ProtocolLocation,
  name: ArtifactName,
): Promise<LocatedContract> {
  const located =
    "controller" in where
      ? await viaController(chain, where.controller, name)
      : viaDeployments(chain, where.deploymentsDir, name);
  if ((await chain.provider.getCode(located.address)) === "0x") {
    throw new ChainActionError(
      `wrong network? no contract code at ${located.address} (${name}, from ${located.via}) on chain ${chain.chainId} at ${chain.url}: check --eth-url, or if the devnet was restarted run 'livepeer-operator devnet up'`,
    );
  }
  return located;
}

function viaDeployments(chain: ChainConnection, dir: string, name: ArtifactName): LocatedContract {
  const deployments = readDeployments(dir);
  if (!deployments) {
    throw new ChainActionError(
      `no deployment files in ${dir}: run 'livepeer-operator devnet up', or name the Controller with --controller`,
    );
  }
  if (deployments.chainId !== undefined && deployments.chainId !== chain.chainId) {
    throw new ChainActionError(
      `wrong network: ${dir} records a deployment on chain ${deployments.chainId}, but ${chain.url} is chain ${chain.chainId}; check --eth-url`,
    );
  }
  const contract = deployments.contracts[name];
  if (!contract)
    throw new ChainActionError(`${dir} has no ${name}.json: redeploy with 'livepeer-operator devnet up'`);
  return { name, address: contract.address, abi: contract.abi, via: `${dir}/${name}.json` };
}

async function viaController(
  chain: ChainConnection,
  controller: string,
  name: ArtifactName,
): Promise<LocatedContract> {
  if (!isAddress(controller)) throw new ChainActionError(`--controller '${controller}' is not an address`);
  if ((await chain.provider.getCode(controller)) === "0x") {
    throw new ChainActionError(
      `wrong network? no contract code at Controller ${controller} on chain ${chain.chainId} at ${chain.url}: check --eth-url and --controller`,
    );
  }
  const artifact = loadArtifact("Controller");
  const registry = new Contract(controller, artifact.abi, chain.provider);
  const address = (await registry.getFunction("getContract").staticCall(contractId(name))) as string;
  if (address === ZeroAddress) {
    throw new ChainActionError(
      `Controller ${controller} has no ${name} registered: is it the Livepeer Controller?`,
    );
  }
  return { name, address, abi: loadArtifact(name).abi, via: `Controller ${controller}` };
}
