// The dev chain's identity (chain id, mnemonic) and the minimal hardhat 2 config that runs it:
// nothing to compile (so no compiler download), automine, deterministic pre-funded accounts.
import { keccak256, Mnemonic, toUtf8Bytes } from "ethers";

export const DEVNET_CHAIN_ID = 1337;

/**
 * A fixed, public mnemonic (derived from a fixed phrase, so every devnet has the same accounts).
 * Never use its keys anywhere but a local devnet.
 */
export const DEVNET_MNEMONIC: string = Mnemonic.fromEntropy(
  keccak256(toUtf8Bytes("livepeer-operator devnet")).slice(0, 34),
).phrase;

export interface HardhatConfigOptions {
  chainId?: number;
  mnemonic?: string;
  /** Pre-funded accounts at m/44'/60'/0'/0/i; account 0 deploys the protocol. */
  prefundedAccounts?: number;
  /** Balance of each pre-funded account, in wei. */
  prefundedBalanceWei?: bigint;
}

/** The hardhat.config.cjs text (CommonJS so it loads whatever the surrounding package type). */
export function renderHardhatConfig(opts: HardhatConfigOptions = {}): string {
  const network = {
    chainId: opts.chainId ?? DEVNET_CHAIN_ID,
    mining: { auto: true },
    accounts: {
      mnemonic: opts.mnemonic ?? DEVNET_MNEMONIC,
      count: opts.prefundedAccounts ?? 10,
      accountsBalance: (opts.prefundedBalanceWei ?? 1_000_000n * 10n ** 18n).toString(),
    },
  };
  const config = {
    defaultNetwork: "hardhat",
    networks: { hardhat: network },
    // An empty sources folder: `hardhat node` compiles nothing and never fetches a compiler.
    paths: { sources: "./no-contracts", cache: "./hardhat-cache", artifacts: "./hardhat-artifacts" },
  };
  return `// Written by 'livepeer-operator devnet up': a local dev chain (hardhat 2), safe to delete.\nmodule.exports = ${JSON.stringify(config, null, 2)};\n`;
}
