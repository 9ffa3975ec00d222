// The simulated node's Ethereum client: what go-livepeer's eth.LivepeerEthClient does for the
// CLI port's duty endpoints, for real against the chain its flags name (-ethUrl, -ethController,
// the keystore and password it was given), with the protocol contracts found through the
// Controller. Connected on first use, so a node whose chain is down still starts (as the node's
// own lazy calls would fail only when made).
import { readFileSync, statSync } from "node:fs";
import { Contract, type Wallet } from "ethers";
import type { NodeFlags } from "../config/flag-table.ts";
import type { ArtifactName } from "../devnet/artifacts.ts";
import {
  ChainActionError,
  type ChainConnection,
  connectChain,
  locateContract,
} from "../devnet/chain-connection.ts";
import { findKeystoreFile, unlockKeystore } from "../devnet/keystore.ts";
import { prepareTx, sendTx } from "../devnet/protocol-tx.ts";

export interface SimulatedEthClient {
  address(): Promise<string>;
  /** A read-only call to a protocol contract. */
  read<T>(contract: ArtifactName, method: string, args?: unknown[]): Promise<T>;
  /** A transaction from the node's account; resolves with the gas it used. */
  send(contract: ArtifactName, method: string, args?: unknown[], value?: bigint): Promise<bigint>;
}

/** -ethPassword is a file's path or the password itself, as the node reads it. */
function passwordOf(value: string | undefined): string {
  if (!value) return "";
  try {
    if (statSync(value).isFile()) return readFileSync(value, "utf8");
  } catch {}
  return value;
}

export function simulatedEthClient(flags: NodeFlags): SimulatedEthClient {
  let connected: Promise<{ chain: ChainConnection; wallet: Wallet; controller: string }> | undefined;
  const connect = () => {
    connected ??= (async () => {
      if (!flags.ethUrl) throw new ChainActionError("no -ethUrl: the node has no chain to call");
      if (!flags.ethController) throw new ChainActionError("no -ethController: the protocol cannot be found");
      if (!flags.ethKeystorePath) throw new ChainActionError("no -ethKeystorePath: the node has no account");
      const chain = await connectChain(flags.ethUrl);
      const wallet = await unlockKeystore(
        findKeystoreFile(flags.ethKeystorePath),
        passwordOf(flags.ethPassword),
      );
      return { chain, wallet, controller: flags.ethController };
    })();
    // A failed connection (chain down at the time) is tried again on the next call.
    connected.catch(() => {
      connected = undefined;
    });
    return connected;
  };
  return {
    address: async () => (await connect()).wallet.address,
    async read<T>(name: ArtifactName, method: string, args: unknown[] = []): Promise<T> {
      const { chain, controller } = await connect();
      const located = await locateContract(chain, { controller }, name);
      const c = new Contract(located.address, located.abi, chain.provider);
      return (await c.getFunction(method).staticCall(...args)) as T;
    },
    async send(name: ArtifactName, method: string, args: unknown[] = [], value = 0n): Promise<bigint> {
      const { chain, wallet, controller } = await connect();
      const contract = await locateContract(chain, { controller }, name);
      const tx = await prepareTx({ chain, signer: wallet, contract, method, args, argsShown: [], value });
      const receipt = await sendTx(tx);
      return receipt.gasUsed;
    },
  };
}
