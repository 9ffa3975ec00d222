// The Livepeer protocol's compiled contracts, as shipped by the npm package @livepeer/sdk
// (hardhat artifacts under its `abis/` folder: ABI, bytecode and library link references).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { InterfaceAbi } from "ethers";

export interface LinkReference {
  start: number;
  length: number;
}

export interface Artifact {
  contractName: string;
  sourceName: string;
  abi: InterfaceAbi;
  bytecode: string;
  /** sourceName -> library name -> byte offsets of its 20-byte address placeholders. */
  linkReferences: Record<string, Record<string, LinkReference[]>>;
}

/** Where each contract we deploy lives under `@livepeer/sdk/abis/`. */
const ARTIFACT_FILES = {
  Controller: "Controller.sol/Controller.json",
  ManagerProxy: "ManagerProxy.sol/ManagerProxy.json",
  Minter: "token/Minter.sol/Minter.json",
  LivepeerToken: "token/LivepeerToken.sol/LivepeerToken.json",
  LivepeerTokenFaucet: "token/LivepeerTokenFaucet.sol/LivepeerTokenFaucet.json",
  TicketBroker: "pm/TicketBroker.sol/TicketBroker.json",
  SortedDoublyLL: "libraries/SortedDoublyLL.sol/SortedDoublyLL.json",
  BondingManager: "bonding/BondingManager.sol/BondingManager.json",
  AdjustableRoundsManager: "rounds/AdjustableRoundsManager.sol/AdjustableRoundsManager.json",
  RoundsManager: "rounds/RoundsManager.sol/RoundsManager.json",
  ServiceRegistry: "ServiceRegistry.sol/ServiceRegistry.json",
  MerkleSnapshot: "snapshots/MerkleSnapshot.sol/MerkleSnapshot.json",
  Governor: "governance/Governor.sol/Governor.json",
} as const;

export type ArtifactName = keyof typeof ARTIFACT_FILES;

const SDK_PACKAGE = "@livepeer/sdk";

export function sdkPackageDir(): string {
  const require = createRequire(import.meta.url);
  try {
    return path.dirname(require.resolve(`${SDK_PACKAGE}/package.json`));
  } catch {
    throw new Error(`the npm package ${SDK_PACKAGE} is not installed: run 'npm install' in the project`);
  }
}

export function sdkVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(sdkPackageDir(), "package.json"), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

const cache = new Map<ArtifactName, Artifact>();

export function loadArtifact(name: ArtifactName): Artifact {
  const cached = cache.get(name);
  if (cached) return cached;
  const file = path.join(sdkPackageDir(), "abis", ARTIFACT_FILES[name]);
  let artifact: Artifact;
  try {
    artifact = JSON.parse(readFileSync(file, "utf8")) as Artifact;
  } catch (err) {
    throw new Error(`cannot read the ${name} artifact at ${file}: ${(err as Error).message}`);
  }
  cache.set(name, artifact);
  return artifact;
}

/**
 * The artifact's bytecode with every library placeholder replaced by the deployed library's
 * address (what a linker does with hardhat's `linkReferences`).
 */
export function linkBytecode(artifact: Artifact, libraries: Record<string, string>): string {
  let hex = artifact.bytecode.replace(/^0x/, "");
  for (const [sourceName, libs] of Object.entries(artifact.linkReferences)) {
    for (const [libName, refs] of Object.entries(libs)) {
      const address = libraries[libName] ?? libraries[`${sourceName}:${libName}`];
      if (!address)
        throw new Error(`${artifact.contractName} needs library ${libName} linked: deploy it first`);
      const addr = address.replace(/^0x/, "").toLowerCase();
      if (!/^[0-9a-f]{40}$/.test(addr)) throw new Error(`library ${libName}: '${address}' is not an address`);
      for (const ref of refs) {
        if (ref.length !== 20) throw new Error(`${libName}: unexpected link reference length ${ref.length}`);
        const at = ref.start * 2;
        hex = hex.slice(0, at) + addr + hex.slice(at + 40);
      }
    }
  }
  if (hex.includes("__"))
    throw new Error(`${artifact.contractName} bytecode still has unlinked placeholders`);
  return `0x${hex}`;
}
