// Chain truth against the real dev chain with the real protocol contracts: a devnet that moves
// (the round ticker: a block every 250 ms, a round every 8 blocks), changed through the real CLI
// (`devnet drain|reward|unbond|service-uri|round|pause|resume`, `deposit`), and judged by the
// same checkNodeChain the controller runs (and `livepeer-operator doctor`, tested here too).
// No Kubernetes involved.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive, stopPid } from "../../src/devnet/processes.ts";
import type { DevnetState } from "../../src/devnet/state.ts";
import type { DevnetStatus } from "../../src/devnet/status.ts";
import {
  type ChainPolicy,
  ChainReads,
  checkNodeChain,
  DEFAULT_CHAIN_POLICY,
  type NodeChainCheck,
  type NodeChainTarget,
} from "../../src/node/chain/index.ts";
import { cli } from "./support/cli.ts";
import { type DevnetBed, startDevnetBed } from "./support/devnet-bed.ts";

const BLOCK_MS = 250;
const ROUND_BLOCKS = 8;

let bed: DevnetBed;
let dir: string;
let state: DevnetState;
// Every check reads afresh (no head reuse), so what the chain just did shows at once.
const reads = new ChainReads({ headTtlMs: 0, timeoutMs: 1_000 });
const policy: ChainPolicy = { ...DEFAULT_CHAIN_POLICY, rewardGraceFraction: 0, staleAfterMs: 2_000 };

const account = (name: string) => state.accounts.find((a) => a.name === name)!;

function target(name: string, extra: Partial<NodeChainTarget> = {}): NodeChainTarget {
  const a = account(name);
  return {
    role: a.role,
    network: "devnet",
    ethUrl: state.url,
    address: a.address,
    controller: state.contracts.Controller,
    chainId: state.chainId,
    secondsPerRoundBlock: BLOCK_MS / 1000,
    ...extra,
  };
}

const check = (t: NodeChainTarget) => checkNodeChain(reads, t, policy);
const reasons = (c: NodeChainCheck) => Object.fromEntries(c.conditions.map((x) => [x.type, x.reason]));
const ids = (c: NodeChainCheck) => c.findings.map((f) => f.id);

/** Checks until `ok` holds (the chain moves on its own), failing with the last check. */
async function until(t: NodeChainTarget, ok: (c: NodeChainCheck) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  let last = await check(t);
  while (!ok(last)) {
    if (Date.now() > deadline)
      throw new Error(
        `not reached in ${timeoutMs} ms; last: ${JSON.stringify(last.conditions)} ${ids(last)}`,
      );
    await new Promise((r) => setTimeout(r, 100));
    last = await check(t);
  }
  return last;
}

const devnet = (...args: string[]) => bed.devnet(...args);

/** `devnet up` on the running devnet starts its ticker again. */
async function restartTicker(): Promise<void> {
  state = await bed.up(["--block-interval", String(BLOCK_MS / 1000)]);
  expect(state.reused).toBe(true);
  expect(isAlive(state.ticker!.pid)).toBe(true);
}

beforeAll(async () => {
  bed = await startDevnetBed("chain-it", [
    "--block-interval",
    String(BLOCK_MS / 1000),
    "--round-length",
    String(ROUND_BLOCKS),
  ]);
  ({ dir, state } = bed);
  expect(state.ticker?.pid).toBeGreaterThan(0);
});

// Whatever a failed test left behind: a paused chain resumed, the ticker and chain stopped.
afterAll(() => bed?.stop());

describe("chain truth on a moving devnet", () => {
  it("rounds pass on their own: the ticker mines a block every interval and initializes each round", async () => {
    const first = await check(target("gateway-0"));
    const next = await until(
      target("gateway-0"),
      (c) => (c.facts.currentRound ?? 0) > first.facts.currentRound!,
    );
    expect(next.facts.blockNumber).toBeGreaterThan(first.facts.blockNumber!);
    expect(reasons(next).ChainHealthy).toBe("RPCHealthy");
    const status = JSON.parse(await devnet("status", "--json")) as DevnetStatus;
    expect(status.ticker).toEqual({
      pid: state.ticker!.pid,
      blockIntervalMs: BLOCK_MS,
      roundLength: ROUND_BLOCKS,
    });
  });

  it("a gateway with deposit and reserve is Funded; drained it is not (an error); funded again it is", async () => {
    const gw = target("gateway-0");
    const funded = await check(gw);
    expect(reasons(funded)).toEqual({ ChainHealthy: "RPCHealthy", Funded: "DepositAndReserve" });
    expect(funded.facts).toMatchObject({ deposit: "10", reserve: "10" });

    expect(await devnet("drain", "--account", "gateway-0")).toMatch(/withdrew 20\.0 ETH/);
    const drained = await check(gw);
    expect(drained.conditions[1]).toMatchObject({ status: "False", reason: "NoDeposit", severity: "error" });
    expect(drained.conditions[1]?.message).toMatch(
      /deposit 0 ETH, reserve 0 ETH: with deposit and reserve at 0/,
    );
    expect(drained.findings.map((f) => [f.id, f.severity])).toEqual([["GatewayUnfunded", "error"]]);
    expect(drained.facts).toMatchObject({ deposit: "0", reserve: "0" });

    // The doctor says the same from the command line, and exits 1 on the error.
    const doctor = await cli([
      "doctor",
      "--eth-url",
      state.url,
      "--deployments",
      path.join(dir, "deployments", "devnet"),
      "--address",
      gw.address,
      "--role",
      "gateway",
      "--json",
    ]);
    expect(doctor.code, doctor.stderr).toBe(1);
    const json = JSON.parse(doctor.stdout) as {
      conditions: { reason: string }[];
      findings: { id: string }[];
    };
    expect(json.conditions.map((c) => c.reason)).toEqual(["RPCHealthy", "NoDeposit"]);
    expect(json.findings.map((f) => f.id)).toEqual(["GatewayUnfunded"]);

    const deposit = await cli([
      "deposit",
      "--dir",
      dir,
      "--account",
      "gateway-0",
      "--deposit",
      "1",
      "--reserve",
      "0.5",
      "--yes",
    ]);
    expect(deposit.code, deposit.stderr).toBe(0);
    const refunded = await check(gw);
    expect(reasons(refunded).Funded).toBe("DepositAndReserve");
    expect(refunded.facts).toMatchObject({ deposit: "1", reserve: "0.5" });
    expect(refunded.findings).toEqual([]);
  });

  it("a round that passes without a reward call shows RewardNotCalled with the round's end block; a reward call clears it", async () => {
    const orch = target("orchestrator-0", { serviceAddr: "127.0.0.1:8935" });
    // Never called yet: the finding is there from the start (no grace in this policy).
    const before = await until(orch, (c) => ids(c).includes("RewardNotCalled"));
    expect(before.findings.find((f) => f.id === "RewardNotCalled")?.message).toMatch(
      /has not called reward in round \d+ \(never called before\); the round ends at block \d+, after which/,
    );
    // Rounds stand still while the reward is called and checked (a round is only 2 s here).
    await stopPid(state.ticker!.pid);
    const called = await devnet("reward", "--account", "orchestrator-0");
    const round = Number(/called reward in round (\d+)/.exec(called)?.[1]);
    const rewarded = await check(orch);
    expect(rewarded.facts).toMatchObject({ currentRound: round, lastRewardRound: round });
    expect(ids(rewarded)).not.toContain("RewardNotCalled");
    // The ticker again: the next round passes without a call.
    await restartTicker();
    const missed = await until(orch, (c) => (c.facts.currentRound ?? 0) > round);
    expect(ids(missed)).toContain("RewardNotCalled");
    expect(missed.findings.find((f) => f.id === "RewardNotCalled")?.message).toContain(
      `last called in round ${round}`,
    );
  });

  it("an orchestrator whose on-chain URI is its service address is Registered; changed on chain it is ServiceURIMismatch", async () => {
    const orch = target("orchestrator-0", { serviceAddr: "127.0.0.1:8935" });
    const matching = await check(orch);
    expect(matching.conditions[1]).toMatchObject({ status: "True", reason: "ServiceURIMatches" });
    expect(matching.facts.serviceURI).toBe("https://127.0.0.1:8935");

    await devnet("service-uri", "https://10.20.30.40:8935", "--account", "orchestrator-0");
    const changed = await check(orch);
    expect(changed.conditions[1]).toMatchObject({
      status: "False",
      reason: "ServiceURIMismatch",
      severity: "warning",
    });
    expect(changed.conditions[1]?.message).toContain("https://10.20.30.40:8935");
    expect(changed.conditions[1]?.message).toContain("127.0.0.1:8935");
    expect(ids(changed)).toContain("ServiceURIMismatch");
    expect(changed.facts.serviceURI).toBe("https://10.20.30.40:8935");
  });

  it("doctor prints the conditions, facts and findings of an orchestrator, and refuses bad usage", async () => {
    const deployments = path.join(dir, "deployments", "devnet");
    const orch = account("orchestrator-0");
    const text = await cli([
      "doctor",
      "--eth-url",
      state.url,
      "--deployments",
      deployments,
      "--address",
      orch.address.toLowerCase(),
      "--service-addr",
      "127.0.0.1:8935",
      "--block-time",
      "0.25",
    ]);
    // The URI changed on chain above: a warning, so exit 0.
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`Chain check of orchestrator ${orch.address} on devnet via ${state.url}`);
    expect(text.stdout).toMatch(/ChainHealthy +True +RPCHealthy/);
    expect(text.stdout).toMatch(/Registered +False +ServiceURIMismatch/);
    expect(text.stdout).toMatch(
      /Facts: chain 1337, block \d+, round \d+ \(\d+ blocks, about [\d.]+ s left\), service URI https:\/\/10\.20\.30\.40:8935/,
    );
    expect(text.stdout).toMatch(
      /WARNING +ServiceURIMismatch\n {2}Found: {4}.*\n {2}Meaning: .*\n {2}Action: /,
    );
    expect(text.stdout).toMatch(/0 errors, \d+ warnings?\.\n$/);
    const bad = await Promise.all([
      cli(["doctor", "--address", orch.address]),
      cli(["doctor", "--eth-url", state.url, "--address", "0x1234"]),
      cli(["doctor", "--eth-url", state.url, "--address", orch.address, "--role", "transcoder"]),
      cli(["doctor", "--eth-url", "ftp://x", "--address", orch.address, "--deployments", deployments]),
    ]);
    expect(bad.map((r) => r.code)).toEqual([2, 2, 2, 2]);
    expect(bad[0]?.stderr).toMatch(/--eth-url URL/);
    expect(bad[1]?.stderr).toMatch(/'0x1234' is not an account address/);
    expect(bad[2]?.stderr).toMatch(/give orchestrator or gateway/);
    expect(bad[3]?.stderr).toMatch(/has scheme ftp/);
  });

  it("an orchestrator that unbonds everything leaves the active set from the next round", async () => {
    const orch = target("orchestrator-1", { serviceAddr: "127.0.0.1:8936" });
    expect((await check(orch)).facts.activeSet).toBe(true);
    const unbonded = await devnet("unbond", "--account", "orchestrator-1");
    const leaves = Number(/leaves the active set in round (\d+)/.exec(unbonded)?.[1]);
    expect(await devnet("round")).toMatch(/round \d+ started and initialized/);
    const out = await check(orch);
    expect(out.facts.currentRound).toBeGreaterThanOrEqual(leaves);
    expect(out.facts.activeSet).toBe(false);
    expect(ids(out)).toEqual(["NotRegistered", "NotInActiveSet"]);
    expect(out.findings.find((f) => f.id === "NotInActiveSet")?.message).toMatch(
      /is not in the active set in round \d+: its stake is 0 LPT; the pool has room \(1 of 50\)/,
    );
    expect(out.conditions[1]).toMatchObject({ reason: "NotRegistered", severity: "error" });
  });

  it("a chain whose blocks stop goes RPCStale (a warning); restarting the ticker recovers it", async () => {
    const gw = target("gateway-0");
    await stopPid(state.ticker!.pid);
    const stale = await until(gw, (c) => reasons(c).ChainHealthy === "RPCStale", 10_000);
    expect(stale.conditions[0]).toMatchObject({ status: "False", severity: "warning" });
    expect(stale.conditions[0]?.message).toMatch(
      /block \d+ (was mined at \S+|has been the head since \S+) \(stale after 2 s\)/,
    );
    expect(ids(stale)).toEqual(["RPCStale"]);

    await restartTicker();
    await until(gw, (c) => reasons(c).ChainHealthy === "RPCHealthy", 10_000);
  });

  it("a paused chain is RPCUnreachable (an error) and recovers when resumed; a closed port too", async () => {
    const gw = target("gateway-0");
    await devnet("pause");
    const paused = await check(gw);
    expect(paused.conditions[0]).toMatchObject({
      status: "False",
      reason: "RPCUnreachable",
      severity: "error",
    });
    expect(paused.conditions[0]?.message).toMatch(/did not answer within 1000 ms/);
    expect(paused.conditions[1]).toMatchObject({ status: "Unknown", reason: "ChainNotRead" });
    expect(ids(paused)).toEqual(["EthereumUnreachable"]);

    await devnet("resume");
    expect(reasons(await check(gw)).ChainHealthy).toBe("RPCHealthy");

    await devnet("down");
    const closed = await check(gw);
    expect(closed.conditions[0]).toMatchObject({ reason: "RPCUnreachable" });
    expect(closed.conditions[0]?.message).toMatch(/connection refused/);
  });
});
