import { describe, expect, it } from "vitest";
import type { KubeClient } from "../../kube/kube-client.ts";
import type { KubeObject } from "../../kube/objects.ts";
import { ConfigMaps, type ResourceType, Services, StatefulSets } from "../../kube/resources.ts";
import { ChildApplier } from "./child-applier.ts";
import type { CacheReader } from "./reconciler.ts";

/** An API server that answers applies (generation for StatefulSets, resourceVersion else) and a cache. */
function cluster() {
  const objects = new Map<string, KubeObject>();
  const id = (t: ResourceType, key: string) => `${t.plural}/${key}`;
  let rv = 0;
  const applied: string[] = [];
  const client = {
    async apply(t: ResourceType, body: KubeObject) {
      const key = `${body.metadata?.namespace}/${body.metadata?.name}`;
      applied.push(`${t.plural}/${key}`);
      const generation = (objects.get(id(t, key))?.metadata?.generation ?? 0) + 1;
      return {
        ...body,
        metadata: {
          ...body.metadata,
          resourceVersion: String(++rv),
          ...(t === StatefulSets ? { generation } : {}),
        },
      };
    },
  } as unknown as KubeClient;
  const cache = {
    get: (t: ResourceType, key: string) => objects.get(id(t, key)),
    informer: (t: ResourceType) => ({
      applyWritten: (o: KubeObject) => {
        objects.set(id(t, `${o.metadata?.namespace}/${o.metadata?.name}`), o);
        return true;
      },
    }),
  } as unknown as CacheReader;
  /** Someone else's edit: the version moves. */
  const edit = (t: ResourceType, key: string, generation?: number) => {
    const o = objects.get(id(t, key))!;
    objects.set(id(t, key), {
      ...o,
      metadata: { ...o.metadata, resourceVersion: String(++rv), ...(generation ? { generation } : {}) },
    });
  };
  return { client, cache, applied, objects, edit };
}

const owner = (name: string): KubeObject => ({
  apiVersion: "livepeer.org/v1alpha1",
  kind: "Orchestrator",
  metadata: { name, namespace: "video", uid: `uid-${name}` },
});
const child = (kind: string, name: string, data = "1"): KubeObject =>
  ({ apiVersion: "v1", kind, metadata: { name }, data: { data } }) as KubeObject;

describe("ChildApplier", () => {
  it("writes a child once, again when it changes, and skips it while nothing moved", async () => {
    const c = cluster();
    const a = new ChildApplier(c.client, c.cache);
    const o = owner("o");
    await a.apply(ConfigMaps, o, child("ConfigMap", "o"));
    await a.apply(ConfigMaps, o, child("ConfigMap", "o"));
    expect(a.stats).toEqual({ written: 1, skipped: 1, owners: 1 });
    await a.apply(ConfigMaps, o, child("ConfigMap", "o", "2"));
    await a.apply(ConfigMaps, o, child("ConfigMap", "o", "2"));
    expect(a.stats).toEqual({ written: 2, skipped: 2, owners: 1 });
    expect(c.applied).toEqual(["configmaps/video/o", "configmaps/video/o"]);
  });

  it("writes again when someone else moved the child's version or the cache lost it", async () => {
    const c = cluster();
    const a = new ChildApplier(c.client, c.cache);
    const o = owner("o");
    await a.apply(ConfigMaps, o, child("ConfigMap", "o"));
    c.edit(ConfigMaps, "video/o");
    await a.apply(ConfigMaps, o, child("ConfigMap", "o"));
    expect(a.stats.written).toBe(2);
    // A StatefulSet's status writes move its resourceVersion, not its generation: no drift.
    await a.apply(StatefulSets, o, child("StatefulSet", "o"));
    c.edit(StatefulSets, "video/o");
    await a.apply(StatefulSets, o, child("StatefulSet", "o"));
    expect(a.stats.written).toBe(3);
    c.edit(StatefulSets, "video/o", 7);
    await a.apply(StatefulSets, o, child("StatefulSet", "o"));
    expect(a.stats.written).toBe(4);
    c.objects.clear();
    await a.apply(StatefulSets, o, child("StatefulSet", "o"));
    expect(a.stats).toEqual({ written: 5, skipped: 1, owners: 1 });
  });

  it("keeps each child of an owner apart, also children whose keys begin alike, applied at once", async () => {
    const c = cluster();
    const a = new ChildApplier(c.client, c.cache);
    const o = owner("o");
    const children: [ResourceType, KubeObject][] = [
      [ConfigMaps, child("ConfigMap", "o")],
      [ConfigMaps, child("ConfigMap", "o-config")],
      [ConfigMaps, child("ConfigMap", "o-")],
      [Services, child("Service", "o")],
      [StatefulSets, child("StatefulSet", "o")],
    ];
    await Promise.all(children.map(([t, body]) => a.apply(t, o, body)));
    await Promise.all(children.map(([t, body]) => a.apply(t, o, body)));
    expect(a.stats).toEqual({ written: 5, skipped: 5, owners: 1 });
    // One child changes: only it is written, the others are still remembered.
    await a.apply(ConfigMaps, o, child("ConfigMap", "o-config", "2"));
    await Promise.all(children.slice(2).map(([t, body]) => a.apply(t, o, body)));
    await a.apply(ConfigMaps, o, child("ConfigMap", "o"));
    await a.apply(ConfigMaps, o, child("ConfigMap", "o-config", "2"));
    expect(a.stats).toEqual({ written: 6, skipped: 10, owners: 1 });
  });

  it("forgets a deleted owner's children, and no other owner's", async () => {
    const c = cluster();
    const a = new ChildApplier(c.client, c.cache);
    for (const name of ["o", "p"]) await a.apply(ConfigMaps, owner(name), child("ConfigMap", name));
    a.forget("video/o");
    expect(a.stats.owners).toBe(1);
    await a.apply(ConfigMaps, owner("o"), child("ConfigMap", "o"));
    await a.apply(ConfigMaps, owner("p"), child("ConfigMap", "p"));
    expect(a.stats).toEqual({ written: 3, skipped: 1, owners: 2 });
  });
});
