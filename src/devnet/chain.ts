// The dev chain: `hardhat node` (hardhat 2, run with this Node) on 127.0.0.1 only, with a minimal
// config written into the state directory and hardhat's global folders kept inside it too, so it
// never prompts, never reads a user's telemetry consent and never phones home.
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { DEVNET_CHAIN_ID, renderHardhatConfig } from "./hardhat-config.ts";
import { isAlive, isPortListening, sleep, stopPid } from "./processes.ts";
import { chainIdAt } from "./rpc.ts";

export interface DevChainOptions {
  /** State directory: config, log and hardhat's home live here. */
  dir: string;
  /** 0 lets the kernel pick a free port. Default 8545. */
  port?: number;
  /** Keep running after this process exits (the CLI's background mode). Default false. */
  detached?: boolean;
  chainId?: number;
  mnemonic?: string;
  readyTimeoutMs?: number;
}

export interface DevChain {
  url: string;
  port: number;
  pid: number;
  chainId: number;
  logFile: string;
  /** Stops the chain by its pid and waits for it to exit. */
  stop(): Promise<void>;
}

export const CHAIN_HOST = "127.0.0.1";
export const DEFAULT_CHAIN_PORT = 8545;

export function chainLogFile(dir: string): string {
  return path.join(dir, "chain.log");
}

function hardhatCliScript(): string {
  const require = createRequire(import.meta.url);
  let pkgFile: string;
  try {
    pkgFile = require.resolve("hardhat/package.json");
  } catch {
    // The operator image leaves hardhat out: the devnet is a developer tool for a checkout.
    throw new Error("hardhat is not installed: run the devnet from a checkout after 'npm install'");
  }
  const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as { bin: { hardhat: string } };
  return path.join(path.dirname(pkgFile), pkg.bin.hardhat);
}

function hardhatEnv(dir: string): NodeJS.ProcessEnv {
  const home = path.join(dir, "hardhat-home");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HARDHAT_DISABLE_TELEMETRY_PROMPT: "true",
    // The state directory may live outside any project that has hardhat installed.
    HARDHAT_EXPERIMENTAL_ALLOW_NON_LOCAL_INSTALLATION: "true",
    XDG_CONFIG_HOME: path.join(home, "config"),
    XDG_CACHE_HOME: path.join(home, "cache"),
    XDG_DATA_HOME: path.join(home, "data"),
    NO_COLOR: "1",
  };
  delete env.FORCE_COLOR;
  return env;
}

const LISTENING = /JSON-RPC server at http:\/\/127\.0\.0\.1:(\d+)\//;

function logTail(file: string, lines = 20): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

/** Starts `hardhat node` and resolves once it answers eth_chainId. */
export async function startDevChain(opts: DevChainOptions): Promise<DevChain> {
  const dir = path.resolve(opts.dir);
  const port = opts.port ?? DEFAULT_CHAIN_PORT;
  const chainId = opts.chainId ?? DEVNET_CHAIN_ID;
  mkdirSync(path.join(dir, "no-contracts"), { recursive: true });
  const configFile = path.join(dir, "hardhat.config.cjs");
  writeFileSync(configFile, renderHardhatConfig({ chainId, mnemonic: opts.mnemonic }));
  if (port !== 0 && (await isPortListening(port))) {
    throw new Error(
      `port ${port} on ${CHAIN_HOST} is already in use: stop what listens there, or choose another port with --port`,
    );
  }
  const logFile = chainLogFile(dir);
  const fd = openSync(logFile, "w");
  let child: ChildProcess;
  try {
    child = spawn(
      process.execPath,
      [hardhatCliScript(), "node", "--hostname", CHAIN_HOST, "--port", String(port), "--config", configFile],
      { cwd: dir, env: hardhatEnv(dir), stdio: ["ignore", fd, fd], detached: opts.detached ?? false },
    );
  } finally {
    closeSync(fd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start hardhat with ${process.execPath}`);
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  if (opts.detached) child.unref();
  const stop = () => stopPid(pid);
  try {
    const actualPort = await waitForListening(logFile, () => exited, opts.readyTimeoutMs ?? 60_000);
    const url = `http://${CHAIN_HOST}:${actualPort}`;
    const answered = await chainIdAt(url, 5_000);
    if (answered !== chainId)
      throw new Error(`the chain at ${url} answers chain id ${answered}, not ${chainId}`);
    return { url, port: actualPort, pid, chainId, logFile, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function waitForListening(logFile: string, exited: () => boolean, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = LISTENING.exec(readFileSync(logFile, "utf8"));
    if (match) return Number(match[1]);
    if (exited()) throw new Error(`the dev chain (hardhat node) exited during startup:\n${logTail(logFile)}`);
    await sleep(50);
  }
  throw new Error(`the dev chain did not start within ${timeoutMs} ms:\n${logTail(logFile)}`);
}

/** True when `pid` lives and `url` answers with `chainId`. */
export async function chainAnswers(url: string, chainId: number, pid?: number): Promise<boolean> {
  if (pid !== undefined && !isAlive(pid)) return false;
  try {
    return (await chainIdAt(url, 2_000)) === chainId;
  } catch {
    return false;
  }
}
