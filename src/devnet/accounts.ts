// Devnet accounts: orchestrators (ETH, LPT bonded to themselves, registered as transcoders with a
// service URI, active in the current round) and gateways (ETH, a TicketBroker deposit and
// reserve). Keys are derived from the devnet mnemonic, so every devnet has the same accounts.
// Each step checks the chain first and only sends what is missing: running it twice is a no-op.
import path from "node:path";
import { formatEther, getAddress, HDNodeWallet, type Provider, type Signer, Wallet } from "ethers";
import { contractAt, providerFor } from "./deploy.ts";
import type { DeploymentRecord } from "./deployment-record.ts";
import { DEVNET_MNEMONIC } from "./hardhat-config.ts";
import { ensureAccountFiles } from "./keystore.ts";
import { advanceRound, ensureRoundInitialized } from "./rounds.ts";
import { type Progress, silent, step } from "./steps.ts";
import { read, send } from "./transact.ts";

export type Role = "orchestrator" | "gateway";

export interface AccountPlan {
  orchestrators: number;
  gateways: number;
  /** ETH each orchestrator / gateway is funded with (topped up when below a tenth of it). */
  orchestratorEth: bigint;
  gatewayEth: bigint;
  /** LPT each orchestrator bonds to itself. */
  stake: bigint;
  /** Transcoder parameters, parts per million (100000 = 10%). */
  rewardCut: number;
  feeShare: number;
  /** Each gateway's TicketBroker deposit and reserve, wei. */
  deposit: bigint;
  reserve: bigint;
  /** The service URI orchestrator `index` registers. */
  serviceURI: (index: number) => string;
}

const ETHER = 10n ** 18n;

/** Orchestrator i announces https://127.0.0.1:<8935 + i>: the node's default media port, offset per node. */
export function defaultServiceURI(index: number): string {
  return `https://127.0.0.1:${8935 + index}`;
}

export const DEFAULT_ACCOUNT_PLAN: AccountPlan = {
  orchestrators: 2,
  gateways: 1,
  orchestratorEth: 100n * ETHER,
  gatewayEth: 100n * ETHER,
  stake: 1000n * ETHER,
  rewardCut: 100_000,
  feeShare: 50_000,
  deposit: 10n * ETHER,
  reserve: 10n * ETHER,
  serviceURI: defaultServiceURI,
};

export interface DevnetAccount {
  /** `<role>-<index>`, also the account's folder under `.devnet/accounts/`. */
  name: string;
  role: Role;
  index: number;
  address: string;
  keystoreFile: string;
  passwordFile: string;
  serviceURI?: string;
}

const ROLE_BRANCH: Record<Role, number> = { orchestrator: 1, gateway: 2 };

/** The deployer: the chain's first pre-funded account. */
export function deployerWallet(mnemonic = DEVNET_MNEMONIC): HDNodeWallet {
  return HDNodeWallet.fromPhrase(mnemonic, undefined, "m/44'/60'/0'/0/0");
}

/** Role accounts live on their own BIP-44 account branch, so changing counts never reshuffles them. */
export function roleWallet(role: Role, index: number, mnemonic = DEVNET_MNEMONIC): Wallet {
  const hd = HDNodeWallet.fromPhrase(mnemonic, undefined, `m/44'/60'/${ROLE_BRANCH[role]}'/0/${index}`);
  // A plain Wallet, so the keystore never carries the mnemonic.
  return new Wallet(hd.privateKey);
}

export function accountName(role: Role, index: number): string {
  return `${role}-${index}`;
}

export interface CreateAccountsOptions {
  /** Folder holding one sub-folder per account (`.devnet/accounts`). */
  accountsDir: string;
  mnemonic?: string;
  progress?: Progress;
}

export async function createAccounts(
  chain: string | Provider,
  deployer: Signer,
  deployment: Pick<DeploymentRecord, "contracts">,
  plan: Partial<AccountPlan> = {},
  opts: CreateAccountsOptions,
): Promise<DevnetAccount[]> {
  const p: AccountPlan = { ...DEFAULT_ACCOUNT_PLAN, ...plan };
  if (p.gatewayEth <= p.deposit + p.reserve) {
    throw new Error(
      `a gateway funded with ${formatEther(p.gatewayEth)} ETH cannot pay a ${formatEther(p.deposit)} ETH deposit and ${formatEther(p.reserve)} ETH reserve plus gas: raise its ETH or lower them`,
    );
  }
  const progress = opts.progress ?? silent;
  const provider = providerFor(chain);
  const funder = deployer.provider ? deployer : deployer.connect(provider);
  const accounts: DevnetAccount[] = [];
  const plans: [Role, number][] = [
    ...range(p.orchestrators).map((i): [Role, number] => ["orchestrator", i]),
    ...range(p.gateways).map((i): [Role, number] => ["gateway", i]),
  ];
  for (const [role, index] of plans) {
    const wallet = roleWallet(role, index, opts.mnemonic).connect(provider);
    const name = accountName(role, index);
    const account = await step(
      progress,
      `account ${name} ${wallet.address}`,
      async () => {
        const done =
          role === "orchestrator"
            ? await ensureOrchestrator(funder, wallet, deployment, p, index)
            : await ensureGateway(funder, wallet, deployment, p);
        const files = await ensureAccountFiles(path.join(opts.accountsDir, name), wallet.privateKey);
        if (!files.reused) done.push("keystore written");
        const acc: DevnetAccount = {
          name,
          role,
          index,
          address: wallet.address,
          keystoreFile: files.keystoreFile,
          passwordFile: files.passwordFile,
          ...(role === "orchestrator" ? { serviceURI: p.serviceURI(index) } : {}),
        };
        return { acc, done };
      },
      ({ done }) => (done.length ? done.join(", ") : "already set up, reused"),
    );
    accounts.push(account.acc);
  }
  const orchestrators = accounts.filter((a) => a.role === "orchestrator").map((a) => a.address);
  if (orchestrators.length > 0) {
    await step(
      progress,
      "activate orchestrators",
      () => activateOrchestrators(funder, deployment, orchestrators),
      (r) => `${r.advanced ? "advanced to" : "already active in"} round ${r.round}`,
    );
  }
  return accounts;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

async function topUpEth(funder: Signer, address: string, target: bigint, done: string[]): Promise<void> {
  const provider = funder.provider!;
  const balance = await provider.getBalance(address);
  if (balance >= target / 10n) return;
  const tx = await funder.sendTransaction({ to: address, value: target - balance });
  await tx.wait();
  done.push(`funded ${formatEther(target - balance)} ETH`);
}

async function ensureOrchestrator(
  funder: Signer,
  wallet: Wallet,
  deployment: Pick<DeploymentRecord, "contracts">,
  p: AccountPlan,
  index: number,
): Promise<string[]> {
  const done: string[] = [];
  const address = wallet.address;
  await topUpEth(funder, address, p.orchestratorEth, done);
  const bonding = contractAt(deployment, "BondingManager", wallet);
  const token = contractAt(deployment, "LivepeerToken", wallet);
  const delegator = await read<{ bondedAmount: bigint; delegateAddress: string }>(
    bonding,
    "getDelegator",
    address,
  );
  if (delegator.bondedAmount < p.stake) {
    const amount = p.stake - delegator.bondedAmount;
    const balance = await read<bigint>(token, "balanceOf", address);
    if (balance < amount)
      await send(contractAt(deployment, "LivepeerToken", funder), "transfer", [address, amount - balance]);
    await send(token, "approve", [await bonding.getAddress(), amount]);
    await send(bonding, "bond", [amount, address]);
    done.push(`bonded ${formatEther(amount)} LPT to itself`);
  }
  const transcoder = await read<{ rewardCut: bigint; feeShare: bigint; activationRound: bigint }>(
    bonding,
    "getTranscoder",
    address,
  );
  if (
    transcoder.activationRound === 0n ||
    transcoder.rewardCut !== BigInt(p.rewardCut) ||
    transcoder.feeShare !== BigInt(p.feeShare)
  ) {
    await send(bonding, "transcoder", [p.rewardCut, p.feeShare]);
    done.push(
      `registered as transcoder (reward cut ${p.rewardCut / 10_000}%, fee share ${p.feeShare / 10_000}%)`,
    );
  }
  const registry = contractAt(deployment, "ServiceRegistry", wallet);
  const uri = p.serviceURI(index);
  if ((await read<string>(registry, "getServiceURI", address)) !== uri) {
    await send(registry, "setServiceURI", [uri]);
    done.push(`service URI ${uri}`);
  }
  return done;
}

async function ensureGateway(
  funder: Signer,
  wallet: Wallet,
  deployment: Pick<DeploymentRecord, "contracts">,
  p: AccountPlan,
): Promise<string[]> {
  const done: string[] = [];
  await topUpEth(funder, wallet.address, p.gatewayEth, done);
  const broker = contractAt(deployment, "TicketBroker", wallet);
  const info = await read<{ sender: { deposit: bigint }; reserve: { fundsRemaining: bigint } }>(
    broker,
    "getSenderInfo",
    wallet.address,
  );
  const deposit = p.deposit > info.sender.deposit ? p.deposit - info.sender.deposit : 0n;
  const reserve = p.reserve > info.reserve.fundsRemaining ? p.reserve - info.reserve.fundsRemaining : 0n;
  if (deposit > 0n || reserve > 0n) {
    await send(broker, "fundDepositAndReserve", [deposit, reserve], { value: deposit + reserve });
    done.push(`deposit +${formatEther(deposit)} ETH, reserve +${formatEther(reserve)} ETH`);
  }
  return done;
}

/**
 * A transcoder registered in round N joins the active set in round N+1: initialize the current
 * round if nobody has, and move to the next one while any orchestrator is still inactive.
 */
async function activateOrchestrators(
  signer: Signer,
  deployment: Pick<DeploymentRecord, "contracts">,
  orchestrators: string[],
): Promise<{ round: bigint; advanced: boolean }> {
  const rounds = contractAt(deployment, "RoundsManager", signer);
  const bonding = contractAt(deployment, "BondingManager", signer);
  const allActive = async () => {
    for (const a of orchestrators)
      if (!(await read<boolean>(bonding, "isActiveTranscoder", getAddress(a)))) return false;
    return true;
  };
  let round = await ensureRoundInitialized(rounds);
  if (await allActive()) return { round, advanced: false };
  round = await advanceRound(rounds);
  if (!(await allActive())) {
    throw new Error(
      `orchestrators are still not active in round ${round}: is the active set (numActiveTranscoders) smaller than ${orchestrators.length}?`,
    );
  }
  return { round, advanced: true };
}
