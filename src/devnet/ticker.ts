// The round ticker: makes a devnet move like a live network. Every interval it mines one block
// that also advances the AdjustableRoundsManager's block by one (mineBlocks(1)), so the chain's
// head and the rounds both move; when a new round begins it initializes it, as the node does
// with -initializeRound. Rounds therefore pass every `roundLength` ticks, and a chain whose
// ticker stops goes stale, as a stuck RPC does. It sends from its own pre-funded account (the
// chain's second), so it never races the deployer's or the accounts' nonces.
import { Contract, HDNodeWallet, JsonRpcProvider, Network } from "ethers";
import { loadArtifact } from "./artifacts.ts";
import { DEVNET_MNEMONIC } from "./hardhat-config.ts";
import { sleep } from "./processes.ts";
import { initializeRoundIfNeeded } from "./rounds.ts";
import { read, send } from "./transact.ts";

export interface RoundTickerOptions {
  url: string;
  chainId: number;
  /** The RoundsManager proxy's address. */
  roundsManager: string;
  blockIntervalMs: number;
  log?: (line: string) => void;
  signal?: AbortSignal;
  mnemonic?: string;
}

/** The ticker's account: the dev chain's second pre-funded account. */
export function tickerWallet(mnemonic = DEVNET_MNEMONIC): HDNodeWallet {
  return HDNodeWallet.fromPhrase(mnemonic, undefined, "m/44'/60'/0'/0/1");
}

/** Ticks until `signal` aborts. A failed tick (chain paused, restarting) is logged and retried. */
export async function runRoundTicker(opts: RoundTickerOptions): Promise<void> {
  const log = opts.log ?? (() => {});
  const provider = new JsonRpcProvider(opts.url, Network.from(opts.chainId), {
    staticNetwork: true,
    batchMaxCount: 1,
    cacheTimeout: -1,
    pollingInterval: 100,
  });
  const rounds = new Contract(
    opts.roundsManager,
    loadArtifact("AdjustableRoundsManager").abi,
    tickerWallet(opts.mnemonic).connect(provider),
  );
  log(`[ticker] a block every ${opts.blockIntervalMs} ms on ${opts.url}`);
  let lastRound = -1n;
  let failing = false;
  try {
    while (!opts.signal?.aborted) {
      const started = Date.now();
      try {
        await send(rounds, "mineBlocks", [1n]);
        const round = await initializeRoundIfNeeded(rounds);
        if (round !== lastRound) {
          const blockNum = await read<bigint>(rounds, "blockNum");
          log(
            `[ticker] round ${round} (round block ${blockNum}, chain block ${await provider.getBlockNumber()})`,
          );
          lastRound = round;
        }
        if (failing) log("[ticker] the chain answers again");
        failing = false;
      } catch (err) {
        if (!failing) log(`[ticker] tick failed, retrying every interval: ${(err as Error).message}`);
        failing = true;
      }
      await sleep(Math.max(0, opts.blockIntervalMs - (Date.now() - started)));
    }
  } finally {
    provider.destroy();
  }
}
