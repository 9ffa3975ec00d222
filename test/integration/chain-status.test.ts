// Chain truth in status, end to end: a real devnet (the protocol's contracts, a round ticker),
// its deployment ConfigMap in the real control plane, and the Orchestrator and Gateway
// controllers sharing one ChainReads. What the chain does (`devnet drain`, `service-uri`,
// `reward`, `unbond`, `round`, `pause`/`resume`) shows in the resources' conditions, findings,
// facts, Events and the findings gauge without anyone touching them.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { gatewayController } from "../../src/controller/gateway/controller.ts";
import { orchestratorController } from "../../src/controller/orchestrator/controller.ts";
import type { Manager } from "../../src/controller/runtime/index.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { ChainReads } from "../../src/node/chain/index.ts";
import type { StoredGateway } from "../../src/schema/gateway.ts";
import { Gateways } from "../../src/schema/resources.ts";
import { cli } from "./support/cli.ts";
import { kubeClient, kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";
import { type DevnetBed, startDevnetBed } from "./support/devnet-bed.ts";
import { eventsAbout } from "./support/events.ts";
import { FAST_DOCTOR, startTestManager } from "./support/manager.ts";
import { condition, orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();
let ns: Awaited<ReturnType<typeof testNamespace>>;
let manager: Manager;
let bed: DevnetBed;
const controllerLog: string[] = [];
// Shared by both controllers, as in `livepeer-operator controller`; heads reused briefly.
const chain = new ChainReads({ headTtlMs: 500, timeoutMs: 2_000 });

const account = (name: string) => bed.account(name);
const devnet = (...args: string[]) => bed.devnet(...args);

async function apply(object: object): Promise<void> {
  await kubectl(["apply", "--server-side", "--field-manager=test", "-f", "-"], JSON.stringify(object));
}

beforeAll(async () => {
  bed = await startDevnetBed("chain-status-it", ["--block-interval", "0.5"]);
  ns = await testNamespace("chain-status");
  await installCrds(kubectl);
  await apply(JSON.parse(await devnet("configmap", "--name", "dn", "--namespace", ns.name)) as object);
  await apply({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "ks", namespace: ns.name },
    stringData: { "key.json": "{}", password: "dev" },
  });
  const doctor = FAST_DOCTOR;
  manager = await startTestManager(
    "chain-status-test",
    ns.name,
    [
      orchestratorController({ defaultImage: "livepeer/go-livepeer:test", chain, doctor }),
      gatewayController({ defaultImage: "livepeer/go-livepeer:test", chain, doctor }),
    ],
    controllerLog,
  );
});
afterEach((ctx) => {
  if (ctx.task.result?.state === "fail") process.stderr.write(`${controllerLog.slice(-40).join("\n")}\n`);
  controllerLog.length = 0;
});
afterAll(async () => {
  await manager?.stop("tests done");
  await ns?.remove();
  await kc.close();
  await bed?.stop();
});

const onDevnet = (name: string) => ({
  network: "devnet",
  devnet: "dn",
  keystoreSecret: "ks",
  ethAcctAddr: account(name).address,
});

const gwCondition = (g: StoredGateway | undefined, type: string) =>
  g?.status?.conditions?.find((c) => c.type === type);
const readGateway = (name: string) => client.get<StoredGateway>(Gateways, ns.name, name);
async function untilGateway(name: string, ok: (g: StoredGateway) => boolean, timeoutMs = 30_000) {
  let last: StoredGateway | undefined;
  await waitFor(
    `Gateway ${name}`,
    async () => {
      last = await readGateway(name).catch(() => undefined);
      return !!last && ok(last);
    },
    timeoutMs,
    () => JSON.stringify(last?.status, null, 1),
  );
  return last!;
}

const events = (regarding: string) => eventsAbout(client, ns.name, regarding);

describe("chain truth in status on a devnet", () => {
  it("a Gateway with deposit and reserve is Funded; drained on chain it is not (nor Ready); funded again it is", async () => {
    await apply({
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Gateway",
      metadata: { name: "gw", namespace: ns.name },
      spec: { ...onDevnet("gateway-0"), orchestrators: { addresses: ["127.0.0.1:8935"] } },
    });
    let g = await untilGateway("gw", (x) => gwCondition(x, "Funded")?.status === "True");
    expect(gwCondition(g, "Funded")).toMatchObject({ reason: "DepositAndReserve" });
    expect(gwCondition(g, "ChainHealthy")).toMatchObject({ status: "True", reason: "RPCHealthy" });
    expect(g.status).toMatchObject({ deposit: "10", reserve: "10" });
    expect(Number(g.status?.balance)).toBeGreaterThan(0);

    expect(await devnet("drain", "--account", "gateway-0")).toMatch(/withdrew/);
    // A check made while `drain` ran may show its middle (DepositUnlocking): wait for its end.
    g = await untilGateway("gw", (x) => gwCondition(x, "Funded")?.reason === "NoDeposit");
    expect(gwCondition(g, "Funded")).toMatchObject({ status: "False", reason: "NoDeposit" });
    expect(gwCondition(g, "Funded")?.message).toContain("deposit 0 ETH, reserve 0 ETH");
    expect(g.status).toMatchObject({ deposit: "0", reserve: "0" });
    expect(g.status?.findings?.map((f) => [f.id, f.severity])).toContainEqual(["GatewayUnfunded", "error"]);
    // The error finding is why it does not serve: ahead of its pods (none run here).
    expect(gwCondition(g, "Ready")).toMatchObject({ status: "False", reason: "GatewayUnfunded" });
    await waitFor(
      "a GatewayUnfunded Event about gw",
      async () => (await events("gw")).some((e) => e.reason === "GatewayUnfunded"),
      15_000,
    );
    const series = `livepeer_operator_findings{kind="Gateway",namespace="${ns.name}",name="gw",id="GatewayUnfunded",severity="error"} 1`;
    expect(await manager.metrics.registry.metrics()).toContain(series);

    // Funded again: True, the finding and its series gone.
    const deposit = await cli([
      "deposit",
      "--dir",
      bed.dir,
      "--account",
      "gateway-0",
      "--deposit",
      "1",
      "--reserve",
      "0.5",
      "--yes",
    ]);
    expect(deposit.code, deposit.stderr).toBe(0);
    g = await untilGateway("gw", (x) => gwCondition(x, "Funded")?.status === "True");
    expect(g.status).toMatchObject({ deposit: "1", reserve: "0.5" });
    expect((g.status?.findings ?? []).map((f) => f.id)).not.toContain("GatewayUnfunded");
    expect(await manager.metrics.registry.metrics()).not.toContain(series);
  });

  it("an Orchestrator whose on-chain URI is its address is Registered; changed on chain, ServiceURIMismatch", async () => {
    const orchestrators = orchestratorKit(client, () => ns.name);
    await orchestrators.apply("orch", {
      ...onDevnet("orchestrator-0"),
      pricePerUnit: "1000",
      serviceAddr: "127.0.0.1:8935",
    });
    let o = await orchestrators.until("orch", (x) => condition(x, "Registered")?.status === "True", 30_000);
    expect(condition(o, "Registered")).toMatchObject({ reason: "ServiceURIMatches" });
    expect(o.status).toMatchObject({ serviceURI: "https://127.0.0.1:8935", activeSet: true });
    expect(o.status?.lastRewardRound).toBeGreaterThanOrEqual(0);

    await devnet("service-uri", "https://10.20.30.40:8935", "--account", "orchestrator-0");
    o = await orchestrators.until("orch", (x) => condition(x, "Registered")?.status === "False", 30_000);
    expect(condition(o, "Registered")).toMatchObject({ reason: "ServiceURIMismatch" });
    expect(condition(o, "Registered")?.message).toContain("https://10.20.30.40:8935");
    expect(o.status?.serviceURI).toBe("https://10.20.30.40:8935");
    // A warning: listed, but it does not decide Ready.
    expect(o.status?.findings?.map((f) => [f.id, f.severity])).toContainEqual([
      "ServiceURIMismatch",
      "warning",
    ]);
    expect(condition(o, "Ready")?.reason).not.toBe("ServiceURIMismatch");
  });

  it("an active Orchestrator that has not called reward in a passing round has RewardNotCalled, cleared by a reward call", async () => {
    const orchestrators = orchestratorKit(client, () => ns.name);
    await orchestrators.apply("rewarder", {
      ...onDevnet("orchestrator-1"),
      pricePerUnit: "1000",
      serviceAddr: "127.0.0.1:8936",
      reward: true,
    });
    // A fresh round: ~25 s (50 blocks of 0.5 s) to see the finding and clear it in.
    const started = Number(/round (\d+) started/.exec(await devnet("round"))?.[1]);
    let o = await orchestrators.until(
      "rewarder",
      (x) =>
        (x.status?.findings ?? []).some(
          (f) => f.id === "RewardNotCalled" && f.message.includes(`in round ${started} `),
        ),
      20_000,
    );
    const finding = o.status?.findings?.find((f) => f.id === "RewardNotCalled");
    expect(finding?.severity).toBe("warning");
    expect(finding?.message).toMatch(
      new RegExp(
        `${account("orchestrator-1").address} has not called reward in round ${started} .*the round ends at block \\d+`,
      ),
    );
    expect(o.status?.activeSet).toBe(true);
    // A warning: the node still serves as far as the chain is concerned.
    expect(condition(o, "Ready")?.reason).not.toBe("RewardNotCalled");
    await waitFor(
      "a RewardNotCalled Event about rewarder",
      async () => (await events("rewarder")).some((e) => e.reason === "RewardNotCalled"),
      15_000,
    );

    expect(await devnet("reward", "--account", "orchestrator-1")).toMatch(
      new RegExp(`called reward in round ${started}`),
    );
    o = await orchestrators.until(
      "rewarder",
      (x) =>
        x.status?.lastRewardRound === started &&
        !(x.status?.findings ?? []).some((f) => f.id === "RewardNotCalled"),
      15_000,
    );
    expect(o.status?.lastRewardRound).toBe(started);
  });

  it("an Orchestrator that unbonded is out of the active set from the next round: NotInActiveSet, and no reward is asked of it", async () => {
    const orchestrators = orchestratorKit(client, () => ns.name);
    await orchestrators.apply("rewarder", {
      ...onDevnet("orchestrator-1"),
      pricePerUnit: "1000",
      serviceAddr: "127.0.0.1:8936",
      reward: true,
    });
    expect(await devnet("unbond", "--account", "orchestrator-1")).toMatch(/unbonded 1000\.\d* LPT/);
    await devnet("round");
    const o = await orchestrators.until(
      "rewarder",
      (x) => (x.status?.findings ?? []).some((f) => f.id === "NotInActiveSet"),
      20_000,
    );
    const finding = o.status?.findings?.find((f) => f.id === "NotInActiveSet");
    expect(finding?.severity).toBe("warning");
    expect(finding?.message).toContain(
      `${account("orchestrator-1").address} is not in the active set in round`,
    );
    expect(finding?.message).toContain("its stake is 0 LPT");
    expect(o.status?.activeSet).toBe(false);
    // Reward is only asked of active orchestrators.
    expect((o.status?.findings ?? []).map((f) => f.id)).not.toContain("RewardNotCalled");
    const series = `livepeer_operator_findings{kind="Orchestrator",namespace="${ns.name}",name="rewarder",id="NotInActiveSet",severity="warning"} 1`;
    expect(await manager.metrics.registry.metrics()).toContain(series);
  });

  it("an RPC that stops answering (the chain paused) makes ChainHealthy False, naming why; resumed, it recovers", async () => {
    const g = await untilGateway("gw", (x) => gwCondition(x, "ChainHealthy")?.status === "True");
    expect(gwCondition(g, "ChainHealthy")?.reason).toBe("RPCHealthy");
    await devnet("pause");
    try {
      const paused = await untilGateway(
        "gw",
        (x) => gwCondition(x, "ChainHealthy")?.status === "False",
        20_000,
      );
      // The port accepts and nothing answers: each read times out (2 s here), as a hung RPC's do.
      expect(gwCondition(paused, "ChainHealthy")).toMatchObject({ reason: "RPCUnreachable" });
      expect(gwCondition(paused, "ChainHealthy")?.message).toContain(bed.state.url);
      expect(paused.status?.findings?.map((f) => [f.id, f.severity])).toContainEqual([
        "EthereumUnreachable",
        "error",
      ]);
      // An error finding: the gateway cannot pay, so it is not Ready, and says why first.
      expect(gwCondition(paused, "Ready")).toMatchObject({ status: "False", reason: "EthereumUnreachable" });
    } finally {
      await devnet("resume");
    }
    const resumed = await untilGateway(
      "gw",
      (x) => gwCondition(x, "ChainHealthy")?.status === "True",
      20_000,
    );
    expect(gwCondition(resumed, "ChainHealthy")?.reason).toBe("RPCHealthy");
    expect((resumed.status?.findings ?? []).map((f) => f.id)).not.toContain("EthereumUnreachable");
  });
});
