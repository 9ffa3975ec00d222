// The ChildApplier against the real local control plane: what it remembers of each child (one
// line per child per owner, a digest and a version) decides when an apply can be skipped, and the
// versions it compares are the API server's, moved by real edits, deletes and status writes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChildApplier, done, Manager } from "../../src/controller/runtime/index.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import {
  ConfigMaps,
  type KubeObject,
  type ResourceType,
  Services,
  StatefulSets,
} from "../../src/kube/index.ts";
import { Webhooks } from "../../src/schema/resources.ts";
import { kubeClient, kubectl, pooledKubeConfig, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";

const { kc, client } = kubeClient();
let ns: Awaited<ReturnType<typeof testNamespace>>;
let manager: Manager;

beforeAll(async () => {
  ns = await testNamespace("applier");
  await installCrds(kubectl);
  // The caches a controller owning these children has; the test drives the applier itself.
  manager = new Manager({
    kubeConfig: pooledKubeConfig(),
    identity: "child-applier-test",
    namespaces: [ns.name],
    leaderElection: false,
    processMetrics: false,
  });
  manager.add({
    name: "child-applier-test",
    resource: Webhooks,
    owns: [ConfigMaps, Services, StatefulSets],
    setup: () => ({ reconcile: async () => done }),
  });
  await manager.start();
});
afterAll(async () => {
  await manager.stop();
  await ns.remove();
  await kc.close();
});

/** A real owner: a Webhook (its uid goes into the children's ownerReferences). */
async function owner(name: string): Promise<KubeObject> {
  return client.create<KubeObject>(Webhooks, {
    metadata: { name, namespace: ns.name },
    spec: { name, url: "https://example.com/h" },
  });
}

const configMap = (name: string, data = "1"): KubeObject =>
  ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: ns.name },
    data: { data },
  }) as KubeObject;
const service = (name: string): KubeObject =>
  ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: ns.name },
    spec: { clusterIP: "None", selector: { app: name }, ports: [{ name: "http", port: 8935 }] },
  }) as KubeObject;
const statefulSet = (name: string, image = "pause:1"): KubeObject =>
  ({
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, namespace: ns.name },
    spec: {
      replicas: 0,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image }] } },
    },
  }) as KubeObject;

const cached = (t: ResourceType, name: string) => manager.cache.get<KubeObject>(t, `${ns.name}/${name}`);
/** Waits until the cache holds a version of the child other than `version` (or none at all). */
const cacheMovesFrom = (t: ResourceType, name: string, version: string | undefined) =>
  waitFor(
    `the cache to see ${name} change`,
    async () => cached(t, name)?.metadata?.resourceVersion !== version,
    10_000,
  );

describe("ChildApplier", () => {
  it("writes a child once, again when it changes, and skips it while nothing moved", async () => {
    const a = new ChildApplier(client, manager.cache);
    const o = await owner("same");
    await a.apply(ConfigMaps, o, configMap("same"));
    await a.apply(ConfigMaps, o, configMap("same"));
    expect(a.stats).toEqual({ written: 1, skipped: 1, owners: 1 });
    await a.apply(ConfigMaps, o, configMap("same", "2"));
    await a.apply(ConfigMaps, o, configMap("same", "2"));
    expect(a.stats).toEqual({ written: 2, skipped: 2, owners: 1 });
    const live = await client.get<KubeObject & { data?: Record<string, string> }>(
      ConfigMaps,
      ns.name,
      "same",
    );
    expect(live.data).toEqual({ data: "2" });
    expect(live.metadata?.ownerReferences?.[0]?.uid).toBe(o.metadata?.uid);
  });

  it("writes again when someone else edits the child or deletes it, not for a StatefulSet's status", async () => {
    const a = new ChildApplier(client, manager.cache);
    const o = await owner("edited");
    await a.apply(ConfigMaps, o, configMap("edited"));
    const version = cached(ConfigMaps, "edited")?.metadata?.resourceVersion;
    await client.mergePatch(ConfigMaps, ns.name, "edited", { data: { data: "someone else's" } });
    await cacheMovesFrom(ConfigMaps, "edited", version);
    await a.apply(ConfigMaps, o, configMap("edited"));
    expect(a.stats.written).toBe(2);
    expect(
      (await client.get<KubeObject & { data?: Record<string, string> }>(ConfigMaps, ns.name, "edited")).data,
    ).toEqual({
      data: "1",
    });

    await client.delete(ConfigMaps, ns.name, "edited");
    await waitFor("the cache to drop the deleted child", async () => !cached(ConfigMaps, "edited"), 10_000);
    await a.apply(ConfigMaps, o, configMap("edited"));
    expect(a.stats.written).toBe(3);
    expect(await client.get(ConfigMaps, ns.name, "edited")).toBeTruthy();

    // The StatefulSet controller writes the status (observedGeneration), which moves the
    // resourceVersion but not the generation: nothing of ours drifted, so nothing is written.
    await a.apply(StatefulSets, o, statefulSet("edited"));
    const written = a.stats.written;
    await waitFor(
      "the StatefulSet controller's status write",
      async () =>
        (cached(StatefulSets, "edited") as { status?: { observedGeneration?: number } })?.status
          ?.observedGeneration === 1,
      30_000,
    );
    await a.apply(StatefulSets, o, statefulSet("edited"));
    expect(a.stats.written).toBe(written);
    // Someone else's spec edit moves the generation: written again, and put back.
    await client.mergePatch(StatefulSets, ns.name, "edited", { spec: { replicas: 2 } });
    await waitFor(
      "the cache to see the new generation",
      async () => cached(StatefulSets, "edited")?.metadata?.generation === 2,
      10_000,
    );
    await a.apply(StatefulSets, o, statefulSet("edited"));
    expect(a.stats.written).toBe(written + 1);
    expect(
      (await client.get<KubeObject & { spec?: { replicas?: number } }>(StatefulSets, ns.name, "edited")).spec
        ?.replicas,
    ).toBe(0);
  });

  it("keeps each child of an owner apart, also children whose keys begin alike, applied at once", async () => {
    const a = new ChildApplier(client, manager.cache);
    const o = await owner("o");
    const children: [ResourceType, KubeObject][] = [
      [ConfigMaps, configMap("o")],
      [ConfigMaps, configMap("o-config")],
      [ConfigMaps, configMap("o-co")],
      [Services, service("o")],
      [StatefulSets, statefulSet("o")],
    ];
    await Promise.all(children.map(([t, body]) => a.apply(t, o, body)));
    await Promise.all(children.map(([t, body]) => a.apply(t, o, body)));
    expect(a.stats).toEqual({ written: 5, skipped: 5, owners: 1 });
    // One child changes: only it is written, the others are still remembered.
    await a.apply(ConfigMaps, o, configMap("o-config", "2"));
    await Promise.all(children.slice(2).map(([t, body]) => a.apply(t, o, body)));
    await a.apply(ConfigMaps, o, configMap("o"));
    await a.apply(ConfigMaps, o, configMap("o-config", "2"));
    expect(a.stats).toEqual({ written: 6, skipped: 10, owners: 1 });
  });

  it("forgets a deleted owner's children, and no other owner's", async () => {
    const a = new ChildApplier(client, manager.cache);
    const owners = { p: await owner("p"), q: await owner("q") };
    for (const [name, o] of Object.entries(owners)) await a.apply(ConfigMaps, o, configMap(name));
    a.forget(`${ns.name}/p`);
    expect(a.stats.owners).toBe(1);
    await a.apply(ConfigMaps, owners.p, configMap("p"));
    await a.apply(ConfigMaps, owners.q, configMap("q"));
    expect(a.stats).toEqual({ written: 3, skipped: 1, owners: 2 });
  });
});
