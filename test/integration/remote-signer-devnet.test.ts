// A RemoteSigner on the devnet, end to end on the real control plane: the signer pods run the node
// simulator in -remoteSigner mode with devnet gateway account 0's keystore (funded by `devnet up`),
// the controller reads the chain for the signer's account (ChainHealthy, Funded, deposit and
// reserve), and a keyless Gateway rolls out through it: -remoteSignerUrl to a Ready signer pod,
// its headers from a Secret, no key, Funded read through the signer. Drained, the signer is topped
// up by the funding guard through its own node's CLI port (the key's holder pays).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { gatewayController } from "../../src/controller/gateway/controller.ts";
import { orchestratorController } from "../../src/controller/orchestrator/controller.ts";
import { remoteSignerController } from "../../src/controller/remote-signer/controller.ts";
import type { Manager } from "../../src/controller/runtime/index.ts";
import { createNodePool, type NodePool } from "../../src/dev/cluster/fleet.ts";
import { defaultFleet } from "../../src/dev/cluster/nodes.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { type SimulatorFleet, startSimulatorFleet } from "../../src/dev/simulators.ts";
import {
  ConfigMaps,
  KubeClient,
  type KubeObject,
  PooledKubeConfig,
  StatefulSets,
} from "../../src/kube/index.ts";
import { ChainReads } from "../../src/node/chain/index.ts";
import type { StoredGateway } from "../../src/schema/gateway.ts";
import type { StoredRemoteSigner } from "../../src/schema/remote-signer.ts";
import { Gateways, RemoteSigners } from "../../src/schema/resources.ts";
import { startTestApi, type TestApi } from "./api-harness.ts";
import { kubeConfig, kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";
import { type DevnetBed, startDevnetBed } from "./support/devnet-bed.ts";
import { eventsAbout } from "./support/events.ts";
import { FAST_DOCTOR, startTestManager } from "./support/manager.ts";

const kc = new PooledKubeConfig();
const client = new KubeClient(kc);
let ns: Awaited<ReturnType<typeof testNamespace>>;
let manager: Manager;
let pool: NodePool;
let sims: SimulatorFleet;
let bed: DevnetBed;
let api: TestApi;
const simDir = mkdtempSync(path.join(tmpdir(), "signer-devnet-sims-"));
const simLog: string[] = [];
const controllerLog: string[] = [];
const chain = new ChainReads({ headTtlMs: 500, timeoutMs: 2_000 });

async function apply(object: object): Promise<void> {
  await kubectl(["apply", "--server-side", "--field-manager=test", "-f", "-"], JSON.stringify(object));
}

beforeAll(async () => {
  kc.loadFromFile(inject("kubeconfig"));
  bed = await startDevnetBed("signer-devnet-it", ["--block-interval", "0.5"]);
  ns = await testNamespace("signer-devnet");
  await installCrds(kubectl);
  await apply(JSON.parse(await bed.devnet("configmap", "--name", "dn", "--namespace", ns.name)) as object);
  pool = await createNodePool(kubeConfig(), `${ns.name}-cpu`, [
    defaultFleet.find((n) => n.name === "cpu-only")!,
  ]);
  sims = startSimulatorFleet(kubeConfig(), simDir, (l) => simLog.push(l), { namespace: ns.name });
  api = await startTestApi("default", { nodeHooks: true });
  const nodeHooksUrl = new URL(api.url).origin;
  manager = await startTestManager(
    "signer-devnet-test",
    ns.name,
    [
      orchestratorController({ defaultImage: "livepeer/go-livepeer:test", chain, doctor: FAST_DOCTOR }),
      gatewayController({
        defaultImage: "livepeer/go-livepeer:test",
        chain,
        doctor: FAST_DOCTOR,
        nodeHooksUrl,
        orchestratorAddresses: "pod-ip",
      }),
      remoteSignerController({
        defaultImage: "livepeer/go-livepeer:test",
        chain,
        doctor: FAST_DOCTOR,
        nodeHooksUrl,
        orchestratorAddresses: "pod-ip",
      }),
    ],
    controllerLog,
  );
});
afterEach((ctx) => {
  if (ctx.task.result?.state === "fail") {
    process.stderr.write(`${simLog.slice(-20).join("\n")}\n${controllerLog.slice(-40).join("\n")}\n`);
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

const fence = () => ({ nodeSelector: pool.nodeSelector, tolerations: pool.tolerations });
const condition = (
  o: { status?: { conditions?: { type: string; status: string; reason: string }[] } },
  type: string,
) => o.status?.conditions?.find((c) => c.type === type);

async function until<T extends object>(
  what: string,
  read: () => Promise<T>,
  ok: (o: T) => boolean,
): Promise<T> {
  let last: T | undefined;
  await waitFor(
    what,
    async () => {
      last = await read().catch(() => undefined);
      return !!last && ok(last);
    },
    90_000,
    () =>
      `${JSON.stringify((last as { status?: unknown } | undefined)?.status, null, 1)}\n${simLog.slice(-10).join("\n")}`,
  );
  return last!;
}

describe("a RemoteSigner on the devnet", () => {
  it("is Ready and Funded with gateway account 0's deposit, and a keyless Gateway is Ready through it", async () => {
    const a = bed.account("gateway-0");
    await apply({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "signer-keystore", namespace: ns.name },
      stringData: {
        "key.json": readFileSync(a.keystoreFile, "utf8"),
        password: readFileSync(a.passwordFile, "utf8"),
      },
    });
    await apply({
      apiVersion: "livepeer.org/v1alpha1",
      kind: "RemoteSigner",
      metadata: { name: "signer", namespace: ns.name },
      spec: {
        podTemplate: fence(),
        network: "devnet",
        devnet: "dn",
        keystoreSecret: "signer-keystore",
        ethAcctAddr: a.address,
        funding: { minDeposit: "1", minReserve: "1", topUpDeposit: "2", topUpReserve: "1.5", maxPerDay: "5" },
      },
    });
    const signer = await until(
      "the signer Ready and Funded",
      () => client.get<StoredRemoteSigner>(RemoteSigners, ns.name, "signer"),
      (s) => condition(s, "Ready")?.status === "True" && condition(s, "Funded")?.status === "True",
    );
    expect(condition(signer, "ChainHealthy")?.status).toBe("True");
    expect(signer.status).toMatchObject({ address: a.address, readyReplicas: 1 });
    expect(Number(signer.status?.deposit)).toBeGreaterThan(0);
    expect(Number(signer.status?.reserve)).toBeGreaterThan(0);

    await apply({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "gw-signer", namespace: ns.name },
      stringData: { headers: "Authorization:Bearer tenant-token" },
    });
    await apply({
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Gateway",
      metadata: { name: "keyless", namespace: ns.name },
      spec: {
        podTemplate: fence(),
        remoteSigner: { name: "signer", headersSecretRef: { name: "gw-signer", key: "headers" } },
        orchestrators: { addresses: ["127.0.0.1:8935"] },
      },
    });
    const gw = await until(
      "the keyless Gateway Ready through its signer",
      () => client.get<StoredGateway>(Gateways, ns.name, "keyless"),
      (g) => condition(g, "Ready")?.status === "True" && condition(g, "Funded")?.status === "True",
    );
    expect(condition(gw, "RemoteSignerReady")?.status).toBe("True");
    expect(gw.status?.remoteSigner).toEqual({
      name: "signer",
      address: a.address,
      ready: true,
      funded: true,
    });
    const config = await client.get<KubeObject & { data?: Record<string, string> }>(
      ConfigMaps,
      ns.name,
      "keyless-config",
    );
    const conf = config.data?.["livepeer.conf"] ?? "";
    expect(conf).toMatch(/^remoteSignerUrl http:\/\/127\.\d+\.\d+\.\d+:8935$/m);
    expect(conf).not.toMatch(/^(network|ethUrl|ethKeystorePath|ethPassword|ethAcctAddr) /m);
    expect(conf).not.toMatch(/Bearer|remoteSignerHeaders/);
    const sts = await client.get<
      KubeObject & {
        spec?: {
          template: {
            spec: {
              volumes?: { name: string }[];
              containers: {
                env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
              }[];
            };
          };
        };
      }
    >(StatefulSets, ns.name, "keyless");
    const pod = sts.spec?.template.spec;
    expect(pod?.volumes?.some((v) => v.name === "keystore") ?? false).toBe(false);
    expect(pod?.containers[0]?.env).toContainEqual({
      name: "LP_REMOTESIGNERHEADERS",
      valueFrom: { secretKeyRef: { name: "gw-signer", key: "headers" } },
    });
  });

  it("drained, is topped up through its own node's CLI port, and its keyless Gateway reads Funded through", async () => {
    expect(await bed.devnet("drain", "--account", "gateway-0")).toMatch(/withdrew/);
    const signer = await until(
      "the signer topped up",
      () => client.get<StoredRemoteSigner>(RemoteSigners, ns.name, "signer"),
      (s) =>
        s.status?.deposit === "2" && s.status?.reserve === "1.5" && condition(s, "Funded")?.status === "True",
    );
    expect(signer.status?.funding?.topUps).toHaveLength(1);
    expect(signer.status?.funding?.topUps?.[0]).toMatchObject({ deposit: "2", reserve: "1.5" });
    await waitFor(
      "a ToppedUp Event about the signer, done through its pod",
      async () =>
        (await eventsAbout(client, ns.name, "signer")).some(
          (e) => e.reason === "ToppedUp" && /through pod signer-0/.test(e.note ?? ""),
        ),
      60_000,
    );
    await until(
      "the keyless Gateway Funded again",
      () => client.get<StoredGateway>(Gateways, ns.name, "keyless"),
      (g) => condition(g, "Funded")?.status === "True",
    );
  });
});
