// Where a devnet keeps its things, relative to a base directory (the current one by default):
// `deployments/devnet/` (the contract) and `.devnet/` (chain config and log, pid files, the round
// ticker's log, accounts with keystores and password files, and `state.json` recording what `up` made).
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { DevnetAccount } from "./accounts.ts";

/** The round ticker's settings (devnet up --block-interval --round-length). */
export interface TickerSettings {
  blockIntervalMs: number;
  /** Blocks per round, as set on the RoundsManager. */
  roundLength: number;
}

/** A running round ticker, as the devnet's state records it. */
export interface RunningTicker extends TickerSettings {
  pid: number;
  logFile: string;
}

export interface DevnetPaths {
  base: string;
  stateDir: string;
  stateFile: string;
  pidFile: string;
  logFile: string;
  tickerPidFile: string;
  tickerLogFile: string;
  accountsDir: string;
  deploymentsDir: string;
}

export function devnetPaths(baseDir = "."): DevnetPaths {
  const base = path.resolve(baseDir);
  const stateDir = path.join(base, ".devnet");
  return {
    base,
    stateDir,
    stateFile: path.join(stateDir, "state.json"),
    pidFile: path.join(stateDir, "chain.pid"),
    logFile: path.join(stateDir, "chain.log"),
    tickerPidFile: path.join(stateDir, "ticker.pid"),
    tickerLogFile: path.join(stateDir, "ticker.log"),
    accountsDir: path.join(stateDir, "accounts"),
    deploymentsDir: path.join(base, "deployments", "devnet"),
  };
}

/** What `devnet up` made (no secrets: keys and passwords stay in their own files). */
export interface DevnetState {
  version: 1;
  url: string;
  port: number;
  chainId: number;
  /** The chain process (hardhat node). */
  pid: number;
  startedAt: string;
  logFile: string;
  stateDir: string;
  deploymentsDir: string;
  /** Contract name -> address, as in deployments/devnet. */
  contracts: Record<string, string>;
  accounts: DevnetAccount[];
  /** True when `up` found this devnet running and reused it. */
  reused: boolean;
  /** The round ticker, when one runs (`up --block-interval`). */
  ticker?: RunningTicker;
}

export function readDevnetState(paths: DevnetPaths): DevnetState | undefined {
  try {
    const state = JSON.parse(readFileSync(paths.stateFile, "utf8")) as DevnetState;
    return state.version === 1 ? state : undefined;
  } catch {
    return undefined;
  }
}

export function writeDevnetState(paths: DevnetPaths, state: DevnetState): void {
  mkdirSync(paths.stateDir, { recursive: true });
  writeFileSync(paths.stateFile, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  chmodSync(paths.stateFile, 0o600);
}

export function readPid(paths: DevnetPaths): number | undefined {
  try {
    const pid = Number(readFileSync(paths.pidFile, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function writePid(paths: DevnetPaths, pid: number): void {
  mkdirSync(paths.stateDir, { recursive: true });
  writeFileSync(paths.pidFile, String(pid));
}

export function removePid(paths: DevnetPaths): void {
  rmSync(paths.pidFile, { force: true });
}
