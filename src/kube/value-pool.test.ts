import { describe, expect, it } from "vitest";
import { shareParts, ValuePool } from "./value-pool.ts";

const child = (name: string, owner: string, rv: string) => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: {
    name,
    namespace: "ns",
    resourceVersion: rv,
    labels: { "app.kubernetes.io/managed-by": "livepeer-operator", "app.kubernetes.io/instance": owner },
    ownerReferences: [
      {
        apiVersion: "livepeer.org/v1alpha1",
        kind: "Orchestrator",
        name: owner,
        uid: `uid-${owner}`,
        controller: true,
      },
    ],
  },
  spec: { type: "ClusterIP", ports: [{ name: "http", port: 8935 }] },
  status: {
    conditions: [
      { type: "Ready", status: "True", reason: "PodReady", lastTransitionTime: "2026-11-29T00:00:00Z" },
      { type: "Scheduled", status: "True", reason: owner, lastTransitionTime: "2026-11-29T00:00:00Z" },
    ],
  },
});

describe("ValuePool", () => {
  it("hands back one frozen copy for equal values, and never freezes or keeps what it was given", () => {
    const pool = new ValuePool();
    const a = { port: 8935, names: ["a", "b"] };
    const b = { port: 8935, names: ["a", "b"] };
    const shared = pool.share(a);
    expect(shared).not.toBe(a);
    expect(shared).toEqual(a);
    expect(Object.isFrozen(shared) && Object.isFrozen(shared.names)).toBe(true);
    expect(Object.isFrozen(a) || Object.isFrozen(a.names)).toBe(false);
    expect(pool.share(b)).toBe(shared);
    expect(pool.size).toBe(1);
  });

  it.each([
    ["another value", { port: 8935 }, { port: 8936 }],
    ["the same keys in another order", { a: 1, b: 2 }, { b: 2, a: 1 }],
    ["a key set to undefined against a key missing", { a: 1, b: undefined }, { a: 1 }],
    ["null against an empty object", { a: null }, { a: {} }],
    ["an array against an object with its indices", { a: ["x"] }, { a: { 0: "x" } }],
    ["a number against its string", { a: 1 }, { a: "1" }],
  ])("%s is not shared", (_what, x, y) => {
    const pool = new ValuePool();
    expect(pool.share(y)).not.toBe(pool.share(x));
    expect(pool.share(y)).toEqual(y);
  });

  it.each([
    ["a string", "abc"],
    ["a number", 7],
    ["null", null],
    ["a value over 2,048 characters", { message: "x".repeat(2_049) }],
    ["an instance of a class", new Date(0)],
  ])("%s comes back as it is, unpooled", (_what, v) => {
    const pool = new ValuePool();
    expect(pool.share(v)).toBe(v);
    expect(pool.size).toBe(0);
  });

  it("starts over when full; values shared before stay what they were", () => {
    const pool = new ValuePool(2);
    const first = pool.share({ n: 1 });
    pool.share({ n: 2 });
    pool.share({ n: 3 });
    expect(pool.resets).toBe(1);
    expect(pool.size).toBe(1);
    expect(first).toEqual({ n: 1 });
    expect(pool.share({ n: 1 })).not.toBe(first); // the next copy is the new shared one
  });
});

describe("shareParts", () => {
  it("shares labels, owners, spec and each condition across objects; the input is untouched", () => {
    const pool = new ValuePool();
    const one = child("o-1-cli", "o-1", "10");
    const two = child("o-1-rpc", "o-1", "11");
    const before = structuredClone(one);
    const a = shareParts(one, pool);
    const b = shareParts(two, pool);
    expect(a).toEqual(before);
    expect(one).toEqual(before);
    expect(Object.isFrozen(one.metadata.labels) || Object.isFrozen(one.spec)).toBe(false);
    expect(a.metadata).not.toBe(one.metadata);
    expect(b.metadata.labels).toBe(a.metadata.labels);
    expect(b.metadata.ownerReferences).toBe(a.metadata.ownerReferences);
    expect(b.spec).toBe(a.spec);
    expect(b.status.conditions[0]).toBe(a.status.conditions[0]);
    expect(b.status.conditions).not.toBe(a.status.conditions);
    // Another owner: its own labels, owners and the condition that names it.
    const c = shareParts(child("o-2-cli", "o-2", "12"), pool);
    expect(c.metadata.labels).not.toBe(a.metadata.labels);
    expect(c.metadata.ownerReferences).not.toBe(a.metadata.ownerReferences);
    expect(c.spec).toBe(a.spec);
    expect(c.status.conditions[0]).toBe(a.status.conditions[0]);
    expect(c.status.conditions[1]).not.toBe(a.status.conditions[1]);
  });

  it("a shared part cannot be changed in place: the change would reach every object sharing it", () => {
    const pool = new ValuePool();
    const a = shareParts(child("o-1-cli", "o-1", "10"), pool);
    expect(() => {
      (a.metadata.labels as Record<string, string>)["x"] = "y";
    }).toThrow(TypeError);
    expect(() => {
      a.spec.ports[0]!.port = 1;
    }).toThrow(TypeError);
    expect(() => {
      a.status.conditions[0]!.status = "False";
    }).toThrow(TypeError);
  });

  it("an object without those parts comes back as an equal copy", () => {
    const pool = new ValuePool();
    const node = { metadata: { name: "n" }, data: { a: "b" } };
    expect(shareParts(node, pool)).toEqual(node);
    expect(pool.size).toBe(0);
  });
});
