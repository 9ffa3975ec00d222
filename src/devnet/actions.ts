// What `devnet` subcommands do to a running devnet, for tests and demos: the protocol's own
// transactions, sent from the devnet's account keystores (as the node would send them), and the
// RoundsManager moved as only a devnet can. Each returns what the chain says afterwards.
import { type Contract, formatEther, JsonRpcProvider, Network, type Wallet } from "ethers";
import { type DevnetAccount, deployerWallet, type Role } from "./accounts.ts";
import { chainAnswers } from "./chain.ts";
import { contractAt } from "./deploy.ts";
import { type DeploymentsOnDisk, readDeployments } from "./deployment-record.ts";
import { readPasswordFile, unlockKeystore } from "./keystore.ts";
import { isAlive } from "./processes.ts";
import { advanceToRoundStart, inInitializedRound, initializeRoundIfNeeded } from "./rounds.ts";
import { validateServiceURI } from "./service-uri.ts";
import { type DevnetState, devnetPaths, readDevnetState, readPid } from "./state.ts";
import { read, send } from "./transact.ts";

export class DevnetActionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DevnetActionError";
  }
}

export interface DevnetSession {
  state: DevnetState;
  deployment: DeploymentsOnDisk;
  provider: JsonRpcProvider;
  close(): void;
}

/** The devnet running in `dir`, or an error saying how to start one. */
export async function openDevnet(dir?: string): Promise<DevnetSession> {
  const paths = devnetPaths(dir);
  const state = readDevnetState(paths);
  const pid = readPid(paths);
  if (!state || pid === undefined || !(await chainAnswers(state.url, state.chainId, pid))) {
    throw new DevnetActionError(
      `no running devnet in ${paths.base}: start one with 'livepeer-operator devnet up' (or give --dir)`,
    );
  }
  const deployment = readDeployments(paths.deploymentsDir);
  if (!deployment)
    throw new DevnetActionError(
      `no deployment in ${paths.deploymentsDir}: run 'livepeer-operator devnet up'`,
    );
  const provider = new JsonRpcProvider(state.url, Network.from(state.chainId), {
    staticNetwork: true,
    batchMaxCount: 1,
    cacheTimeout: -1,
    pollingInterval: 100,
  });
  return { state, deployment, provider, close: () => provider.destroy() };
}

function account(session: DevnetSession, name: string, role: Role): DevnetAccount {
  const found = session.state.accounts.find((a) => a.name === name);
  const names = session.state.accounts.filter((a) => a.role === role).map((a) => a.name);
  if (!found)
    throw new DevnetActionError(
      `no devnet account '${name}': the ${role}s are ${names.join(", ") || "none"}`,
    );
  if (found.role !== role)
    throw new DevnetActionError(
      `${name} is ${article(found.role)}, not ${article(role)}: use one of ${names.join(", ")}`,
    );
  return found;
}

function article(role: Role): string {
  return role === "orchestrator" ? "an orchestrator" : "a gateway";
}

async function signer(
  session: DevnetSession,
  name: string,
  role: Role,
): Promise<{ a: DevnetAccount; wallet: Wallet }> {
  const a = account(session, name, role);
  const wallet = await unlockKeystore(a.keystoreFile, readPasswordFile(a.passwordFile));
  return { a, wallet: wallet.connect(session.provider) };
}

function contract(session: DevnetSession, name: string, wallet: Wallet): Contract {
  return contractAt(session.deployment, name, wallet);
}

export interface RewardOutcome {
  address: string;
  round: bigint;
  lastRewardRound: bigint;
  stake: string;
}

/** BondingManager.reward() for an active orchestrator, in the current (initialized) round. */
export async function callReward(session: DevnetSession, name: string): Promise<RewardOutcome> {
  const { a, wallet } = await signer(session, name, "orchestrator");
  const rounds = contract(session, "RoundsManager", wallet);
  const bonding = contract(session, "BondingManager", wallet);
  const round = await inInitializedRound(rounds, async (round) => {
    if (!(await read<boolean>(bonding, "isActiveTranscoder", a.address))) {
      throw new DevnetActionError(
        `${name} is not active in round ${round}: only active orchestrators can call reward`,
      );
    }
    const before = await read<{ lastRewardRound: bigint }>(bonding, "getTranscoder", a.address);
    if (before.lastRewardRound === round)
      throw new DevnetActionError(`${name} already called reward in round ${round}`);
    await send(bonding, "reward");
    return round;
  });
  const after = await read<{ lastRewardRound: bigint }>(bonding, "getTranscoder", a.address);
  return {
    address: a.address,
    round,
    lastRewardRound: after.lastRewardRound,
    stake: formatEther(await read<bigint>(bonding, "transcoderTotalStake", a.address)),
  };
}

export interface DrainOutcome {
  address: string;
  withdrawn: string;
  deposit: string;
  reserve: string;
  round: bigint;
}

/**
 * Empties a gateway's deposit and reserve the way the protocol allows: TicketBroker.unlock(),
 * the unlock period passed (rounds jumped on the devnet's RoundsManager), then withdraw().
 */
export async function drainDeposit(session: DevnetSession, name: string): Promise<DrainOutcome> {
  const { a, wallet } = await signer(session, name, "gateway");
  const broker = contract(session, "TicketBroker", wallet);
  const rounds = contract(session, "RoundsManager", wallet);
  type Info = { sender: { deposit: bigint; withdrawRound: bigint }; reserve: { fundsRemaining: bigint } };
  const before = await read<Info>(broker, "getSenderInfo", a.address);
  const total = before.sender.deposit + before.reserve.fundsRemaining;
  if (total === 0n) throw new DevnetActionError(`${name} has no deposit or reserve to drain`);
  await initializeRoundIfNeeded(rounds);
  if (before.sender.withdrawRound === 0n) await send(broker, "unlock");
  const { sender } = await read<Info>(broker, "getSenderInfo", a.address);
  const current = await read<bigint>(rounds, "currentRound");
  if (sender.withdrawRound > current) await advanceToRoundStart(rounds, sender.withdrawRound - current);
  await send(broker, "withdraw");
  const after = await read<Info>(broker, "getSenderInfo", a.address);
  return {
    address: a.address,
    withdrawn: formatEther(total),
    deposit: formatEther(after.sender.deposit),
    reserve: formatEther(after.reserve.fundsRemaining),
    round: await read<bigint>(rounds, "currentRound"),
  };
}

export interface UnbondOutcome {
  address: string;
  unbonded: string;
  /** The orchestrator leaves the active set from this round. */
  deactivationRound: bigint;
}

/** Unbonds all of an orchestrator's stake (rewards included): it resigns and leaves the active set next round. */
export async function unbondAll(session: DevnetSession, name: string): Promise<UnbondOutcome> {
  const { a, wallet } = await signer(session, name, "orchestrator");
  const bonding = contract(session, "BondingManager", wallet);
  const stake = await inInitializedRound(contract(session, "RoundsManager", wallet), async (round) => {
    const bonded = await read<bigint>(bonding, "pendingStake", a.address, round);
    if (bonded === 0n) throw new DevnetActionError(`${name} has no stake bonded`);
    await send(bonding, "unbond", [bonded]);
    return bonded;
  });
  const t = await read<{ deactivationRound: bigint }>(bonding, "getTranscoder", a.address);
  return { address: a.address, unbonded: formatEther(stake), deactivationRound: t.deactivationRound };
}

/** ServiceRegistry.setServiceURI from the orchestrator's account. */
export async function changeServiceURI(session: DevnetSession, name: string, uri: string): Promise<string> {
  const checked = validateServiceURI(uri);
  const { a, wallet } = await signer(session, name, "orchestrator");
  const registry = contract(session, "ServiceRegistry", wallet);
  await send(registry, "setServiceURI", [checked]);
  return read<string>(registry, "getServiceURI", a.address);
}

/** Jumps to the start of the round `count` ahead, initialized (sent by the deployer). */
export async function advanceRounds(session: DevnetSession, count: bigint): Promise<bigint> {
  const rounds = contractAt(session.deployment, "RoundsManager", deployerWallet().connect(session.provider));
  return advanceToRoundStart(rounds, count);
}

/**
 * Freezes (SIGSTOP) or thaws (SIGCONT) the chain process: while frozen its port still accepts
 * connections but nothing answers, as an overloaded or hung RPC does. Returns the chain's pid.
 */
export function freezeChain(dir: string | undefined, frozen: boolean): number {
  const paths = devnetPaths(dir);
  const pid = readPid(paths);
  if (pid === undefined || !isAlive(pid)) {
    throw new DevnetActionError(
      `no devnet chain runs in ${paths.base}: start one with 'livepeer-operator devnet up'`,
    );
  }
  process.kill(pid, frozen ? "SIGSTOP" : "SIGCONT");
  return pid;
}
