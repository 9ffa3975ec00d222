// The embedded default's chain: a devnet (hardhat node, the protocol's contracts, funded and
// registered accounts, a round ticker so rounds pass) in `.dev/`, as `devnet up --dir .dev`
// makes it, and its deployment exported as the ConfigMap `spec.devnet` names. The chain and the
// ticker are children of this process, registered with the control plane's watchdog; stopping
// removes them and the devnet's files, so nothing outlives `npm start`.
import path from "node:path";
import {
  DEFAULT_CHAIN_PORT,
  DEVNET_PROTOCOL_PARAMS,
  devnetDown,
  devnetPaths,
  devnetUp,
} from "../devnet/index.ts";
import { isPortListening } from "../process/ports.ts";
import { devnetConfigMapJson } from "./devnet-configmap.ts";

/** The ConfigMap the examples' `spec.devnet` names. */
export const DEV_DEVNET_CONFIGMAP = "livepeer-devnet";
/** Where it goes: the namespace `kubectl apply` uses when a file names none. */
export const DEV_DEVNET_NAMESPACE = "default";

export interface EmbeddedChainOptions {
  /** The `.dev/` directory: the devnet lives in `.dev/.devnet/` and `.dev/deployments/devnet/`. */
  devDir: string;
  /** A block every this many ms (the round ticker). */
  blockIntervalMs: number;
  /** Blocks per round. */
  roundLength: number;
  /** Applies a JSON manifest server-side (the ABIs are too large for a client-side apply). */
  applyServerSide(json: string): Promise<unknown>;
  /** Registers a pid, and a cleanup command, with the watchdog that outlives a killed parent. */
  track(pid: number): void;
  untrack(pid: number): void;
  trackCleanup(argv: string[]): void;
  log(line: string): void;
}

export interface EmbeddedChain {
  ethUrl: string;
  /** Absolute path of `deployments/devnet/`. */
  deployments: string;
  stop(): Promise<void>;
}

export const DEFAULT_DEV_BLOCK_INTERVAL_MS = 1_000;
export const DEFAULT_DEV_ROUND_LENGTH = DEVNET_PROTOCOL_PARAMS.roundLength;

export async function startEmbeddedChain(o: EmbeddedChainOptions): Promise<EmbeddedChain> {
  const paths = devnetPaths(o.devDir);
  // A devnet left by an earlier run that could not clean up (its processes are gone): start over.
  await devnetDown({ dir: o.devDir, purge: true });
  // 8545 as the spec's local testnet has it, unless something else holds it on this machine.
  const port = (await isPortListening(DEFAULT_CHAIN_PORT)) ? 0 : DEFAULT_CHAIN_PORT;
  const t0 = Date.now();
  const state = await devnetUp({
    dir: o.devDir,
    port,
    detached: false,
    blockIntervalMs: o.blockIntervalMs,
    roundLength: o.roundLength,
    progress: o.log,
  }).catch((err: Error) => {
    throw new Error(
      `the devnet did not start: ${err.message}\n(its log: ${paths.logFile}; to run without a chain: npm start -- --no-chain)`,
    );
  });
  const pids = [state.pid, ...(state.ticker ? [state.ticker.pid] : [])];
  for (const pid of pids) o.track(pid);
  o.trackCleanup(["rm", "-rf", paths.stateDir, path.dirname(paths.deploymentsDir)]);
  const stop = async () => {
    await devnetDown({ dir: o.devDir, purge: true });
    for (const pid of pids) o.untrack(pid);
  };
  try {
    await o.applyServerSide(
      devnetConfigMapJson({
        dir: o.devDir,
        name: DEV_DEVNET_CONFIGMAP,
        namespace: DEV_DEVNET_NAMESPACE,
        ethUrl: state.url,
      }),
    );
  } catch (err) {
    await stop();
    throw err;
  }
  o.log(
    `[devnet] ${state.url} (chain id ${state.chainId}) ready in ${((Date.now() - t0) / 1000).toFixed(1)} s: a block every ${o.blockIntervalMs / 1000} s, a round every ${o.roundLength} blocks; ConfigMap ${DEV_DEVNET_NAMESPACE}/${DEV_DEVNET_CONFIGMAP}`,
  );
  return { ethUrl: state.url, deployments: paths.deploymentsDir, stop };
}
