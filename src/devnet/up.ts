// `devnet up`: a dev chain with the protocol deployed and accounts ready, in named steps.
// The chain is in memory, so "reuse" means: the recorded chain process lives, answers with the
// devnet chain id, and the recorded Controller has code; otherwise start fresh and redeploy.
import { type AccountPlan, createAccounts, DEFAULT_ACCOUNT_PLAN, deployerWallet } from "./accounts.ts";
import { chainAnswers, DEFAULT_CHAIN_PORT, startDevChain } from "./chain.ts";
import { contractAt, deployProtocol, devnetProvider } from "./deploy.ts";
import { type DeploymentRecord, readDeployments, writeDeployments } from "./deployment-record.ts";
import { DEVNET_CHAIN_ID } from "./hardhat-config.ts";
import { isAlive, stopPid } from "./processes.ts";
import { DEVNET_PROTOCOL_PARAMS, type ProtocolParams } from "./protocol-params.ts";
import {
  type DevnetPaths,
  type DevnetState,
  devnetPaths,
  readDevnetState,
  readPid,
  removePid,
  writeDevnetState,
  writePid,
} from "./state.ts";
import { type Progress, silent, step } from "./steps.ts";
import { type RunningTicker, readTickerPid, startTicker, stopTicker } from "./ticker-control.ts";
import { read, send } from "./transact.ts";

export interface DevnetUpOptions {
  /** Base directory for `deployments/devnet/` and `.devnet/` (default: the current one). */
  dir?: string;
  /** Port for a new chain on 127.0.0.1: default 8545, 0 = any free port. */
  port?: number;
  /** Keep the chain running after this process exits (default true: the CLI's background mode). */
  detached?: boolean;
  params?: Partial<ProtocolParams>;
  accounts?: Partial<AccountPlan>;
  /** Run the round ticker: a block every this many ms (0 or undefined: none; a reused devnet keeps its own). */
  blockIntervalMs?: number;
  /** Blocks per round (a fresh devnet deploys with it; a reused one gets it set). */
  roundLength?: number;
  progress?: Progress;
}

type Reusable = { state: DevnetState; deployment: Pick<DeploymentRecord, "contracts"> };

/** The running devnet recorded in `paths`, when it can be reused as is. */
async function findReusable(paths: DevnetPaths): Promise<Reusable | undefined> {
  const state = readDevnetState(paths);
  const pid = readPid(paths);
  if (!state || pid === undefined || pid !== state.pid) return undefined;
  if (!(await chainAnswers(state.url, state.chainId, pid))) return undefined;
  const onDisk = readDeployments(paths.deploymentsDir);
  const controller = state.contracts.Controller;
  if (!onDisk || !controller || onDisk.contracts.Controller?.address !== controller) return undefined;
  const code = await devnetProvider(state.url).getCode(controller);
  if (code === "0x") return undefined;
  return { state, deployment: onDisk };
}

export async function devnetUp(opts: DevnetUpOptions = {}): Promise<DevnetState> {
  const paths = devnetPaths(opts.dir);
  const progress = opts.progress ?? silent;
  const reusable = await step(
    progress,
    `look for a running devnet in ${paths.stateDir}`,
    () => findReusable(paths),
    (r) =>
      r
        ? `found chain pid ${r.state.pid} at ${r.state.url} with Controller ${r.state.contracts.Controller}: reusing it`
        : "none, starting fresh",
  );
  if (reusable && opts.port !== undefined && opts.port !== 0 && opts.port !== reusable.state.port) {
    throw new Error(
      `a devnet already runs on port ${reusable.state.port} (pid ${reusable.state.pid}); stop it with 'livepeer-operator devnet down' before using port ${opts.port}`,
    );
  }
  const accountPlan = { ...DEFAULT_ACCOUNT_PLAN, ...opts.accounts };
  if (reusable) {
    const provider = devnetProvider(reusable.state.url);
    const accounts = await createAccounts(
      provider,
      deployerWallet().connect(provider),
      reusable.deployment,
      accountPlan,
      {
        accountsDir: paths.accountsDir,
        progress,
      },
    );
    const rounds = contractAt(reusable.deployment, "RoundsManager", deployerWallet().connect(provider));
    if (opts.roundLength !== undefined) {
      const length = opts.roundLength;
      await step(
        progress,
        `round length ${length} blocks`,
        async () => {
          if ((await read<bigint>(rounds, "roundLength")) === BigInt(length)) return "already";
          await send(rounds, "setRoundLength", [length]);
          return "set";
        },
        (r) => r,
      );
    }
    let ticker =
      reusable.state.ticker && readTickerPid(paths) === reusable.state.ticker.pid
        ? reusable.state.ticker
        : undefined;
    if (opts.blockIntervalMs) {
      ticker = await tickerStep(progress, paths, {
        url: reusable.state.url,
        chainId: reusable.state.chainId,
        chainPid: reusable.state.pid,
        roundsManager: await rounds.getAddress(),
        blockIntervalMs: opts.blockIntervalMs,
        roundLength: Number(await read<bigint>(rounds, "roundLength")),
        detached: opts.detached ?? true,
      });
    }
    const state: DevnetState = { ...reusable.state, accounts, reused: true, ticker };
    writeDevnetState(paths, state);
    return state;
  }
  const stale = readPid(paths);
  if (stale !== undefined && isAlive(stale)) {
    await step(progress, `stop the unusable chain process ${stale}`, () => stopPid(stale));
  }
  removePid(paths);
  await stopTicker(paths);
  const chain = await step(
    progress,
    "start the dev chain (hardhat node)",
    () =>
      startDevChain({
        dir: paths.stateDir,
        port: opts.port ?? DEFAULT_CHAIN_PORT,
        detached: opts.detached ?? true,
        chainId: DEVNET_CHAIN_ID,
      }),
    (c) => `${c.url}, chain id ${c.chainId}, pid ${c.pid}`,
  );
  writePid(paths, chain.pid);
  try {
    const provider = devnetProvider(chain.url);
    const deployer = deployerWallet().connect(provider);
    const params = {
      ...opts.params,
      ...(opts.roundLength !== undefined ? { roundLength: opts.roundLength } : {}),
    };
    const record = await deployProtocol(provider, deployer, params, { progress });
    await step(
      progress,
      `write ${paths.deploymentsDir}`,
      async () => writeDeployments(paths.deploymentsDir, record),
      () => `${Object.keys(record.contracts).length} contracts`,
    );
    const accounts = await createAccounts(provider, deployer, record, accountPlan, {
      accountsDir: paths.accountsDir,
      progress,
    });
    const state: DevnetState = {
      version: 1,
      url: chain.url,
      port: chain.port,
      chainId: chain.chainId,
      pid: chain.pid,
      startedAt: new Date().toISOString(),
      logFile: chain.logFile,
      stateDir: paths.stateDir,
      deploymentsDir: paths.deploymentsDir,
      contracts: Object.fromEntries(Object.entries(record.contracts).map(([n, c]) => [n, c.address])),
      accounts,
      reused: false,
    };
    if (opts.blockIntervalMs) {
      state.ticker = await tickerStep(progress, paths, {
        url: chain.url,
        chainId: chain.chainId,
        chainPid: chain.pid,
        roundsManager: record.contracts.RoundsManager!.address,
        blockIntervalMs: opts.blockIntervalMs,
        roundLength: params.roundLength ?? DEVNET_PROTOCOL_PARAMS.roundLength,
        detached: opts.detached ?? true,
      });
    }
    writeDevnetState(paths, state);
    return state;
  } catch (err) {
    await stopTicker(paths);
    await chain.stop();
    removePid(paths);
    throw err;
  }
}

function tickerStep(
  progress: Progress,
  paths: DevnetPaths,
  opts: Parameters<typeof startTicker>[1],
): Promise<RunningTicker> {
  return step(
    progress,
    `start the round ticker (a block every ${opts.blockIntervalMs} ms, a round every ${opts.roundLength} blocks)`,
    () => startTicker(paths, opts),
    (t) => `pid ${t.pid}, log ${t.logFile}`,
  );
}
