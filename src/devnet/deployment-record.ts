// What a protocol deployment is, and its on-disk form (contract): `deployments/devnet/` holds one
// `<ContractName>.json` = {"address", "abi"} per contract (a manager behind a ManagerProxy: the
// proxy's address with the target's ABI) and `.chainId`, the chain they live on.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { InterfaceAbi } from "ethers";

export interface DeployedContract {
  address: string;
  abi: InterfaceAbi;
}

export interface DeploymentRecord {
  chainId: number;
  contracts: Record<string, DeployedContract>;
  /** Names registered in the Controller under keccak256(name) (aliases such as JobsManager too). */
  registered: Record<string, string>;
}

/** Contracts upstream deploys but does not register in the Controller. */
export const UNREGISTERED_CONTRACTS = ["Controller", "SortedDoublyLL", "Governor"] as const;

export const DEFAULT_DEPLOYMENTS_DIR = path.join("deployments", "devnet");
const CHAIN_ID_FILE = ".chainId";

export function contractAddress(record: Pick<DeploymentRecord, "contracts">, name: string): string {
  const contract = record.contracts[name];
  if (!contract) throw new Error(`the deployment has no ${name}`);
  return contract.address;
}

/** Replaces the directory's contents with the record (stale contract files would mislead). */
export function writeDeployments(dir: string, record: DeploymentRecord): void {
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(dir)) {
    if (file.endsWith(".json") || file === CHAIN_ID_FILE) rmSync(path.join(dir, file), { force: true });
  }
  for (const [name, contract] of Object.entries(record.contracts)) {
    const body = { address: contract.address, abi: contract.abi };
    writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(body, null, 2)}\n`);
  }
  writeFileSync(path.join(dir, CHAIN_ID_FILE), String(record.chainId));
}

export interface DeploymentsOnDisk {
  /** Undefined when `.chainId` is missing (e.g. written by another tool). */
  chainId: number | undefined;
  contracts: Record<string, DeployedContract>;
}

/** The contracts recorded in `dir`, or undefined when it holds none. */
export function readDeployments(dir: string): DeploymentsOnDisk | undefined {
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch {
    return undefined;
  }
  const contracts: Record<string, DeployedContract> = {};
  for (const file of files.filter((f) => f.endsWith(".json")).sort()) {
    const parsed = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Partial<DeployedContract>;
    if (typeof parsed.address !== "string" || !Array.isArray(parsed.abi)) {
      throw new Error(`${path.join(dir, file)} is not {"address", "abi"}`);
    }
    contracts[file.slice(0, -".json".length)] = { address: parsed.address, abi: parsed.abi };
  }
  if (Object.keys(contracts).length === 0) return undefined;
  let chainId: number | undefined;
  try {
    chainId = Number(readFileSync(path.join(dir, CHAIN_ID_FILE), "utf8").trim());
  } catch {}
  return { chainId, contracts };
}
