import { describe, expect, it } from "vitest";
import { dropManagedFields } from "./informer.ts";
import type { KubeObject } from "./objects.ts";
import { Store } from "./store.ts";

const webhook = (name: string, secret?: string): KubeObject => ({
  metadata: { name, namespace: "n", resourceVersion: "1" },
  spec: secret ? { sharedSecretRef: { name: secret } } : {},
});
const bySecret = (o: KubeObject) => {
  const ref = (o.spec as { sharedSecretRef?: { name: string } }).sharedSecretRef;
  return ref ? [`n/${ref.name}`] : [];
};

describe("cache store", () => {
  it("finds objects by index, and follows updates and deletes", () => {
    const store = new Store();
    store.addIndex("secret", bySecret);
    store.upsert(webhook("a", "s1"));
    store.upsert(webhook("b", "s1"));
    store.upsert(webhook("c"));
    expect(
      store
        .byIndex("secret", "n/s1")
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(["a", "b"]);
    store.upsert(webhook("b", "s2")); // the reference moved
    expect(store.byIndex("secret", "n/s1").map((o) => o.metadata?.name)).toEqual(["a"]);
    expect(store.byIndex("secret", "n/s2").map((o) => o.metadata?.name)).toEqual(["b"]);
    store.remove("n/a");
    expect(store.byIndex("secret", "n/s1")).toEqual([]);
    expect(store.size).toBe(2);
  });

  it("indexes objects already cached when an index is added late", () => {
    const store = new Store();
    store.upsert(webhook("a", "s1"));
    store.addIndex("secret", bySecret);
    expect(store.byIndex("secret", "n/s1")).toHaveLength(1);
  });

  it("names the missing index and how to add it", () => {
    expect(() => new Store().byIndex("nope", "x")).toThrow(/addIndex/);
  });

  it("lists by namespace", () => {
    const store = new Store();
    store.upsert(webhook("a"));
    store.upsert({ metadata: { name: "b", namespace: "other" } });
    expect(store.list("n").map((o) => o.metadata?.name)).toEqual(["a"]);
    expect(store.list()).toHaveLength(2);
  });

  it("drops managedFields and keeps the rest", () => {
    const obj = {
      metadata: { name: "a", managedFields: [{ manager: "kubectl" }], labels: { x: "y" } },
      data: {},
    };
    expect(dropManagedFields(obj)).toEqual({ metadata: { name: "a", labels: { x: "y" } }, data: {} });
  });
});
