// What an on-chain orchestrator quotes an on-chain gateway, end to end: a real devnet (the
// protocol's contracts), its deployment ConfigMap in the real control plane, the API's discovery
// hook, kwok pods served by node simulators that read the chain (the orchestrator works out ticket
// parameters for the funded gateway; an unfunded asker is refused), and the controllers. On chain
// an orchestrator quotes only a signed, funded asker, so the controller learns the price from the
// gateway's own node: GET /getNetworkCapabilities on its CLI port lists what each orchestrator
// quoted it (polled every -liveAICapReportInterval, here 1s).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { gatewayController } from "../../src/controller/gateway/controller.ts";
import { orchestratorController } from "../../src/controller/orchestrator/controller.ts";
import type { Manager } from "../../src/controller/runtime/index.ts";
import { createNodePool, type NodePool } from "../../src/dev/cluster/fleet.ts";
import { defaultFleet } from "../../src/dev/cluster/nodes.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { type SimulatorFleet, startSimulatorFleet } from "../../src/dev/simulators.ts";
import { type KubeObject, Pods } from "../../src/kube/index.ts";
import { ChainReads } from "../../src/node/chain/index.ts";
import type { StoredGateway } from "../../src/schema/gateway.ts";
import { Gateways } from "../../src/schema/resources.ts";
import { startTestApi, type TestApi } from "./api-harness.ts";
import { kubeClient, kubeConfig, kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";
import { type DevnetBed, startDevnetBed } from "./support/devnet-bed.ts";
import { FAST_DOCTOR, startTestManager } from "./support/manager.ts";
import { orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();
let ns: Awaited<ReturnType<typeof testNamespace>>;
let manager: Manager;
let pool: NodePool;
let sims: SimulatorFleet;
let api: TestApi;
let bed: DevnetBed;
const simDir = mkdtempSync(path.join(tmpdir(), "chain-price-sims-"));
const simLog: string[] = [];
const controllerLog: string[] = [];
const chain = new ChainReads({ headTtlMs: 500, timeoutMs: 2_000 });

async function apply(object: object): Promise<void> {
  await kubectl(["apply", "--server-side", "--field-manager=test", "-f", "-"], JSON.stringify(object));
}

/** The account's keystore and password as the node mounts them. */
async function keystoreSecret(name: string): Promise<string> {
  const a = bed.account(name);
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
  bed = await startDevnetBed("chain-price-it", ["--block-interval", "0.5", "--orchestrators", "1"]);
  ns = await testNamespace("chain-price");
  await installCrds(kubectl);
  await apply(JSON.parse(await bed.devnet("configmap", "--name", "dn", "--namespace", ns.name)) as object);
  pool = await createNodePool(kubeConfig(), `${ns.name}-cpu`, [
    defaultFleet.find((n) => n.name === "cpu-only")!,
  ]);
  // The gateway asks the discovery hook every 500 ms (the node: every minute).
  sims = startSimulatorFleet(kubeConfig(), simDir, (l) => simLog.push(l), {
    namespace: ns.name,
    timings: { orchWebhookRefreshMs: 500 },
  });
  api = await startTestApi("default", { nodeHooks: true });
  manager = await startTestManager(
    "chain-price-test",
    ns.name,
    [
      orchestratorController({ defaultImage: "livepeer/go-livepeer:test", chain, doctor: FAST_DOCTOR }),
      gatewayController({
        defaultImage: "livepeer/go-livepeer:test",
        chain,
        doctor: FAST_DOCTOR,
        nodeHooksUrl: new URL(api.url).origin,
        orchestratorAddresses: "pod-ip",
      }),
    ],
    controllerLog,
  );
});
afterEach((ctx) => {
  if (ctx.task.result?.state === "fail") {
    process.stderr.write(`${simLog.slice(-30).join("\n")}\n${controllerLog.slice(-40).join("\n")}\n`);
  }
});
afterAll(async () => {
  await manager?.stop("tests done");
  await api?.close();
  await sims?.stop();
  await pool?.delete();
  await ns?.remove();
  await kc.close();
  await bed?.stop();
  rmSync(simDir, { recursive: true, force: true });
});

const orchestrators = orchestratorKit(
  client,
  () => ns.name,
  () => simLog.slice(-10).join("\n"),
);
const fence = () => ({ nodeSelector: pool.nodeSelector, tolerations: pool.tolerations });

async function onDevnet(account: string) {
  return {
    network: "devnet",
    devnet: "dn",
    keystoreSecret: await keystoreSecret(account),
    ethAcctAddr: bed.account(account).address,
  };
}

async function applyOrchestrator(pricePerUnit: string): Promise<void> {
  await orchestrators.apply(
    "orch-q",
    {
      ...(await onDevnet("orchestrator-0")),
      // As registered on the devnet (Registered=True); the gateway is given the pod's address.
      serviceAddr: "127.0.0.1:8935",
      pricePerUnit,
      pixelsPerUnit: 1,
    },
    pool,
  );
  await kubectl(["label", "orchestrator", "orch-q", "-n", ns.name, "pool=q", "--overwrite"]);
}

async function untilGateway(ok: (g: StoredGateway) => boolean, timeoutMs = 90_000): Promise<StoredGateway> {
  let last: StoredGateway | undefined;
  await waitFor(
    "Gateway gw-q",
    async () => {
      last = await client.get<StoredGateway>(Gateways, ns.name, "gw-q").catch(() => undefined);
      return !!last && ok(last);
    },
    timeoutMs,
    () => `${JSON.stringify(last?.status, null, 1)}\n${simLog.slice(-10).join("\n")}`,
  );
  return last!;
}

const cond = (g: StoredGateway, type: string) => g.status?.conditions?.find((c) => c.type === type);
const givenQ = (g: StoredGateway) => g.status?.orchestrators?.find((o) => o.name === "orch-q");

describe("on chain, the price an orchestrator quotes each gateway", () => {
  it("the Orchestrator's status carries the price it quoted the funded gateway, read from that gateway's node; the gateway compares its cap with the quote", async () => {
    await applyOrchestrator("1000");
    await apply({
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Gateway",
      metadata: { name: "gw-q", namespace: ns.name },
      spec: {
        ...(await onDevnet("gateway-0")),
        orchestrators: { selector: { matchLabels: { pool: "q" } } },
        maxPricePerUnit: "1500",
        pixelsPerUnit: 1,
        // The node asks its orchestrators again every 25 minutes by default.
        extraArgs: ["-liveAICapReportInterval=1s"],
        podTemplate: fence(),
      },
    });
    // -autoAdjustPrice's nominal overhead: 1000 -> 1010, quoted to the gateway with reserve.
    const g = await untilGateway((x) => givenQ(x)?.priceSource === "quoted");
    expect(givenQ(g)).toMatchObject({
      pricePerUnit: "1010",
      pixelsPerUnit: 1,
      priceSource: "quoted",
      priceCompatible: true,
      quotedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    expect(cond(g, "PriceCompatible")).toMatchObject({ status: "True" });
    expect(cond(g, "PriceCompatible")?.message).toMatch(/orch-q: 1010 wei\/pixel/);

    const o = await orchestrators.until("orch-q", (x) => (x.status?.quotes ?? []).length > 0, 60_000);
    expect(o.status?.quotes).toEqual([
      { gateway: "gw-q", pricePerUnit: "1010", pixelsPerUnit: 1, quotedAt: givenQ(g)?.quotedAt },
    ]);
    // The controller's own ask (no address) is refused on chain: its own field says configured.
    expect(o.status).toMatchObject({ pricePerUnit: "1000", pixelsPerUnit: 1, priceSource: "configured" });

    // What the gateway's node lists is what the status says (the same read, the same words).
    const pod = await client.get<KubeObject & { status?: { podIP?: string } }>(Pods, ns.name, "gw-q-0");
    const listed = (await (
      await fetch(`http://${pod.status?.podIP}:5935/getNetworkCapabilities`)
    ).json()) as {
      orchestrators: { address: string; price_info: { pricePerUnit: number; pixelsPerUnit: number } }[];
    };
    expect(listed.orchestrators).toEqual([
      expect.objectContaining({
        address: bed.account("orchestrator-0").address,
        price_info: { pricePerUnit: 1010, pixelsPerUnit: 1 },
      }),
    ]);
  });

  it("the orchestrator's price raised above the gateway's cap (set live on its node): the quote follows and PriceCompatible turns False", async () => {
    await applyOrchestrator("2000");
    const g = await untilGateway((x) => givenQ(x)?.pricePerUnit === "2020");
    expect(givenQ(g)).toMatchObject({ priceSource: "quoted", priceCompatible: false });
    expect(cond(g, "PriceCompatible")).toMatchObject({
      status: "False",
      reason: "PriceCapBelowOrchestrators",
    });
    expect(cond(g, "PriceCompatible")?.message).toMatch(/orch-q at 2020 wei\/pixel/);
    const o = await orchestrators.until(
      "orch-q",
      (x) => x.status?.quotes?.[0]?.pricePerUnit === "2020",
      60_000,
    );
    expect(o.status?.quotes).toEqual([expect.objectContaining({ gateway: "gw-q", pixelsPerUnit: 1 })]);

    // Back within the cap: True again, from the quote.
    await applyOrchestrator("1200");
    const back = await untilGateway((x) => givenQ(x)?.pricePerUnit === "1212");
    expect(givenQ(back)).toMatchObject({ priceSource: "quoted", priceCompatible: true });
    expect(cond(back, "PriceCompatible")).toMatchObject({ status: "True" });
  });
});
