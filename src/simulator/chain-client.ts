// The simulated node's Ethereum client: what go-livepeer's eth.LivepeerEthClient does for the
// CLI port's duty endpoints, for real against the chain its flags name (-ethUrl, -ethController,
// the keystore and password it was given), with the protocol contracts found through the
// Controller. Connected on first use, so a node whose chain is down still starts (as the node's
// own lazy calls would fail only when made).
import { readFileSync, statSync } from "node:fs";
import { Contract, getBytes, keccak256, type Wallet } from "ethers";
import type { ArtifactName } from "../devnet/artifacts.ts";
import {
  ChainActionError,
  type ChainConnection,
  connectChain,
  locateContract,
} from "../devnet/chain-connection.ts";
import { findKeystoreFile, unlockKeystore } from "../devnet/keystore.ts";
import { prepareTx, sendTx } from "../devnet/protocol-tx.ts";
import type { NodeFlags } from "../node/config/flag-table.ts";

export interface SimulatedEthClient {
  address(): Promise<string>;
  /** A read-only call to a protocol contract. */
  read<T>(contract: ArtifactName, method: string, args?: unknown[]): Promise<T>;
  /** A transaction from the node's account; resolves with the gas it used. */
  send(contract: ArtifactName, method: string, args?: unknown[], value?: bigint): Promise<bigint>;
  /** The chain's head block and gas price (eth_blockNumber, eth_gasPrice). */
  head(): Promise<{ blockNumber: bigint; gasPrice: bigint }>;
  /**
   * The node's signature of keccak256(message) (eth/accountmanager.go Sign: a personal-sign of the
   * hash, v 27/28), as core/orchestrator.go Sign answers a Ping.
   */
  sign(message: Uint8Array): Promise<Buffer>;
  /** The node's unlocked account (for a gateway's signed GetOrchestrator requests). */
  wallet(): Promise<Wallet>;
}

/** -ethPassword is a file's path or the password itself, as the node reads it. */
export function passwordOf(value: string | undefined): string {
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
    async head() {
      const { chain } = await connect();
      const [blockNumber, fee] = await Promise.all([
        chain.provider.getBlockNumber(),
        chain.provider.send("eth_gasPrice", []) as Promise<string>,
      ]);
      return { blockNumber: BigInt(blockNumber), gasPrice: BigInt(fee) };
    },
    async sign(message: Uint8Array) {
      const { wallet } = await connect();
      return Buffer.from(getBytes(await wallet.signMessage(getBytes(keccak256(message)))));
    },
    wallet: async () => (await connect()).wallet,
  };
}
