import { describe, expect, it } from "vitest";
import { StringPool } from "./string-pool.ts";

const pod = (name: string, uid: string, rv: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name,
    uid,
    resourceVersion: rv,
    labels: { "app.kubernetes.io/managed-by": "livepeer-operator" },
    ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "o", uid: "owner-uid" }],
  },
  status: { conditions: [{ type: "Ready", status: "True", message: null }], hostIP: undefined },
});

describe("StringPool", () => {
  it("changes nothing anyone can read: the same object, equal in every field", () => {
    const pool = new StringPool();
    const obj = pod("o-0", "u-0", "1");
    const copy = structuredClone(obj);
    expect(pool.internAll(obj)).toBe(obj);
    expect(obj).toEqual(copy);
  });

  it("keeps each distinct string once across objects, never a resourceVersion", () => {
    const pool = new StringPool();
    pool.internAll(pod("o-0", "u-0", "1"));
    // v1 Pod o-0 u-0 livepeer-operator apps/v1 StatefulSet o owner-uid Ready True: not "1".
    expect(pool.size).toBe(11);
    pool.internAll(pod("o-1", "u-1", "2"));
    expect(pool.size).toBe(13); // only the new name and uid: the owner's uid is shared
  });

  it.each([
    ["a string longer than 256 characters", "x".repeat(257), 0],
    ["one of 256", "x".repeat(256), 1],
    ["an empty one", "", 1],
  ])("%s: pooled %s", (_what, s, size) => {
    const pool = new StringPool();
    expect(pool.intern(s)).toBe(s);
    expect(pool.size).toBe(size);
  });

  it("starts over when full, so it never holds more than its capacity", () => {
    const pool = new StringPool(3);
    for (const s of ["a", "b", "c"]) pool.intern(s);
    expect([pool.size, pool.resets]).toEqual([3, 0]);
    pool.intern("a"); // already held: no room needed
    expect([pool.size, pool.resets]).toEqual([3, 0]);
    pool.intern("d");
    expect([pool.size, pool.resets]).toEqual([1, 1]);
  });

  it("walks arrays of strings and nested arrays", () => {
    const pool = new StringPool();
    const obj = { spec: { args: ["-orchestrator", ["-v", "6"]], hosts: [] as string[] } };
    pool.internAll(obj);
    expect(pool.size).toBe(3);
    expect(obj).toEqual({ spec: { args: ["-orchestrator", ["-v", "6"]], hosts: [] } });
  });
});
