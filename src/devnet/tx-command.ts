// What the transaction commands (`deposit`, `service-uri set`) share: their chain and account
// options, and the flow unlock -> connect -> locate contract -> prepare -> show -> confirm -> send.
import { existsSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline/promises";
import type { TransactionReceipt, Wallet } from "ethers";
import type { ArtifactName } from "./artifacts.ts";
import { DEFAULT_CHAIN_PORT } from "./chain.ts";
import {
  ChainActionError,
  type ChainConnection,
  connectChain,
  type LocatedContract,
  locateContract,
  type ProtocolLocation,
} from "./chain-connection.ts";
import { findKeystoreFile, keystoreAddress, readPasswordFile, unlockKeystore } from "./keystore.ts";
import { describeTx, prepareTx, sendTx } from "./protocol-tx.ts";
import { devnetPaths, readDevnetState } from "./state.ts";

export const TX_OPTIONS = {
  "eth-url": { type: "string" },
  keystore: { type: "string" },
  "password-file": { type: "string" },
  account: { type: "string" },
  deployments: { type: "string" },
  controller: { type: "string" },
  dir: { type: "string", default: "." },
  yes: { type: "boolean", default: false },
  "dry-run": { type: "boolean", default: false },
} as const;

export const TX_OPTIONS_USAGE = `Chain and account:
  --eth-url URL          chain JSON-RPC (default: the devnet's in --dir, else http://127.0.0.1:${DEFAULT_CHAIN_PORT})
  --account NAME         a devnet account, e.g. gateway-0: its keystore and password file in
                         .devnet/accounts/NAME/ under --dir
  --keystore PATH        keystore file, or a directory holding exactly one (or a keystore/ folder)
  --password-file FILE   the keystore's password, byte for byte (no trailing newline)
  --deployments DIR      protocol deployment files (default: deployments/devnet under --dir)
  --controller ADDRESS   or ask this Controller for the contract instead
  --dir DIR              base directory of the devnet (default: .)
  --yes                  send without asking (required when stdin is not a terminal)
  --dry-run              print the transaction and send nothing`;

export type TxOptionValues = {
  "eth-url"?: string;
  keystore?: string;
  "password-file"?: string;
  account?: string;
  deployments?: string;
  controller?: string;
  dir?: string;
  yes?: boolean;
  "dry-run"?: boolean;
};

export class TxUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TxUsageError";
  }
}

export interface AccountFiles {
  keystoreFile: string;
  passwordFile?: string;
}

export function resolveAccountFiles(v: TxOptionValues, needPassword: boolean): AccountFiles {
  const base = devnetPaths(v.dir);
  let keystore = v.keystore;
  let passwordFile = v["password-file"];
  if (v.account) {
    const dir = path.join(base.accountsDir, v.account);
    if (!existsSync(dir)) throw new TxUsageError(`no devnet account '${v.account}' in ${base.accountsDir}`);
    keystore ??= dir;
    passwordFile ??= path.join(dir, "password");
  }
  if (!keystore) {
    throw new TxUsageError(
      "say which account signs: --account gateway-0, or --keystore PATH --password-file FILE",
    );
  }
  if (needPassword && !passwordFile) throw new TxUsageError("--password-file is required with --keystore");
  try {
    return { keystoreFile: findKeystoreFile(keystore), passwordFile };
  } catch (err) {
    throw new ChainActionError((err as Error).message);
  }
}

export function resolveEthUrl(v: TxOptionValues): string {
  if (v["eth-url"]) return v["eth-url"];
  return readDevnetState(devnetPaths(v.dir))?.url ?? `http://127.0.0.1:${DEFAULT_CHAIN_PORT}`;
}

export function resolveLocation(v: TxOptionValues): ProtocolLocation {
  if (v.controller && v.deployments) throw new TxUsageError("give --deployments or --controller, not both");
  if (v.controller) return { controller: v.controller };
  return { deploymentsDir: v.deployments ? path.resolve(v.deployments) : devnetPaths(v.dir).deploymentsDir };
}

export async function unlockAccount(files: AccountFiles): Promise<Wallet> {
  try {
    return await unlockKeystore(files.keystoreFile, readPasswordFile(files.passwordFile!));
  } catch (err) {
    throw new ChainActionError(
      `${(err as Error).message}${/wrong password/.test((err as Error).message) ? ` (password file ${files.passwordFile})` : ""}`,
    );
  }
}

export function addressOfKeystore(files: AccountFiles): string {
  try {
    return keystoreAddress(files.keystoreFile);
  } catch (err) {
    throw new ChainActionError((err as Error).message);
  }
}

export interface TxPlan {
  contract: ArtifactName;
  method: string;
  args: unknown[];
  argsShown: string[];
  value?: bigint;
}

export interface TxIo {
  out: (text: string) => void;
  err: (text: string) => void;
  stdinIsTTY: boolean;
  ask: (question: string) => Promise<string>;
}

export const processIo: TxIo = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  stdinIsTTY: process.stdin.isTTY === true,
  ask: async (question) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  },
};

export type TxOutcome =
  | { sent: false; reason: "dry-run" | "declined" }
  | {
      sent: true;
      receipt: TransactionReceipt;
      chain: ChainConnection;
      contract: LocatedContract;
      from: string;
    };

/** Runs the whole flow; returns what happened. Throws TxUsageError / ChainActionError. */
export async function runProtocolTx(
  v: TxOptionValues,
  plan: TxPlan,
  io: TxIo = processIo,
): Promise<TxOutcome> {
  if (!v.yes && !v["dry-run"] && !io.stdinIsTTY) {
    throw new TxUsageError(
      "refusing to ask for confirmation: stdin is not a terminal. Pass --yes to send, or --dry-run to only print the transaction",
    );
  }
  const where = resolveLocation(v);
  const signer = await unlockAccount(resolveAccountFiles(v, true));
  const chain = await connectChain(resolveEthUrl(v));
  const contract = await locateContract(chain, where, plan.contract);
  const tx = await prepareTx({
    chain,
    signer,
    contract,
    method: plan.method,
    args: plan.args,
    argsShown: plan.argsShown,
    value: plan.value,
  });
  if (v["dry-run"]) {
    io.out(`dry run, nothing sent:\n${describeTx(tx)}`);
    return { sent: false, reason: "dry-run" };
  }
  if (!v.yes) {
    io.err(`about to send:\n${describeTx(tx)}`);
    const answer = (await io.ask("send this transaction? [y/N] ")).trim().toLowerCase();
    if (answer !== "y" && answer !== "yes") {
      io.err("not sent\n");
      return { sent: false, reason: "declined" };
    }
  }
  const receipt = await sendTx(tx);
  io.out(
    `sent ${contract.name}.${plan.method}: transaction ${receipt.hash}, block ${receipt.blockNumber}, gas used ${receipt.gasUsed}\n`,
  );
  return { sent: true, receipt, chain, contract, from: signer.address };
}
