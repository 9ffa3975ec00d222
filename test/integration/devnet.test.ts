// The local testnet end to end, through the real CLI as a child process: `devnet up` on a fresh
// directory (cold), again (warm, reused), `status`, `deposit`, `service-uri`, `down`. A real
// hardhat chain on a free loopback port in a temp directory; no Kubernetes involved.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Contract, getAddress, JsonRpcProvider, parseEther, Wallet, ZeroAddress } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractId } from "../../src/devnet/contract-id.ts";
import { UNREGISTERED_CONTRACTS } from "../../src/devnet/deployment-record.ts";
import { freePort, isAlive, isPortListening, stopPid } from "../../src/devnet/processes.ts";
import type { DevnetState } from "../../src/devnet/state.ts";
import type { DevnetStatus } from "../../src/devnet/status.ts";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cliMain = path.join(repo, "src/cli/main.ts");

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `livepeer-operator <args>` with this Node; stdin is not a terminal. */
function cli(args: string[]): Promise<CliResult> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliMain, ...args], {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr, ms: performance.now() - t0 }));
  });
}

let dir: string;
let port: number;
let state: DevnetState;
let provider: JsonRpcProvider;
const timings: Record<string, number> = {};

function abiOf(name: string): Contract {
  const file = path.join(dir, "deployments", "devnet", `${name}.json`);
  const { address, abi } = JSON.parse(readFileSync(file, "utf8")) as { address: string; abi: [] };
  return new Contract(address, abi, provider);
}

const account = (name: string) => state.accounts.find((a) => a.name === name)!;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "devnet-it-"));
  port = await freePort();
});

afterAll(async () => {
  provider?.destroy();
  // Whatever a failed test left behind: stop the chain by its recorded pid, then remove the directory.
  const pidFile = path.join(dir, ".devnet", "chain.pid");
  if (existsSync(pidFile)) await stopPid(Number(readFileSync(pidFile, "utf8")));
  if (state?.pid && isAlive(state.pid)) await stopPid(state.pid);
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(
    `[devnet] time to a ready devnet: cold ${(timings.cold! / 1000).toFixed(2)} s (fresh directory), warm ${(timings.warm! / 1000).toFixed(2)} s (second up, reused); CLI process wall time\n`,
  );
});

describe("livepeer-operator devnet", () => {
  it("up on a fresh directory starts a chain, deploys the protocol and prepares the accounts", async () => {
    const up = await cli(["devnet", "up", "--port", String(port), "--dir", dir, "--json"]);
    timings.cold = up.ms;
    expect(up.code, up.stderr).toBe(0);
    state = JSON.parse(up.stdout) as DevnetState;
    expect(state.url).toBe(`http://127.0.0.1:${port}`);
    expect(state.reused).toBe(false);
    expect(isAlive(state.pid)).toBe(true);
    // Each step named with its duration, on stderr.
    expect(up.stderr).toMatch(/\[devnet\] deploy BondingManager .*\(\d+\.\d\d s\)/);
    expect(up.stderr).toMatch(/\[devnet\] activate orchestrators: .*round \d+/);
    provider = new JsonRpcProvider(state.url, undefined, { staticNetwork: true, cacheTimeout: -1 });

    const rounds = abiOf("RoundsManager");
    expect(await rounds.getFunction("currentRound")()).toBeGreaterThan(0n);
    expect(await rounds.getFunction("currentRoundInitialized")()).toBe(true);

    const gateway = account("gateway-0");
    const info = await abiOf("TicketBroker").getFunction("getSenderInfo")(gateway.address);
    expect(info.sender.deposit).toBe(parseEther("10"));
    expect(info.reserve.fundsRemaining).toBe(parseEther("10"));

    for (const [i, name] of ["orchestrator-0", "orchestrator-1"].entries()) {
      const orch = account(name);
      expect(await abiOf("ServiceRegistry").getFunction("getServiceURI")(orch.address)).toBe(
        `https://127.0.0.1:${8935 + i}`,
      );
      expect(await abiOf("BondingManager").getFunction("isActiveTranscoder")(orch.address)).toBe(true);
      const delegator = await abiOf("BondingManager").getFunction("getDelegator")(orch.address);
      expect(delegator.delegateAddress).toBe(orch.address);
      expect(delegator.bondedAmount).toBe(parseEther("1000"));
    }
  });

  it("deployments/devnet is complete and consistent with the chain", async () => {
    const deploymentsDir = path.join(dir, "deployments", "devnet");
    const names = readdirSync(deploymentsDir)
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.slice(0, -5));
    for (const required of [
      "Controller",
      "BondingManager",
      "RoundsManager",
      "Minter",
      "TicketBroker",
      "Governor",
      "ServiceRegistry",
      "LivepeerToken",
    ]) {
      expect(names).toContain(required);
    }
    expect(Number(readFileSync(path.join(deploymentsDir, ".chainId"), "utf8"))).toBe(state.chainId);
    const controller = abiOf("Controller");
    expect(await controller.getFunction("paused")()).toBe(false);
    for (const name of names) {
      const { address } = JSON.parse(readFileSync(path.join(deploymentsDir, `${name}.json`), "utf8")) as {
        address: string;
      };
      expect(address).toBe(state.contracts[name]);
      if (name !== "SortedDoublyLL") expect(await provider.getCode(address), name).not.toBe("0x");
      if ((UNREGISTERED_CONTRACTS as readonly string[]).includes(name)) continue;
      expect(await controller.getFunction("getContract")(contractId(name)), name).toBe(address);
    }
    // Managers behind a proxy: the proxy's address, the target's ABI, the proxy pointing at <Name>Target.
    for (const name of ["BondingManager", "RoundsManager", "TicketBroker", "ServiceRegistry"]) {
      const proxy = abiOf(name);
      expect(await proxy.getFunction("targetContractId")()).toBe(contractId(`${name}Target`));
      expect(await controller.getFunction("getContract")(contractId(`${name}Target`))).not.toBe(ZeroAddress);
    }
  });

  it("every account has a keystore that decrypts with its password file (no trailing newline)", async () => {
    expect(state.accounts.map((a) => a.name)).toEqual(["orchestrator-0", "orchestrator-1", "gateway-0"]);
    for (const a of state.accounts) {
      const accountDir = path.join(dir, ".devnet", "accounts", a.name);
      expect(a.passwordFile).toBe(path.join(accountDir, "password"));
      expect(path.dirname(a.keystoreFile)).toBe(path.join(accountDir, "keystore"));
      expect(path.basename(a.keystoreFile)).toMatch(
        new RegExp(`^UTC--.+--${a.address.slice(2).toLowerCase()}$`),
      );
      const password = readFileSync(a.passwordFile, "utf8");
      expect(password).not.toMatch(/[\r\n]$/);
      const wallet = await Wallet.fromEncryptedJson(readFileSync(a.keystoreFile, "utf8"), password);
      expect(wallet.address).toBe(getAddress(a.address));
    }
  });

  it("a second up finds the running devnet and reuses it without sending anything", async () => {
    const blockBefore = await provider.getBlockNumber();
    const again = await cli(["devnet", "up", "--dir", dir, "--json"]);
    timings.warm = again.ms;
    expect(again.code, again.stderr).toBe(0);
    const reused = JSON.parse(again.stdout) as DevnetState;
    expect(reused.reused).toBe(true);
    expect(reused.pid).toBe(state.pid);
    expect(reused.contracts).toEqual(state.contracts);
    expect(again.stderr).toMatch(/reusing it/);
    expect(again.stderr).toMatch(/already set up, reused/);
    expect(await provider.getBlockNumber()).toBe(blockBefore);
  });

  it("status reports chain, contracts and accounts as JSON", async () => {
    const status = await cli(["devnet", "status", "--dir", dir, "--json"]);
    expect(status.code, status.stderr).toBe(0);
    const s = JSON.parse(status.stdout) as DevnetStatus;
    expect(s).toMatchObject({ running: true, chainId: state.chainId, pid: state.pid, problems: [] });
    expect(s.contracts.Controller).toBe(state.contracts.Controller);
    const orch = s.accounts.find((a) => a.name === "orchestrator-0")!;
    expect(orch).toMatchObject({
      activeTranscoder: true,
      bondedStake: "1000.0",
      serviceURI: "https://127.0.0.1:8935",
    });
    expect(Number(orch.ethBalance)).toBeGreaterThan(99);
    expect(s.accounts.find((a) => a.name === "gateway-0")).toMatchObject({
      deposit: "10.0",
      reserve: "10.0",
    });
    const text = await cli(["devnet", "status", "--dir", dir]);
    expect(text.stdout).toMatch(/chain id 1337, block \d+, round \d+/);
  });

  it("deposit adds exactly the amounts asked to the gateway's deposit and reserve", async () => {
    const gateway = account("gateway-0");
    const broker = abiOf("TicketBroker");
    const before = await broker.getFunction("getSenderInfo")(gateway.address);
    const run = await cli([
      "deposit",
      "--dir",
      dir,
      "--account",
      "gateway-0",
      "--deposit",
      "1.5",
      "--reserve",
      "0.25",
      "--yes",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/now has deposit 11\.5 ETH, reserve 10\.25 ETH/);
    const after = await broker.getFunction("getSenderInfo")(gateway.address);
    expect(after.sender.deposit - before.sender.deposit).toBe(parseEther("1.5"));
    expect(after.reserve.fundsRemaining - before.reserve.fundsRemaining).toBe(parseEther("0.25"));
  });

  it("deposit --dry-run prints the transaction and sends nothing", async () => {
    const blockBefore = await provider.getBlockNumber();
    const run = await cli([
      "deposit",
      "--dir",
      dir,
      "--account",
      "gateway-0",
      "--deposit",
      "1",
      "--reserve",
      "1",
      "--dry-run",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/fundDepositAndReserve\(deposit 1\.0 ETH, reserve 1\.0 ETH\)/);
    expect(run.stdout).toMatch(/value {6}2\.0 ETH/);
    expect(await provider.getBlockNumber()).toBe(blockBefore);
  });

  /** Runs `deposit` cases at once; each must fail with its exit code and message, sending nothing. */
  async function expectRefusals(cases: [string[], number, RegExp][]): Promise<void> {
    const blockBefore = await provider.getBlockNumber();
    const results = await Promise.all(cases.map(([args]) => cli(["deposit", "--dir", dir, ...args])));
    for (const [i, r] of results.entries()) {
      const [args, code, message] = cases[i]!;
      expect(r.code, `deposit ${args.join(" ")}: ${r.stderr}`).toBe(code);
      expect(r.stderr).toMatch(message);
    }
    expect(await provider.getBlockNumber()).toBe(blockBefore);
  }
  const gw = ["--account", "gateway-0"];
  const amounts = ["--deposit", "1", "--reserve", "1", "--yes"];

  it("deposit refuses negative or garbage amounts, too little ETH, and a missing --yes without a terminal", async () => {
    await expectRefusals([
      [[...gw, "--deposit", "-1", "--reserve", "1", "--yes"], 2, /'-1' is negative/],
      [[...gw, "--deposit", "abc", "--reserve", "1", "--yes"], 2, /'abc' is not a number/],
      [[...gw, "--deposit", "1,5", "--reserve", "1", "--yes"], 2, /write 1\.5/],
      [[...gw, "--deposit", "1e18", "--reserve", "1", "--yes"], 2, /exponent/],
      [[...gw, "--deposit", "1", "--reserve", "1"], 2, /stdin is not a terminal.*--yes/],
      [[...gw, "--deposit", "100000", "--reserve", "0", "--yes"], 1, /insufficient funds.*has [\d.]+ ETH/],
    ]);
  });

  it("deposit refuses a wrong password and a password file with a trailing newline", async () => {
    const keystore = path.join(dir, ".devnet", "accounts", "gateway-0");
    const wrong = path.join(dir, "wrong-password");
    const withNewline = path.join(dir, "password-newline");
    writeFileSync(wrong, "not-the-password");
    writeFileSync(withNewline, `${readFileSync(account("gateway-0").passwordFile, "utf8")}\n`);
    await expectRefusals([
      [
        ["--keystore", keystore, "--password-file", wrong, ...amounts],
        1,
        /cannot unlock keystore .* wrong password/,
      ],
      [["--keystore", keystore, "--password-file", withNewline, ...amounts], 1, /ends with a newline/],
    ]);
  });

  it("deposit names a wrong network and an unreachable RPC", async () => {
    // A deployment recorded for another chain id, and a Controller address with no code.
    const otherChain = path.join(dir, "other-chain-deployments");
    cpSync(path.join(dir, "deployments", "devnet"), otherChain, { recursive: true });
    writeFileSync(path.join(otherChain, ".chainId"), "42161");
    const closed = await freePort();
    await expectRefusals([
      [
        [...gw, "--deployments", otherChain, ...amounts],
        1,
        /wrong network: .* chain 42161, but .* is chain 1337/,
      ],
      [
        [...gw, "--controller", `0x${"ab".repeat(20)}`, ...amounts],
        1,
        /wrong network\? no contract code at Controller/,
      ],
      [
        [...gw, "--eth-url", `http://127.0.0.1:${closed}`, ...amounts],
        1,
        new RegExp(`cannot reach the chain's JSON-RPC at http://127\\.0\\.0\\.1:${closed}`),
      ],
    ]);
  });

  it("service-uri set changes the on-chain URI and get reads it back; a bad URI is refused", async () => {
    const set = await cli([
      "service-uri",
      "set",
      "https://10.1.2.3:9935",
      "--dir",
      dir,
      "--account",
      "orchestrator-1",
      "--yes",
    ]);
    expect(set.code, set.stderr).toBe(0);
    const orch = account("orchestrator-1");
    expect(await abiOf("ServiceRegistry").getFunction("getServiceURI")(orch.address)).toBe(
      "https://10.1.2.3:9935",
    );
    const get = await cli(["service-uri", "get", "--dir", dir, "--address", orch.address]);
    expect(get.stdout.trim()).toBe("https://10.1.2.3:9935");
    const bad = await cli([
      "service-uri",
      "set",
      "http://10.1.2.3:9935",
      "--dir",
      dir,
      "--account",
      "orchestrator-1",
      "--yes",
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/over https/);
    const noYes = await cli([
      "service-uri",
      "set",
      "https://10.1.2.3:1",
      "--dir",
      dir,
      "--account",
      "orchestrator-1",
    ]);
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toMatch(/stdin is not a terminal/);
  });

  it("down stops the chain and leaves nothing running; the deployment files stay", async () => {
    provider.destroy();
    const down = await cli(["devnet", "down", "--dir", dir]);
    expect(down.code, down.stderr).toBe(0);
    expect(down.stderr).toContain(`stopped the chain (pid ${state.pid})`);
    expect(isAlive(state.pid)).toBe(false);
    expect(await isPortListening(port)).toBe(false);
    expect(existsSync(path.join(dir, ".devnet", "chain.pid"))).toBe(false);
    expect(existsSync(path.join(dir, "deployments", "devnet", "Controller.json"))).toBe(true);
    const status = await cli(["devnet", "status", "--dir", dir]);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/not running/);
  });
});
