// `devnet status`: facts read from the chain (not from what `up` remembers), for people and as JSON.
// Amounts are decimal strings in ETH / LPT units.
import { formatEther } from "ethers";
import type { Role } from "./accounts.ts";
import { chainAnswers } from "./chain.ts";
import { contractAt, devnetProvider } from "./deploy.ts";
import { readDeployments } from "./deployment-record.ts";
import { devnetPaths, readDevnetState, readPid } from "./state.ts";
import { readTickerPid } from "./ticker-control.ts";
import { read } from "./transact.ts";

export interface AccountStatus {
  name: string;
  role: Role;
  address: string;
  keystoreFile: string;
  passwordFile: string;
  ethBalance?: string;
  /** Orchestrators: LPT bonded to themselves, active-set membership and on-chain service URI. */
  bondedStake?: string;
  activeTranscoder?: boolean;
  serviceURI?: string;
  /** Gateways: TicketBroker deposit and reserve. */
  deposit?: string;
  reserve?: string;
}

export interface DevnetStatus {
  running: boolean;
  pid?: number;
  url?: string;
  chainId?: number;
  blockNumber?: number;
  currentRound?: string;
  currentRoundInitialized?: boolean;
  /** RoundsManager blocks left in the current round. */
  roundBlocksLeft?: string;
  /** The round ticker (`up --block-interval`), when one runs. */
  ticker?: { pid: number; blockIntervalMs: number; roundLength: number };
  deploymentsDir: string;
  stateDir: string;
  contracts: Record<string, string>;
  accounts: AccountStatus[];
  /** What looks wrong, each with the next step. */
  problems: string[];
}

export async function readDevnetStatus(opts: { dir?: string } = {}): Promise<DevnetStatus> {
  const paths = devnetPaths(opts.dir);
  const state = readDevnetState(paths);
  const pid = readPid(paths);
  const deployments = readDeployments(paths.deploymentsDir);
  const contracts = Object.fromEntries(
    Object.entries(deployments?.contracts ?? {}).map(([n, c]) => [n, c.address]),
  );
  const status: DevnetStatus = {
    running: false,
    deploymentsDir: paths.deploymentsDir,
    stateDir: paths.stateDir,
    contracts,
    accounts: (state?.accounts ?? []).map((a) => ({
      name: a.name,
      role: a.role,
      address: a.address,
      keystoreFile: a.keystoreFile,
      passwordFile: a.passwordFile,
    })),
    problems: [],
  };
  if (!state || pid === undefined) {
    status.problems.push("no devnet is running here: start one with 'livepeer-operator devnet up'");
    return status;
  }
  status.pid = pid;
  status.url = state.url;
  if (!(await chainAnswers(state.url, state.chainId, pid))) {
    status.problems.push(
      `the chain (pid ${pid}) does not answer at ${state.url}: see ${state.logFile}, then 'livepeer-operator devnet up' to restart it`,
    );
    return status;
  }
  status.running = true;
  const provider = devnetProvider(state.url);
  status.chainId = Number((await provider.getNetwork()).chainId);
  status.blockNumber = await provider.getBlockNumber();
  if (!deployments || !contracts.Controller || (await provider.getCode(contracts.Controller)) === "0x") {
    status.problems.push(
      `no protocol deployment on this chain matches ${paths.deploymentsDir}: run 'livepeer-operator devnet up' to redeploy`,
    );
    return status;
  }
  const rounds = contractAt(deployments, "RoundsManager", provider);
  status.currentRound = String(await read<bigint>(rounds, "currentRound"));
  status.currentRoundInitialized = await read<boolean>(rounds, "currentRoundInitialized");
  const [start, length, blockNum] = await Promise.all(
    ["currentRoundStartBlock", "roundLength", "blockNum"].map((fn) => read<bigint>(rounds, fn)),
  );
  status.roundBlocksLeft = String(start! + length! - blockNum!);
  const tickerPid = readTickerPid(paths);
  if (state.ticker && tickerPid === state.ticker.pid) {
    const { pid, blockIntervalMs, roundLength } = state.ticker;
    status.ticker = { pid, blockIntervalMs, roundLength };
  }
  const bonding = contractAt(deployments, "BondingManager", provider);
  const registry = contractAt(deployments, "ServiceRegistry", provider);
  const broker = contractAt(deployments, "TicketBroker", provider);
  for (const account of status.accounts) {
    account.ethBalance = formatEther(await provider.getBalance(account.address));
    if (account.role === "orchestrator") {
      const delegator = await read<{ bondedAmount: bigint }>(bonding, "getDelegator", account.address);
      account.bondedStake = formatEther(delegator.bondedAmount);
      account.activeTranscoder = await read<boolean>(bonding, "isActiveTranscoder", account.address);
      account.serviceURI = await read<string>(registry, "getServiceURI", account.address);
      if (!account.activeTranscoder) {
        status.problems.push(
          `${account.name} is not in the active set: run 'livepeer-operator devnet up' again`,
        );
      }
    } else {
      const info = await read<{ sender: { deposit: bigint }; reserve: { fundsRemaining: bigint } }>(
        broker,
        "getSenderInfo",
        account.address,
      );
      account.deposit = formatEther(info.sender.deposit);
      account.reserve = formatEther(info.reserve.fundsRemaining);
      if (info.sender.deposit === 0n || info.reserve.fundsRemaining === 0n) {
        status.problems.push(
          `${account.name}'s deposit or reserve is 0, so it silently stops paying orchestrators: fund it with 'livepeer-operator deposit --account ${account.name} --deposit <ETH> --reserve <ETH>'`,
        );
      }
    }
  }
  return status;
}

export function formatDevnetStatus(s: DevnetStatus): string {
  const lines: string[] = [];
  if (s.running) {
    lines.push(`devnet: running (chain pid ${s.pid}) at ${s.url}`);
    lines.push(
      `chain id ${s.chainId}, block ${s.blockNumber}, round ${s.currentRound}${s.currentRoundInitialized ? " (initialized)" : " (not initialized)"}, ${s.roundBlocksLeft} round blocks left`,
    );
    lines.push(
      s.ticker
        ? `round ticker: pid ${s.ticker.pid}, a block every ${s.ticker.blockIntervalMs} ms, a round every ${s.ticker.roundLength} blocks`
        : "round ticker: none (blocks only with transactions; 'devnet up --block-interval 1' starts one)",
    );
  } else {
    lines.push("devnet: not running");
  }
  lines.push(
    s.running
      ? `deployments: ${s.deploymentsDir}`
      : `deployments recorded in ${s.deploymentsDir} (stale until the next 'up' redeploys them, to the same addresses):`,
  );
  const width = Math.max(0, ...Object.keys(s.contracts).map((n) => n.length));
  for (const [name, address] of Object.entries(s.contracts))
    lines.push(`  ${name.padEnd(width)}  ${address}`);
  if (s.accounts.length > 0) lines.push(`accounts (keystores under ${s.stateDir}/accounts):`);
  for (const a of s.accounts) {
    const facts: string[] = [];
    if (a.ethBalance !== undefined) facts.push(`${a.ethBalance} ETH`);
    if (a.bondedStake !== undefined) facts.push(`bonded ${a.bondedStake} LPT`);
    if (a.activeTranscoder !== undefined) facts.push(a.activeTranscoder ? "active transcoder" : "NOT active");
    if (a.serviceURI !== undefined) facts.push(`service URI ${a.serviceURI || "(none)"}`);
    if (a.deposit !== undefined) facts.push(`deposit ${a.deposit} ETH, reserve ${a.reserve} ETH`);
    lines.push(`  ${a.name.padEnd(15)} ${a.address}${facts.length ? `  ${facts.join(", ")}` : ""}`);
  }
  for (const p of s.problems) lines.push(`! ${p}`);
  return `${lines.join("\n")}\n`;
}
