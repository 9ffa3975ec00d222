// Deploys the Livepeer protocol from the npm artifacts in the order and shape upstream's deploy
// script uses: a Controller; every manager registered in it under keccak256(name); upgradeable
// managers as a target (registered as `<Name>Target`) behind a ManagerProxy registered under the
// plain name; parameters set; LPT minted; the Controller unpaused. Dev-only parts, as upstream
// does for dev networks: AdjustableRoundsManager as RoundsManager, a token faucet and a
// L2LPTDataCache dummy.
import {
  type BaseContract,
  Contract,
  ContractFactory,
  type InterfaceAbi,
  JsonRpcProvider,
  keccak256,
  type Provider,
  type Signer,
  toUtf8Bytes,
} from "ethers";
import { type ArtifactName, linkBytecode, loadArtifact, sdkVersion } from "./artifacts.ts";
import { contractId, targetName } from "./contract-id.ts";
import { DATA_CACHE_STUB_ABI, DATA_CACHE_STUB_BYTECODE } from "./data-cache-stub.ts";
import type { DeploymentRecord } from "./deployment-record.ts";
import { DEVNET_PROTOCOL_PARAMS, type ProtocolParams } from "./protocol-params.ts";
import { startFirstRound } from "./rounds.ts";
import { type Progress, silent, step } from "./steps.ts";
import { send } from "./transact.ts";

export const MINTER_ROLE = keccak256(toUtf8Bytes("MINTER_ROLE"));

export interface DeployOptions {
  progress?: Progress;
}

interface Deployer {
  signer: Signer;
  record: DeploymentRecord;
  controller: BaseContract;
  /** bytes20 recorded with each registration (upstream: the protocol repo's git commit). */
  gitCommitHash: string;
}

export function providerFor(chain: string | Provider): Provider {
  return typeof chain === "string" ? devnetProvider(chain) : chain;
}

/** A provider tuned for a local automining chain: no batching delay, no result caching. */
export function devnetProvider(url: string): JsonRpcProvider {
  return new JsonRpcProvider(url, undefined, { batchMaxCount: 1, cacheTimeout: -1, pollingInterval: 100 });
}

async function deployCode(
  signer: Signer,
  abi: InterfaceAbi,
  bytecode: string,
  args: unknown[],
): Promise<string> {
  const contract = await new ContractFactory(abi, bytecode, signer).deploy(...args);
  await contract.waitForDeployment();
  return contract.getAddress();
}

async function register(d: Deployer, name: string, address: string): Promise<void> {
  await send(d.controller, "setContractInfo", [contractId(name), address, d.gitCommitHash]);
  d.record.registered[name] = address;
}

interface ManagerSpec {
  name: string;
  artifact: ArtifactName;
  args: unknown[];
  /** Deploy behind a ManagerProxy (upstream's `proxy: true`). */
  proxy?: boolean;
  libraries?: Record<string, string>;
  register?: boolean;
}

async function deployManager(d: Deployer, spec: ManagerSpec): Promise<string> {
  const artifact = loadArtifact(spec.artifact);
  const bytecode = spec.libraries ? linkBytecode(artifact, spec.libraries) : artifact.bytecode;
  const address = await deployCode(d.signer, artifact.abi, bytecode, spec.args);
  if (!spec.proxy) {
    d.record.contracts[spec.name] = { address, abi: artifact.abi };
    if (spec.register !== false) await register(d, spec.name, address);
    return address;
  }
  const target = targetName(spec.name);
  d.record.contracts[target] = { address, abi: artifact.abi };
  await register(d, target, address);
  const proxyArtifact = loadArtifact("ManagerProxy");
  const controllerAddress = d.record.contracts.Controller!.address;
  const proxy = await deployCode(d.signer, proxyArtifact.abi, proxyArtifact.bytecode, [
    controllerAddress,
    contractId(target),
  ]);
  // Callers talk to the proxy with the target's ABI.
  d.record.contracts[spec.name] = { address: proxy, abi: artifact.abi };
  await register(d, spec.name, proxy);
  return proxy;
}

export function contractAt(
  record: Pick<DeploymentRecord, "contracts">,
  name: string,
  runner: Signer | Provider,
): Contract {
  const c = record.contracts[name];
  if (!c) throw new Error(`the deployment has no ${name}`);
  return new Contract(c.address, c.abi, runner);
}

/** Deploys and wires the protocol; returns what was deployed where. */
export async function deployProtocol(
  chain: string | Provider,
  deployer: Signer,
  params: Partial<ProtocolParams> = {},
  opts: DeployOptions = {},
): Promise<DeploymentRecord> {
  const p: ProtocolParams = { ...DEVNET_PROTOCOL_PARAMS, ...params };
  const progress = opts.progress ?? silent;
  const provider = providerFor(chain);
  const signer = deployer.provider ? deployer : deployer.connect(provider);
  const { chainId } = await provider.getNetwork();
  const record: DeploymentRecord = { chainId: Number(chainId), contracts: {}, registered: {} };
  const deployerAddress = await signer.getAddress();
  const gitCommitHash = keccak256(toUtf8Bytes(`@livepeer/sdk@${sdkVersion()}`)).slice(0, 42);

  const controllerArtifact = loadArtifact("Controller");
  const controllerAddress = await step(
    progress,
    "deploy Controller",
    () => deployCode(signer, controllerArtifact.abi, controllerArtifact.bytecode, []),
    (a) => a,
  );
  record.contracts.Controller = { address: controllerAddress, abi: controllerArtifact.abi };
  const d: Deployer = {
    signer,
    record,
    controller: new Contract(controllerAddress, controllerArtifact.abi, signer),
    gitCommitHash,
  };
  const c = controllerAddress;
  const deployStep = (spec: ManagerSpec, label = spec.name) =>
    step(
      progress,
      `deploy ${label}`,
      () => deployManager(d, spec),
      (a) => a,
    );

  await deployStep({
    name: "Minter",
    artifact: "Minter",
    args: [c, p.inflation, p.inflationChange, p.targetBondingRate],
  });
  const token = await deployStep({ name: "LivepeerToken", artifact: "LivepeerToken", args: [] });
  const broker = await deployStep(
    { name: "TicketBroker", artifact: "TicketBroker", args: [c], proxy: true },
    "TicketBroker (behind a ManagerProxy)",
  );
  // Upstream registers the TicketBroker as JobsManager too: the Minter accepts ETH from it by that id.
  await register(d, "JobsManager", broker);
  const sortedList = await deployStep({
    name: "SortedDoublyLL",
    artifact: "SortedDoublyLL",
    args: [],
    register: false,
  });
  await deployStep(
    {
      name: "BondingManager",
      artifact: "BondingManager",
      args: [c],
      proxy: true,
      libraries: { SortedDoublyLL: sortedList },
    },
    "BondingManager (linked with SortedDoublyLL, behind a ManagerProxy)",
  );
  await deployStep(
    { name: "RoundsManager", artifact: "AdjustableRoundsManager", args: [c], proxy: true },
    "RoundsManager (AdjustableRoundsManager behind a ManagerProxy)",
  );
  await deployStep(
    { name: "ServiceRegistry", artifact: "ServiceRegistry", args: [c], proxy: true },
    "ServiceRegistry (behind a ManagerProxy)",
  );
  await deployStep({ name: "MerkleSnapshot", artifact: "MerkleSnapshot", args: [c] });
  await step(
    progress,
    "deploy Governor",
    () => deployGovernor(d, deployerAddress),
    (a) => a,
  );
  await step(
    progress,
    "deploy L2LPTDataCache (dev dummy)",
    async () => {
      const address = await deployCode(signer, DATA_CACHE_STUB_ABI, DATA_CACHE_STUB_BYTECODE, []);
      record.contracts.L2LPTDataCache = { address, abi: DATA_CACHE_STUB_ABI };
      await register(d, "L2LPTDataCache", address);
      return address;
    },
    (a) => a,
  );
  await step(
    progress,
    "set protocol parameters",
    () => setParameters(d, p),
    () =>
      `round length ${p.roundLength} blocks, unbonding ${p.unbondingPeriod} rounds, ${p.numActiveTranscoders} active transcoders, unlock ${p.unlockPeriod} rounds, ticket validity ${p.ticketValidityPeriod} rounds`,
  );
  await step(
    progress,
    "deploy LivepeerTokenFaucet and mint genesis LPT",
    () => mintGenesis(d, p, token, deployerAddress),
    (faucet) => faucet,
  );
  await step(progress, "unpause Controller", () => send(d.controller, "unpause"));
  await step(
    progress,
    "initialize the first round",
    () => startFirstRound(contractAt(record, "RoundsManager", signer), p.roundLength),
    (round) => `round ${round}`,
  );
  return record;
}

async function deployGovernor(d: Deployer, owner: string): Promise<string> {
  const artifact = loadArtifact("Governor");
  const address = await deployCode(d.signer, artifact.abi, artifact.bytecode, []);
  d.record.contracts.Governor = { address, abi: artifact.abi };
  // As upstream: stage and execute the Governor's transfer of its own ownership (here to the deployer).
  const governor = new Contract(address, artifact.abi, d.signer);
  const update = {
    target: [address],
    value: [0n],
    data: [governor.interface.encodeFunctionData("transferOwnership", [owner])],
    nonce: 0n,
  };
  await send(governor, "stage", [update, 0n]);
  await send(governor, "execute", [update]);
  return address;
}

async function setParameters(d: Deployer, p: ProtocolParams): Promise<void> {
  const bonding = contractAt(d.record, "BondingManager", d.signer);
  await send(bonding, "setUnbondingPeriod", [p.unbondingPeriod]);
  await send(bonding, "setNumActiveTranscoders", [p.numActiveTranscoders]);
  const rounds = contractAt(d.record, "RoundsManager", d.signer);
  await send(rounds, "setRoundLength", [p.roundLength]);
  await send(rounds, "setRoundLockAmount", [p.roundLockAmount]);
  const broker = contractAt(d.record, "TicketBroker", d.signer);
  await send(broker, "setUnlockPeriod", [p.unlockPeriod]);
  await send(broker, "setTicketValidityPeriod", [p.ticketValidityPeriod]);
}

async function mintGenesis(d: Deployer, p: ProtocolParams, token: string, deployer: string): Promise<string> {
  const faucet = await deployManager(d, {
    name: "LivepeerTokenFaucet",
    artifact: "LivepeerTokenFaucet",
    args: [token, p.faucetRequestAmount, p.faucetRequestWait],
  });
  const lpt = contractAt(d.record, "LivepeerToken", d.signer);
  await send(lpt, "grantRole", [MINTER_ROLE, deployer]);
  await send(lpt, "mint", [faucet, p.faucetSupply]);
  await send(lpt, "mint", [deployer, p.deployerSupply]);
  await send(lpt, "revokeRole", [MINTER_ROLE, deployer]);
  // Only the Minter mints from here on (round rewards).
  await send(lpt, "grantRole", [MINTER_ROLE, d.record.contracts.Minter!.address]);
  return faucet;
}
