// Declared on-chain duties, end to end: a real devnet (the protocol's contracts, rounds passing
// every 10 s), its deployment ConfigMap in the real control plane, kwok pods served by node
// simulators that send real transactions from the accounts' keystores, and the Orchestrator and
// Gateway controllers asking those nodes to call reward, top up and set their commission when
// the chain says they should. Nobody but the operator touches the resources.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { JsonRpcProvider, parseEther, type Wallet } from "ethers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { gatewayController } from "../../src/controller/gateway/controller.ts";
import { orchestratorController } from "../../src/controller/orchestrator/controller.ts";
import type { Manager } from "../../src/controller/runtime/index.ts";
import { createNodePool, type NodePool } from "../../src/dev/cluster/fleet.ts";
import { defaultFleet } from "../../src/dev/cluster/nodes.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { ensureGatewaySdk, GATEWAY_DRIVER } from "../../src/dev/python/environment.ts";
import { type SimulatorFleet, startSimulatorFleet } from "../../src/dev/simulators.ts";
import { deployerWallet, roleWallet } from "../../src/devnet/accounts.ts";
import { contractAt } from "../../src/devnet/deploy.ts";
import { readDeployments } from "../../src/devnet/deployment-record.ts";
import { read } from "../../src/devnet/transact.ts";
import { type KubeObject, Pods } from "../../src/kube/index.ts";
import { ChainReads } from "../../src/node/chain/index.ts";
import type { StoredGateway } from "../../src/schema/gateway.ts";
import type { StoredOrchestrator } from "../../src/schema/orchestrator.ts";
import { Gateways } from "../../src/schema/resources.ts";
import { kubeClient, kubeConfig, kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";
import { type DevnetBed, startDevnetBed } from "./support/devnet-bed.ts";
import { eventsAbout } from "./support/events.ts";
import { FAST_DOCTOR, startTestManager } from "./support/manager.ts";
import { condition, orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();
let ns: Awaited<ReturnType<typeof testNamespace>>;
let manager: Manager;
let pool: NodePool;
let sims: SimulatorFleet;
let bed: DevnetBed;
let provider: JsonRpcProvider;
const simDir = mkdtempSync(path.join(tmpdir(), "duties-sims-"));
const simLog: string[] = [];
const controllerLog: string[] = [];
const chain = new ChainReads({ headTtlMs: 500, timeoutMs: 2_000 });

const account = (name: string) => bed.account(name);
const devnet = (...args: string[]) => bed.devnet(...args);

async function apply(object: object): Promise<void> {
  await kubectl(["apply", "--server-side", "--field-manager=test", "-f", "-"], JSON.stringify(object));
}

/** The account's keystore and password as the node mounts them. */
async function keystoreSecret(name: string): Promise<string> {
  const a = account(name);
  await apply({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: `ks-${name}`, namespace: ns.name },
    stringData: {
      "key.json": readFileSync(a.keystoreFile, "utf8"),
      password: readFileSync(a.passwordFile, "utf8"),
    },
  });
  return `ks-${name}`;
}

beforeAll(async () => {
  bed = await startDevnetBed("duties-it", [
    "--block-interval",
    "0.5",
    "--round-length",
    "20",
    "--orchestrators",
    "3",
  ]);
  provider = new JsonRpcProvider(bed.state.url, undefined, {
    staticNetwork: true,
    pollingInterval: 100,
    cacheTimeout: -1,
  });
  ns = await testNamespace("duties");
  await installCrds(kubectl);
  await apply(JSON.parse(await devnet("configmap", "--name", "dn", "--namespace", ns.name)) as object);
  pool = await createNodePool(kubeConfig(), `${ns.name}-cpu`, [
    defaultFleet.find((n) => n.name === "cpu-only")!,
  ]);
  sims = startSimulatorFleet(kubeConfig(), simDir, (l) => simLog.push(l), { namespace: ns.name });
  const doctor = FAST_DOCTOR;
  manager = await startTestManager(
    "duties-test",
    ns.name,
    [
      orchestratorController({ defaultImage: "livepeer/go-livepeer:test", chain, doctor }),
      gatewayController({ defaultImage: "livepeer/go-livepeer:test", chain, doctor }),
    ],
    controllerLog,
  );
});
afterEach((ctx) => {
  if (ctx.task.result?.state === "fail") {
    process.stderr.write(`${simLog.slice(-20).join("\n")}\n${controllerLog.slice(-40).join("\n")}\n`);
  }
  controllerLog.length = 0;
});
afterAll(async () => {
  await manager?.stop("tests done");
  await sims?.stop();
  await pool?.delete();
  await ns?.remove();
  provider?.destroy();
  await kc.close();
  await bed?.stop();
  rmSync(simDir, { recursive: true, force: true });
});

const fence = () => ({ nodeSelector: pool.nodeSelector, tolerations: pool.tolerations });
const orchestrators = orchestratorKit(
  client,
  () => ns.name,
  () => simLog.slice(-10).join("\n"),
);

async function onDevnet(name: string) {
  return {
    network: "devnet",
    devnet: "dn",
    keystoreSecret: await keystoreSecret(name),
    ethAcctAddr: account(name).address,
  };
}

async function applyOrchestrator(name: string, accountName: string, extra: Record<string, unknown> = {}) {
  await orchestrators.apply(name, { ...(await onDevnet(accountName)), pricePerUnit: "1000", ...extra }, pool);
}

const events = (regarding: string) => eventsAbout(client, ns.name, regarding);

async function untilEvent(regarding: string, reason: string, timeoutMs = 60_000) {
  await waitFor(
    `a ${reason} Event about ${regarding}`,
    async () => (await events(regarding)).some((e) => e.reason === reason),
    timeoutMs,
  );
}

/** Sends all but the gas of one transfer away: the account is left with 0 ETH. */
async function drainEth(wallet: Wallet): Promise<void> {
  const w = wallet.connect(provider);
  const balance = await provider.getBalance(w.address);
  const gasPrice = (await provider.getFeeData()).gasPrice!;
  const tx = await w.sendTransaction({
    to: deployerWallet().address,
    value: balance - 21_000n * gasPrice,
    gasLimit: 21_000n,
    gasPrice,
  });
  await tx.wait();
  expect(await provider.getBalance(w.address)).toBe(0n);
}

async function sendEth(to: string, eth: string): Promise<void> {
  const tx = await deployerWallet()
    .connect(provider)
    .sendTransaction({ to, value: parseEther(eth) });
  await tx.wait();
}

const rewardCurrent = (o: StoredOrchestrator) => condition(o, "RewardCurrent");
const findingIds = (o: { status?: { findings?: { id: string }[] } }) =>
  (o.status?.findings ?? []).map((f) => f.id);

describe("reward assurance on a devnet", () => {
  it("a round passes with the node not calling reward: the operator's call lands (calledBy operator)", async () => {
    await applyOrchestrator("orch-a", "orchestrator-0", { rewardAssurance: { deadline: 0.5 } });
    const o = await orchestrators.until(
      "orch-a",
      (x) => rewardCurrent(x)?.status === "True" && x.status?.reward?.calledBy === "operator",
      90_000,
    );
    expect(rewardCurrent(o)).toMatchObject({ reason: "RewardCalled" });
    expect(rewardCurrent(o)?.message).toMatch(/by the operator/);
    // The chain's own record, as the chain watch read it, is the round the operator called in.
    expect(o.status?.reward?.lastRound).toBe(o.status?.lastRewardRound);
    expect(o.status?.reward?.lastAttemptRound).toBe(o.status?.lastRewardRound);
    expect(o.status?.reward?.lastError).toBeUndefined();
    await untilEvent("orch-a", "RewardCalled");
  });

  it("on chain, an orchestrator quotes over gRPC/TLS only a signed asker with reserve: the controller asks with none, so it reads the node as reachable with no advertised price, and the SDK without a signer is refused alike", async () => {
    const o = await orchestrators.until(
      "orch-a",
      (x) =>
        condition(x, "NodeReachable")?.status === "True" &&
        (condition(x, "NodeReachable")?.message ?? "").includes("/net.Orchestrator/GetOrchestrator"),
      60_000,
    );
    // No price made up: the status says the spec's, as configured (what it quotes a funded
    // gateway is read from that gateway's node: chain-price.test.ts).
    expect(o.status).toMatchObject({ pricePerUnit: "1000", pixelsPerUnit: 1, priceSource: "configured" });
    expect(o.status?.quotes).toBeUndefined();

    const sdk = await ensureGatewaySdk(() => {});
    const pod = await client.get<KubeObject & { status?: { podIP?: string } }>(Pods, ns.name, "orch-a-0");
    const r = await sdk.run(GATEWAY_DRIVER, ["orch-info", "--url", `https://${pod.status?.podIP}:8935`], {
      timeoutMs: 60_000,
    });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(1);
    // The node's own words, through the SDK's error: an anonymous request fails the signature check
    // (a signer's funded address is the way: test/integration/remote-signer-sdk.test.ts).
    expect((JSON.parse(r.stdout) as { error: string }).error).toMatch(/orchestrator req sig check failed/);
  });

  it("a call the node cannot pay for (no gas) is RewardFailed with the node's answer; funded, it succeeds", async () => {
    await drainEth(roleWallet("orchestrator", 1));
    await applyOrchestrator("orch-b", "orchestrator-1", { rewardAssurance: { deadline: 0.5 } });
    let o = await orchestrators.until(
      "orch-b",
      (x) =>
        rewardCurrent(x)?.reason === "RewardFailed" &&
        /insufficient funds/.test(x.status?.reward?.lastError ?? ""),
      90_000,
    );
    expect(rewardCurrent(o)?.status).toBe("False");
    expect(rewardCurrent(o)?.message).toMatch(/round \d+ failed: Error calling reward: .*insufficient funds/);
    expect(o.status?.reward?.lastError).toMatch(/insufficient funds/);
    expect(findingIds(o)).toContain("RewardFailed");
    expect(findingIds(o)).toContain("WalletCannotPayDuty");
    await untilEvent("orch-b", "RewardFailed");
    expect(await manager.metrics.registry.metrics()).toContain(
      `livepeer_operator_findings{kind="Orchestrator",namespace="${ns.name}",name="orch-b",id="RewardFailed",severity="warning"} 1`,
    );

    await sendEth(account("orchestrator-1").address, "1");
    o = await orchestrators.until(
      "orch-b",
      (x) => rewardCurrent(x)?.status === "True" && x.status?.reward?.calledBy === "operator",
      90_000,
    );
    expect(o.status?.reward?.lastError).toBeUndefined();
    expect(findingIds(o)).not.toContain("RewardFailed");
  });

  it("an inactive orchestrator is left alone and says why", async () => {
    await devnet("unbond", "--account", "orchestrator-2");
    // Still active in the round it unbonded in; out of the active set from the next.
    await devnet("round");
    await applyOrchestrator("orch-c", "orchestrator-2", { rewardAssurance: { deadline: 0.5 } });
    const o = await orchestrators.until("orch-c", (x) => rewardCurrent(x)?.reason === "NotActive", 60_000);
    expect(rewardCurrent(o)?.status).toBe("Unknown");
    expect(rewardCurrent(o)?.message).toMatch(/not in the active set in round \d+.*leaves it alone/);
    // Two more rounds (forced, not waited for), seen by the operator: never asked.
    const round = o.status?.lastRewardRound;
    const seenIn = (x: StoredOrchestrator) =>
      Number(/active set in round (\d+)/.exec(rewardCurrent(x)?.message ?? "")?.[1] ?? 0);
    const first = seenIn(o);
    await devnet("round");
    await devnet("round");
    const later = await orchestrators.until("orch-c", (x) => seenIn(x) >= first + 2, 30_000);
    expect(rewardCurrent(later)?.reason).toBe("NotActive");
    expect(later.status?.reward?.lastAttemptRound).toBeUndefined();
    expect(later.status?.lastRewardRound).toBe(round);
    expect((await events("orch-c")).map((e) => e.reason)).not.toContain("RewardCalled");
  });
});

describe("declared on-chain settings on a devnet", () => {
  it("a reward cut changed on chain is OnchainSettingsDrift naming both values; with manage: true it is set back", async () => {
    // orch-a's operator calls reward each round; then its own node changes the cut (as livepeer_cli would).
    const pods = await client.list<KubeObject & { status?: { podIP?: string } }>(Pods, {
      namespace: ns.name,
      labelSelector: "app.kubernetes.io/instance=orch-a",
    });
    const ip = pods.items.find((p) => p.status?.podIP)?.status?.podIP;
    expect(ip).toBeTruthy();
    await waitFor(
      "orch-a's node to set reward cut 25 % (the protocol takes it once reward is called in the round)",
      async () => {
        const r = await fetch(`http://${ip}:7935/setOrchestratorConfig`, {
          method: "POST",
          body: new URLSearchParams({ blockRewardCut: "25", feeShare: "5" }),
        });
        return r.status === 200;
      },
      60_000,
    );
    await applyOrchestrator("orch-a", "orchestrator-0", {
      rewardAssurance: { deadline: 0.5 },
      onchain: { rewardCut: 10, feeShare: 5 },
    });
    let o = await orchestrators.until(
      "orch-a",
      (x) => findingIds(x).includes("OnchainSettingsDrift"),
      30_000,
    );
    const drift = o.status?.findings?.find((f) => f.id === "OnchainSettingsDrift");
    expect(drift?.severity).toBe("warning");
    expect(drift?.message).toContain("rewardCut on chain 25 %, spec 10 %");
    expect(drift?.message).not.toContain("feeShare");

    await applyOrchestrator("orch-a", "orchestrator-0", {
      rewardAssurance: { deadline: 0.5 },
      onchain: { rewardCut: 10, feeShare: 5, manage: true },
    });
    o = await orchestrators.until("orch-a", (x) => !findingIds(x).includes("OnchainSettingsDrift"), 60_000);
    expect(o.status?.onchain?.lastSetRound).toBeGreaterThan(0);
    expect(o.status?.onchain?.lastError).toBeUndefined();
    // The chain says so, not only the status.
    const bonding = contractAt(
      readDeployments(path.join(bed.dir, "deployments", "devnet"))!,
      "BondingManager",
      provider,
    );
    const t = await read<{ rewardCut: bigint; feeShare: bigint }>(
      bonding,
      "getTranscoder",
      account("orchestrator-0").address,
    );
    expect([t.rewardCut, t.feeShare]).toEqual([100_000n, 50_000n]);
  });
});

describe("the funding guard on a devnet", () => {
  const readGateway = (name: string) => client.get<StoredGateway>(Gateways, ns.name, name);
  async function untilGateway(name: string, ok: (g: StoredGateway) => boolean, timeoutMs = 60_000) {
    let last: StoredGateway | undefined;
    await waitFor(
      `Gateway ${name}`,
      async () => {
        last = await readGateway(name).catch(() => undefined);
        return !!last && ok(last);
      },
      timeoutMs,
      () => `${JSON.stringify(last?.status, null, 1)}\n${simLog.slice(-10).join("\n")}`,
    );
    return last!;
  }
  const funded = (g: StoredGateway) => g.status?.conditions?.find((c) => c.type === "Funded");

  it("drained below its minimum, a gateway is topped up once; a second shortfall beyond the cap is Funded=False with no transaction", async () => {
    await apply({
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Gateway",
      metadata: { name: "gw", namespace: ns.name },
      spec: {
        ...(await onDevnet("gateway-0")),
        orchestrators: { addresses: ["127.0.0.1:8935"] },
        funding: { minDeposit: "1", minReserve: "1", topUpDeposit: "2", topUpReserve: "1.5", maxPerDay: "5" },
        podTemplate: fence(),
      },
    });
    await untilGateway("gw", (g) => funded(g)?.status === "True" && g.status?.deposit === "10");

    expect(await devnet("drain", "--account", "gateway-0")).toMatch(/withdrew/);
    let g = await untilGateway("gw", (x) => x.status?.deposit === "2" && x.status?.reserve === "1.5", 60_000);
    expect(g.status?.funding?.topUps).toHaveLength(1);
    expect(g.status?.funding?.topUps?.[0]).toMatchObject({
      deposit: "2",
      reserve: "1.5",
      shortfall: "deposit 0 ETH, reserve 0 ETH",
    });
    await untilEvent("gw", "ToppedUp");
    g = await untilGateway("gw", (x) => funded(x)?.status === "True");

    // Again: another 3.5 ETH would make 7 in 24 hours, above the cap of 5.
    expect(await devnet("drain", "--account", "gateway-0")).toMatch(/withdrew/);
    g = await untilGateway("gw", (x) => funded(x)?.reason === "TopUpCapped", 60_000);
    expect(funded(g)?.status).toBe("False");
    expect(funded(g)?.message).toContain(
      "a top-up of 3.5 ETH would bring the last 24 hours to 7 ETH, above funding.maxPerDay 5 ETH (3.5 ETH already added): no transaction sent",
    );
    expect(findingIds(g)).toContain("TopUpCapped");
    await untilEvent("gw", "TopUpCapped");
    // No transaction: three reconciles later (each reads the chain and decides again; the only
    // Gateway here is this one) it is still empty, with one top-up on record.
    const before = await provider.getTransactionCount(account("gateway-0").address);
    const gatewayReconciles = async () =>
      (await manager.metrics.reconcileTotal.get()).values
        .filter((v) => v.labels.controller === "gateway")
        .reduce((n, v) => n + v.value, 0);
    const seen = await gatewayReconciles();
    await waitFor(
      "three more reconciles of the gateway",
      async () => (await gatewayReconciles()) >= seen + 3,
      60_000,
      () => controllerLog.slice(-20).join("\n"),
    );
    g = (await readGateway("gw"))!;
    expect(g.status).toMatchObject({ deposit: "0", reserve: "0" });
    expect(g.status?.funding?.topUps).toHaveLength(1);
    expect(await provider.getTransactionCount(account("gateway-0").address)).toBe(before);
  });
});
