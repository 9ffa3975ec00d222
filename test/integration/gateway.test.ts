// The Gateway on the real control plane: kwok pods on loopback IPs served by node simulators (as
// `npm start` runs them), the Orchestrator and Gateway controllers in-process, and the API server
// answering the gateway node's discovery hook. What a user sees: the gateway's children, the
// orchestrators it was given (live, no restart), the price check, and a stream that comes out as
// HLS.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../src/dev/cluster/process.ts";
import {
  ConfigMaps,
  Events,
  type KubeObject,
  Pods,
  Secrets,
  Services,
  StatefulSets,
} from "../../src/kube/index.ts";
import { pushStream } from "../../src/media/push-stream.ts";
import type { StoredGateway } from "../../src/schema/gateway.ts";
import type { StoredOrchestrator } from "../../src/schema/orchestrator.ts";
import { Gateways } from "../../src/schema/resources.ts";
import { kubeClient, kubectl } from "./support/cluster.ts";
import { type NodeBed, startNodeBed } from "./support/node-bed.ts";
import { isServing, orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();

let bed: NodeBed;

beforeAll(async () => {
  // The node asks its discovery hook once a minute; here every 500 ms, so a change shows quickly.
  bed = await startNodeBed({
    name: "gateway",
    nodes: ["cpu-only"],
    timings: { orchWebhookRefreshMs: 500, streamTimeoutMs: 3_000, sessionTimeoutMs: 3_000 },
  });
});
afterAll(async () => {
  await bed?.stop();
  await kc.close();
});

const context = () => bed.context(/gateway|warn|error/i);
const orchestrators = orchestratorKit(client, () => bed.ns.name, context);
const fence = () => bed.fence();

async function applyGateway(name: string, spec: Record<string, unknown>): Promise<void> {
  const body = {
    apiVersion: "livepeer.org/v1alpha1",
    kind: "Gateway",
    metadata: { name, namespace: bed.ns.name },
    spec: { podTemplate: fence(), ...spec },
  };
  await kubectl(["apply", "--server-side", "--field-manager=test", "-f", "-"], JSON.stringify(body));
}

const readGateway = (name: string) => client.get<StoredGateway>(Gateways, bed.ns.name, name);

async function untilGateway(name: string, ok: (g: StoredGateway) => boolean, timeoutMs = 60_000) {
  let last: StoredGateway | undefined;
  await waitFor(
    `Gateway ${name}`,
    async () => {
      last = await readGateway(name).catch(() => undefined);
      return !!last && ok(last);
    },
    timeoutMs,
    () => `${JSON.stringify(last?.status, null, 1)}\n${context()}`,
  );
  return last!;
}

type PodView = KubeObject & {
  status?: { podIP?: string; containerStatuses?: { restartCount: number }[] };
};
const gatewayPod = (name: string) => client.get<PodView>(Pods, bed.ns.name, `${name}-0`);

/** The gateway node's own /status (its CLI port, on the pod's loopback IP). */
async function nodeStatus(name: string): Promise<{ OrchestratorPool?: string[] } & Record<string, unknown>> {
  const ip = (await gatewayPod(name)).status?.podIP ?? "";
  if (!ip.startsWith("127.")) throw new Error(`pod ${name}-0 has IP ${ip}: tests only dial loopback`);
  const res = await fetch(`http://${ip}:5935/status`, { signal: AbortSignal.timeout(5_000) });
  return (await res.json()) as { OrchestratorPool?: string[] };
}

const condition = (g: StoredGateway | StoredOrchestrator | undefined, type: string) =>
  g?.status?.conditions?.find((c) => c.type === type);
async function untilEvent(regarding: string, reason: string, note: RegExp = /./): Promise<string> {
  let found = "";
  await waitFor(
    `a ${reason} Event about ${regarding} saying ${note}`,
    async () => {
      const list = await client.list<
        KubeObject & { reason?: string; note?: string; regarding?: { name?: string } }
      >(Events, { namespace: bed.ns.name });
      found =
        list.items.find(
          (e) => e.reason === reason && e.regarding?.name === regarding && note.test(e.note ?? ""),
        )?.note ?? "";
      return found !== "";
    },
    // As long as the file's other waits for a reconcile's outcome: under the whole suite's load
    // a CI run once took longer than 30 s for the price edit's (passing 4 of 4 runs alone).
    60_000,
    context,
  );
  return found;
}

const orchSpec = (price: string) => ({ pricePerUnit: price, pixelsPerUnit: 1 });
const given = (g: StoredGateway) => (g.status?.orchestrators ?? []).map((o) => o.name).sort();

describe("a Gateway that selects the cluster's Orchestrators", () => {
  it("runs the node with its config file, Services without the CLI port, and its hooks Secret", async () => {
    await orchestrators.apply("orch-a", orchSpec("100"), bed.pool);
    await kubectl(["label", "orchestrator", "orch-a", "-n", bed.ns.name, "pool=main", "--overwrite"]);
    await applyGateway("gw", {
      orchestrators: { selector: { matchLabels: { pool: "main" } } },
      maxPricePerUnit: "300",
      pixelsPerUnit: 1,
    });
    type Sts = KubeObject & {
      spec: { template: { spec: { containers: { args: string[]; env?: unknown[] }[] } } };
    };
    let sts: Sts | undefined;
    await waitFor(
      "the gateway's StatefulSet",
      async () => {
        sts = await client.get<Sts>(StatefulSets, bed.ns.name, "gw").catch(() => undefined);
        return sts !== undefined;
      },
      30_000,
      context,
    );
    const container = sts!.spec.template.spec.containers[0]!;
    expect(container.args).toEqual(["-config", "/etc/livepeer/livepeer.conf"]);
    // The discovery URL carries a token: it comes from the Secret, never from the ConfigMap.
    // The node's LP_ variables (the other is the in-place restart's, node-pod/in-place.ts).
    expect(container.env?.filter((e) => (e as { name: string }).name.startsWith("LP_"))).toEqual([
      {
        name: "LP_ORCHWEBHOOKURL",
        valueFrom: { secretKeyRef: { name: "gw-node-hooks", key: "orchWebhookUrl" } },
      },
    ]);
    const config = await client.get<KubeObject & { data: Record<string, string> }>(
      ConfigMaps,
      bed.ns.name,
      "gw-config",
    );
    expect(config.data["livepeer.conf"]).toMatch(/^gateway$/m);
    expect(config.data["livepeer.conf"]).toMatch(/^maxPricePerUnit 300$/m);
    expect(config.data["livepeer.conf"]).not.toMatch(/token|orchWebhookUrl/i);
    const services = await client.list<
      KubeObject & { spec: { ports: { port: number; targetPort: number }[] } }
    >(Services, { namespace: bed.ns.name, labelSelector: "app.kubernetes.io/instance=gw" });
    const ports = services.items.flatMap((s) => s.spec.ports.map((p) => p.targetPort));
    expect(ports).toContain(8935);
    expect(ports).toContain(1935);
    expect(ports).not.toContain(5935);
    const secret = await client.get<KubeObject & { data: Record<string, string> }>(
      Secrets,
      bed.ns.name,
      "gw-node-hooks",
    );
    expect(Object.keys(secret.data).sort()).toEqual([
      "authWebhookUrl",
      "orchWebhookUrl",
      "streamEventsUrl",
      "token",
    ]);
  });

  it("gives the node the Ready orchestrator through the discovery hook: Ready, PriceCompatible, ORCHS 1", async () => {
    await orchestrators.until("orch-a", isServing);
    const g = await untilGateway("gw", (x) => condition(x, "Ready")?.status === "True");
    expect(given(g)).toEqual(["orch-a"]);
    expect(g.status?.orchestratorCount).toBe(1);
    // Off chain the orchestrator quotes no price and the node applies no cap: its configured
    // price is shown as such, and nothing is compared.
    expect(g.status?.orchestrators?.[0]).toMatchObject({
      name: "orch-a",
      pricePerUnit: "100",
      priceSource: "configured",
    });
    expect(g.status?.orchestrators?.[0]?.priceCompatible).toBeUndefined();
    expect(g.status?.hookTokenDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(condition(g, "PriceCompatible")).toMatchObject({ status: "True", reason: "OffchainNoPrices" });
    expect(condition(g, "Simulated")).toMatchObject({ status: "True" });
    await waitFor(
      "orch-a in the node's OrchestratorPool",
      async () => ((await nodeStatus("gw")).OrchestratorPool ?? []).length === 1,
      20_000,
    );
  });

  it("a second matching Orchestrator reaches the running node without a restart; unlabelled ones do not", async () => {
    const before = await gatewayPod("gw");
    await orchestrators.apply("orch-b", orchSpec("200"), bed.pool);
    await kubectl(["label", "orchestrator", "orch-b", "-n", bed.ns.name, "pool=main", "--overwrite"]);
    await orchestrators.apply("orch-other", orchSpec("1"), bed.pool);
    // Matching but never Ready: its node crash-loops.
    await orchestrators.apply(
      "orch-broken",
      { ...orchSpec("1"), image: "crashloop.kwok.invalid/livepeer:1" },
      bed.pool,
    );
    await kubectl(["label", "orchestrator", "orch-broken", "-n", bed.ns.name, "pool=main", "--overwrite"]);
    await orchestrators.until("orch-b", isServing);
    await orchestrators.until("orch-other", isServing);
    await orchestrators.until(
      "orch-broken",
      (o) => o.status?.conditions?.some((c) => c.type === "Ready" && c.status === "False") ?? false,
    );
    const g = await untilGateway("gw", (x) => x.status?.orchestratorCount === 2);
    expect(given(g)).toEqual(["orch-a", "orch-b"]);
    await waitFor(
      "two orchestrators in the node's pool",
      async () => ((await nodeStatus("gw")).OrchestratorPool ?? []).length === 2,
      20_000,
    );
    const after = await gatewayPod("gw");
    expect(after.metadata?.uid).toBe(before.metadata?.uid);
    expect(after.status?.containerStatuses?.[0]?.restartCount).toBe(
      before.status?.containerStatuses?.[0]?.restartCount,
    );
  });

  it("a stream pushed into the gateway comes out as an HLS playlist", async () => {
    const ip = (await gatewayPod("gw")).status?.podIP ?? "";
    const result = await pushStream({
      gateway: `http://${ip}:8935`,
      name: "test-stream",
      segments: 3,
      realtime: false,
    });
    expect(result.segments.map((s) => s.status)).toEqual([200, 200, 200]);
    const playlist = await fetch(result.playlistUrl, { signal: AbortSignal.timeout(5_000) });
    expect(playlist.status).toBe(200);
    expect(await playlist.text()).toMatch(/^#EXTM3U/);
  });

  it("off chain, a cap below every orchestrator's configured price decides nothing (the node applies none): still Ready, streams still transcoded; the cap is set live", async () => {
    const before = await gatewayPod("gw");
    await applyGateway("gw", {
      orchestrators: { selector: { matchLabels: { pool: "main" } } },
      maxPricePerUnit: "50",
      pixelsPerUnit: 1,
    });
    expect(await untilEvent("gw", "PriceCapSetLive", /300\/1 -> 50\/1/)).toMatch(/set live on gw-0/);
    const g = await untilGateway("gw", (x) => condition(x, "Ready")?.status === "True");
    expect(condition(g, "PriceCompatible")).toMatchObject({ status: "True", reason: "OffchainNoPrices" });
    expect(condition(g, "PriceCompatible")?.message).toMatch(/orch-a, orch-b/);
    const ip = (await gatewayPod("gw")).status?.podIP ?? "";
    const result = await pushStream({
      gateway: `http://${ip}:8935`,
      name: "low-cap",
      segments: 1,
      realtime: false,
    });
    expect(result.segments.map((s) => s.status)).toEqual([200]);
    await applyGateway("gw", {
      orchestrators: { selector: { matchLabels: { pool: "main" } } },
      maxPricePerUnit: "300",
      pixelsPerUnit: 1,
    });
    await untilGateway("gw", (x) => condition(x, "Ready")?.status === "True");
    // Raised on the running node (POST /setBroadcastConfig): same pod, no restart.
    expect(await untilEvent("gw", "PriceCapSetLive", /50\/1 -> 300\/1/)).toMatch(
      /price cap 50\/1 -> 300\/1 set live on gw-0 \(POST \/setBroadcastConfig on the CLI port\): no restart/,
    );
    const after = await gatewayPod("gw");
    expect(after.metadata?.uid).toBe(before.metadata?.uid);
    expect(after.status?.containerStatuses?.[0]?.restartCount).toBe(
      before.status?.containerStatuses?.[0]?.restartCount,
    );
  });

  it("an off-chain Orchestrator's price edit restarts its node (a price is set live only on chain) and the gateway shows it as configured", async () => {
    const before = await client.get<PodView>(Pods, bed.ns.name, "orch-a-0");
    await orchestrators.apply("orch-a", orchSpec("150"), bed.pool);
    // The price is in the config file only: the node restarts in place (same pod, restartCount + 1).
    const restarts = before.status?.containerStatuses?.[0]?.restartCount ?? 0;
    await waitFor(
      "orch-a-0's node restarted in place",
      async () => {
        const p = await client.get<PodView>(Pods, bed.ns.name, "orch-a-0").catch(() => undefined);
        return (
          p?.metadata?.uid === before.metadata?.uid &&
          (p?.status?.containerStatuses?.[0]?.restartCount ?? 0) === restarts + 1
        );
      },
      90_000,
      context,
    );
    const o = await orchestrators.until(
      "orch-a",
      (x) => isServing(x) && x.status?.pricePerUnit === "150",
      90_000,
    );
    expect(o.status).toMatchObject({ pixelsPerUnit: 1, priceSource: "configured" });
    const g = await untilGateway(
      "gw",
      (x) => x.status?.orchestrators?.find((e) => e.name === "orch-a")?.pricePerUnit === "150",
    );
    expect(g.status?.orchestrators?.find((e) => e.name === "orch-a")).toMatchObject({
      priceSource: "configured",
    });
  });

  it("an on-chain Orchestrator's price edit is set live on its running node: same pod, no restart", async () => {
    await kubectl([
      "create",
      "secret",
      "generic",
      "chain-keys",
      "-n",
      bed.ns.name,
      "--from-literal=key.json={}",
      "--from-literal=password=not-a-real-password",
    ]);
    const onChain = {
      network: "arbitrum-one-mainnet",
      ethUrl: "https://arb1.example.invalid",
      ethAcctAddr: "0x1111111111111111111111111111111111111111",
      keystoreSecret: "chain-keys",
      pixelsPerUnit: 1,
    };
    await orchestrators.apply("orch-chain", { ...onChain, pricePerUnit: "1000" }, bed.pool);
    // On chain the node quotes only a signed asker with reserve (the controller asks with no
    // address: "orchestrator req sig check failed"), and no on-chain Gateway here has been quoted:
    // the status shows the configured price, as such.
    await orchestrators.until(
      "orch-chain",
      (o) =>
        o.status?.pricePerUnit === "1000" &&
        o.status?.priceSource === "configured" &&
        condition(o, "NodeReachable")?.status === "True",
      60_000,
    );
    const before = await client.get<PodView>(Pods, bed.ns.name, "orch-chain-0");
    await orchestrators.apply("orch-chain", { ...onChain, pricePerUnit: "2000" }, bed.pool);
    expect(await untilEvent("orch-chain", "PriceSetLive", /1000\/1 -> 2000\/1/)).toMatch(
      /price 1000\/1 -> 2000\/1 set live on orch-chain-0 \(POST \/setOrchestratorConfig on the CLI port\): no restart/,
    );
    const o = await orchestrators.until("orch-chain", (x) => x.status?.pricePerUnit === "2000", 60_000);
    expect(o.status).toMatchObject({ pixelsPerUnit: 1, priceSource: "configured" });
    const after = await client.get<PodView>(Pods, bed.ns.name, "orch-chain-0");
    expect(after.metadata?.uid).toBe(before.metadata?.uid);
    expect(after.status?.containerStatuses?.[0]?.restartCount).toBe(
      before.status?.containerStatuses?.[0]?.restartCount,
    );
  });

  it("more streams than an orchestrator's session limit: the gateway's OrchestratorCapped is a finding on the Gateway", async () => {
    await orchestrators.apply("orch-small", { ...orchSpec("1"), maxSessions: 1 }, bed.pool);
    await kubectl(["label", "orchestrator", "orch-small", "-n", bed.ns.name, "pool=small", "--overwrite"]);
    await applyGateway("gw-small", { orchestrators: { selector: { matchLabels: { pool: "small" } } } });
    await orchestrators.until("orch-small", isServing);
    await untilGateway("gw-small", (x) => condition(x, "Ready")?.status === "True");
    await waitFor(
      "orch-small in gw-small's pool",
      async () => ((await nodeStatus("gw-small")).OrchestratorPool ?? []).length === 1,
      20_000,
    );
    const ip = (await gatewayPod("gw-small")).status?.podIP ?? "";
    const push = (name: string) =>
      pushStream({ gateway: `http://${ip}:8935`, name, segments: 2, realtime: false });
    const [first, second] = await Promise.all([push("capped-a"), push("capped-b")]);
    const statuses = [...first.segments, ...second.segments].map((x) => x.status);
    expect(statuses).toContain(200);
    expect(statuses.some((x) => x !== 200)).toBe(true);
    const g = await untilGateway(
      "gw-small",
      (x) => !!x.status?.findings?.some((f) => f.id === "OrchestratorCapped"),
    );
    expect(g.status?.findings?.find((f) => f.id === "OrchestratorCapped")).toMatchObject({
      severity: "warning",
    });
  });

  it("an Orchestrator that stops matching leaves the list", async () => {
    await kubectl(["label", "orchestrator", "orch-b", "-n", bed.ns.name, "pool-"]);
    const g = await untilGateway("gw", (x) => x.status?.orchestratorCount === 1);
    expect(given(g)).toEqual(["orch-a"]);
  });

  it("a selector that matches nothing: Ready=False naming the selector and the fix", async () => {
    await applyGateway("lonely", { orchestrators: { selector: { matchLabels: { pool: "nowhere" } } } });
    const g = await untilGateway(
      "lonely",
      (x) => condition(x, "Ready")?.reason === "NoOrchestratorsSelected",
    );
    expect(condition(g, "Ready")?.message).toMatch(/pool=nowhere matches no Orchestrator/);
    expect(condition(g, "Ready")?.message).toMatch(/kubectl label orchestrator/);
  });

  it("deleting the Gateway removes its children", async () => {
    await kubectl(["delete", "gateway", "lonely", "-n", bed.ns.name, "--wait=true"]);
    await waitFor(
      "the Gateway's children to be collected",
      async () => {
        const sts = await client.get(StatefulSets, bed.ns.name, "lonely").catch(() => undefined);
        const secret = await client.get(Secrets, bed.ns.name, "lonely-node-hooks").catch(() => undefined);
        return !sts && !secret;
      },
      60_000,
    );
  });
});
