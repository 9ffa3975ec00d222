// The RemoteSigner and keyless Gateways on the real control plane, the controllers in-process:
// what a user sees of a signer (its pods' StatefulSet, Services without the CLI port, the
// disruption budget, the NetworkPolicy, the hooks Secret whose digest the status publishes,
// printer columns), `kubectl auth can-i` proving that only the signer's account may read the
// keystore Secret, and a keyless Gateway that holds its rollout, naming its signer, while the
// signer is missing or not Ready, woken by the signer's changes.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { waitFor } from "../../src/dev/cluster/process.ts";
import {
  ConfigMaps,
  isNotFound,
  type KubeClient,
  type KubeObject,
  NetworkPolicies,
  PodDisruptionBudgets,
  Secrets,
  ServiceAccounts,
  Services,
  StatefulSets,
} from "../../src/kube/index.ts";
import type { StoredGateway } from "../../src/schema/gateway.ts";
import { hookTokenDigest, remoteSignerAuthHookPath } from "../../src/schema/node-hooks.ts";
import type { StoredRemoteSigner } from "../../src/schema/remote-signer.ts";
import { Gateways, RemoteSigners } from "../../src/schema/resources.ts";
import { canIAnswer, runCanI } from "../e2e/support/can-i.ts";
import { kubeClient, kubectl } from "./support/cluster.ts";
import { type NodeBed, startNodeBed } from "./support/node-bed.ts";

const { kc, client } = kubeClient();

let bed: NodeBed;
beforeAll(async () => {
  bed = await startNodeBed({ name: "signer", nodes: ["cpu-only"], remoteSigners: true });
});
afterAll(async () => {
  await bed?.stop();
  await kc.close();
});

const ns = () => bed.ns.name;
const context = () => bed.context(/signer|gateway|warn|error/i);

// Devnet gateway account 0's keystore (the devnet's public mnemonic; examples/remote-signer-devnet.yaml).
const KEY_JSON =
  '{"address":"2b0814f58c250e09033da8d3246b93d0245eca71","id":"72703b5a-858c-47ac-bd8d-30e309fdaed7","version":3,"Crypto":{"cipher":"aes-128-ctr","cipherparams":{"iv":"6b4089e7cec52877dae3f1a766d6139b"},"ciphertext":"f7a51f06fd2c26c336b7a63a69adf85ff0caf13c8385ca0dcf5b2842fb98f303","kdf":"scrypt","kdfparams":{"salt":"c54607f67e5ad03fe8e992c74a091fb1c878b644948e8f8620f3ce05503888e0","n":4096,"dklen":32,"p":6,"r":8},"mac":"58004044ab784dc2c3eab3bd3c2b7cfcfd8596529df87d9d1cfeb3b888017064"}}';
const ADDRESS = "0x2b0814f58c250e09033DA8D3246b93D0245ECA71";

async function apply(body: Record<string, unknown>): Promise<void> {
  await kubectl(["apply", "--server-side", "--field-manager=test", "-f", "-"], JSON.stringify(body));
}

async function applySigner(name: string, spec: Record<string, unknown>): Promise<void> {
  await apply({
    apiVersion: "livepeer.org/v1alpha1",
    kind: "RemoteSigner",
    metadata: { name, namespace: ns() },
    spec: {
      podTemplate: bed.fence(),
      // A chain RPC nothing answers: the chain's truth is then "unreachable", said, not faked.
      network: "arbitrum-one-mainnet",
      ethUrl: "http://127.0.0.1:9/",
      ethAcctAddr: ADDRESS,
      keystoreSecret: `${name}-keystore`,
      ...spec,
    },
  });
}

async function applyGateway(name: string, signer: string): Promise<void> {
  await apply({
    apiVersion: "livepeer.org/v1alpha1",
    kind: "Gateway",
    metadata: { name, namespace: ns() },
    spec: {
      podTemplate: bed.fence(),
      remoteSigner: { name: signer, headersSecretRef: { name: `${name}-signer`, key: "headers" } },
      orchestrators: { addresses: ["127.0.0.1:8935"] },
    },
  });
}

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
    60_000,
    () => `${JSON.stringify((last as { status?: unknown } | undefined)?.status, null, 1)}\n${context()}`,
  );
  return last!;
}

const readSigner = (name: string) => client.get<StoredRemoteSigner>(RemoteSigners, ns(), name);
const readGateway = (name: string) => client.get<StoredGateway>(Gateways, ns(), name);
const condition = (
  o: { status?: { conditions?: { type: string; status: string; reason: string }[] } },
  type: string,
) => o.status?.conditions?.find((c) => c.type === type);
const exists = (t: Parameters<KubeClient["get"]>[0], name: string) =>
  client.get(t, ns(), name).then(
    () => true,
    (err: unknown) => {
      if (isNotFound(err)) return false;
      throw err;
    },
  );

describe("a RemoteSigner", () => {
  beforeAll(async () => {
    await apply({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "signer-a-keystore", namespace: ns() },
      stringData: { "key.json": KEY_JSON, password: "devnet-gateway-0" },
    });
    await applySigner("signer-a", { replicas: 2, access: { namespaces: ["apps"] } });
  });

  it("runs its replicas as a StatefulSet in -remoteSigner mode, the keystore mounted, the hook URLs from its Secret", async () => {
    const sts = await until(
      "the signer's StatefulSet",
      () =>
        client.get<
          KubeObject & { spec?: { replicas?: number; template: { spec: Record<string, unknown> } } }
        >(StatefulSets, ns(), "signer-a"),
      () => true,
    );
    expect(sts.spec?.replicas).toBe(2);
    const pod = sts.spec?.template.spec as {
      serviceAccountName?: string;
      volumes?: { name: string; secret?: { secretName?: string } }[];
      containers: {
        env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
      }[];
    };
    expect(pod.serviceAccountName).toBe("signer-a-signer");
    expect(pod.volumes?.find((v) => v.name === "keystore")?.secret?.secretName).toBe("signer-a-keystore");
    // The node's own variables (beside the in-place restart's LIVEPEER_STARTED_CONFIG_HASH).
    expect(pod.containers[0]?.env?.filter((e) => e.name.startsWith("LP_"))).toEqual([
      {
        name: "LP_REMOTESIGNERWEBHOOKURL",
        valueFrom: { secretKeyRef: { name: "signer-a-signer-hooks", key: "remoteSignerWebhookUrl" } },
      },
    ]);
    const config = await client.get<KubeObject & { data?: Record<string, string> }>(
      ConfigMaps,
      ns(),
      "signer-a-config",
    );
    const conf = config.data?.["livepeer.conf"] ?? "";
    expect(conf.split("\n")).toContain("remoteSigner");
    for (const line of ["network arbitrum-one-mainnet", "httpAddr 0.0.0.0:8935", "cliAddr 0.0.0.0:3935"])
      expect(conf).toContain(line);
    expect(conf).not.toMatch(/token|WebhookUrl/);
  });

  it("publishes the HTTP port on a ClusterIP Service and the CLI port on none", async () => {
    const services = await until(
      "the signer's Services",
      () =>
        client.list<KubeObject & { spec?: { type?: string; ports?: { port: number }[] } }>(Services, {
          namespace: ns(),
        }),
      (l) => l.items.some((s) => s.metadata?.name === "signer-a"),
    );
    const mine = services.items.filter((s) => s.metadata?.name?.startsWith("signer-a"));
    expect(mine.find((s) => s.metadata?.name === "signer-a")?.spec?.type).toBe("ClusterIP");
    for (const s of mine) expect(s.spec?.ports?.map((p) => p.port)).toEqual([8935]);
  });

  it("keeps one replica up through voluntary disruptions, and drops the budget at one replica", async () => {
    const pdb = await until(
      "the signer's PodDisruptionBudget",
      () =>
        client.get<KubeObject & { spec?: { maxUnavailable?: number } }>(
          PodDisruptionBudgets,
          ns(),
          "signer-a",
        ),
      () => true,
    );
    expect(pdb.spec?.maxUnavailable).toBe(1);
    await applySigner("signer-a", { replicas: 1, access: { namespaces: ["apps"] } });
    await waitFor(
      "the budget gone at one replica",
      async () => !(await exists(PodDisruptionBudgets, "signer-a")),
      60_000,
      context,
    );
    await applySigner("signer-a", { replicas: 2, access: { namespaces: ["apps"] } });
    await waitFor("the budget back at two", () => exists(PodDisruptionBudgets, "signer-a"), 60_000, context);
  });

  it("admits to its HTTP port only its Gateways, the operator and spec.access's namespaces", async () => {
    await apply({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "gw-a-signer", namespace: ns() },
      stringData: { headers: "Authorization:Bearer tenant-token" },
    });
    await applyGateway("gw-a", "signer-a");
    type Policy = KubeObject & {
      spec?: {
        ingress?: {
          from: { podSelector?: { matchLabels?: Record<string, string> } }[];
          ports: { port: number }[];
        }[];
      };
    };
    const np = await until(
      "the NetworkPolicy admitting gw-a",
      () => client.get<Policy>(NetworkPolicies, ns(), "signer-a"),
      (p) =>
        p.spec?.ingress?.[0]?.from.some(
          (f) => f.podSelector?.matchLabels?.["app.kubernetes.io/instance"] === "gw-a",
        ) ?? false,
    );
    const [http, cli] = np.spec?.ingress ?? [];
    expect(http?.ports.map((p) => p.port)).toEqual([8935]);
    expect(JSON.stringify(http?.from)).toContain('"kubernetes.io/metadata.name":"apps"');
    expect(cli?.ports.map((p) => p.port)).toEqual([3935]);
  });

  it("publishes its hook token's digest, its address, URL and chain truth; kubectl get lpsigner shows it", async () => {
    const signer = await until(
      "the signer's status",
      () => readSigner("signer-a"),
      (s) => !!s.status?.hookTokenDigest && condition(s, "ChainHealthy")?.status === "False",
    );
    const secret = await client.get<KubeObject & { data?: Record<string, string> }>(
      Secrets,
      ns(),
      "signer-a-signer-hooks",
    );
    const token = Buffer.from(secret.data?.token ?? "", "base64").toString("utf8");
    const url = Buffer.from(secret.data?.remoteSignerWebhookUrl ?? "", "base64").toString("utf8");
    expect(signer.status?.hookTokenDigest).toBe(hookTokenDigest(token));
    expect(new URL(url).pathname).toBe(remoteSignerAuthHookPath(ns(), "signer-a"));
    expect(new URL(url).searchParams.get("token")).toBe(token);
    expect(signer.status).toMatchObject({
      address: ADDRESS,
      serviceUrl: `http://signer-a.${ns()}.svc.cluster.local:8935`,
    });
    expect(condition(signer, "Funded")?.status).not.toBe("True");
    const table = await kubectl(["get", "lpsigner", "signer-a", "-n", ns(), "-o", "wide"]);
    expect(table.split("\n")[0]).toMatch(
      /NAME\s+READY\s+REPLICAS\s+FUNDED\s+ADDRESS\s+DEPOSIT\s+RESERVE\s+REASON\s+NETWORK\s+AGE/,
    );
    expect(table).toContain(ADDRESS);
  });

  it("is the only account in its namespace that may read the keystore Secret (kubectl auth can-i)", async () => {
    await waitFor("the signer's account", () => exists(ServiceAccounts, "signer-a-signer"), 60_000, context);
    const accounts = await client.list<KubeObject>(ServiceAccounts, { namespace: ns() });
    const may: Record<string, boolean> = {};
    const ask = async (sa: string, verb: string) =>
      canIAnswer(
        await runCanI(inject("kubectl"), inject("kubeconfig"), [
          verb,
          "secret/signer-a-keystore",
          "-n",
          ns(),
          `--as=system:serviceaccount:${ns()}:${sa}`,
        ]),
      );
    for (const sa of accounts.items.map((a) => a.metadata?.name ?? "")) may[sa] = await ask(sa, "get");
    expect(Object.keys(may)).toContain("default");
    expect(
      Object.entries(may)
        .filter(([, yes]) => yes)
        .map(([sa]) => sa),
    ).toEqual(["signer-a-signer"]);
    // Get by name only: no list, no watch, no write.
    for (const verb of ["list", "watch", "update", "delete"])
      expect(await ask("signer-a-signer", verb)).toBe(false);
  });
});

describe("a keyless Gateway", () => {
  it("holds its rollout, naming the signer, while the signer is missing, and is woken when it appears", async () => {
    await applyGateway("gw-b", "signer-b");
    const held = await until(
      "gw-b held",
      () => readGateway("gw-b"),
      (g) => condition(g, "Ready")?.reason === "RemoteSignerNotFound",
    );
    expect(held.status?.conditions?.find((c) => c.type === "Ready")?.message).toMatch(
      /RemoteSigner signer-b/,
    );
    expect(condition(held, "RemoteSignerReady")).toMatchObject({
      status: "False",
      reason: "RemoteSignerNotFound",
    });
    expect(held.status?.remoteSigner).toEqual({ name: "signer-b", ready: false, funded: false });
    // The hold was in force in the reconcile that wrote this status: no node pods made.
    expect(await exists(StatefulSets, "gw-b")).toBe(false);

    // signer-b's keystore Secret is never made: the signer exists and cannot be Ready.
    await applySigner("signer-b", {});
    const waiting = await until(
      "gw-b woken by signer-b",
      () => readGateway("gw-b"),
      // The signer's own status (its address) reaches the Gateway: woken by the signer's changes.
      (g) =>
        condition(g, "Ready")?.reason === "RemoteSignerNotReady" &&
        g.status?.remoteSigner?.address === ADDRESS,
    );
    expect(condition(waiting, "RemoteSignerReady")?.status).toBe("False");
    expect(condition(waiting, "Funded")).toMatchObject({ status: "False", reason: "SignerNotFunded" });
    expect(waiting.status?.remoteSigner).toMatchObject({
      name: "signer-b",
      address: ADDRESS,
      ready: false,
      funded: false,
    });
    expect(await exists(StatefulSets, "gw-b")).toBe(false);
  });

  it("is refused with the fix when it names a signer and keeps chain fields", async () => {
    const err = await apply({
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Gateway",
      metadata: { name: "gw-c", namespace: ns() },
      spec: {
        remoteSigner: { name: "signer-a" },
        network: "devnet",
        devnet: "livepeer-devnet",
        keystoreSecret: "k",
        orchestrators: { addresses: ["127.0.0.1:8935"] },
      },
    }).then(
      () => "",
      (e: Error) => e.message,
    );
    expect(err).toMatch(
      /remoteSigner names signer-a but the Gateway also sets chain fields .*set them on the RemoteSigner signer-a\), or remove remoteSigner/,
    );
  });
});
