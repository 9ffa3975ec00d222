import { describe, expect, it } from "vitest";
import { configHashesOf, podConfig, podsToStamp, withStamps } from "./config-restart.ts";
import type { PodFacts } from "./facts.ts";

const pod = (annotations: Record<string, string>, restartCount = 0, name = "o-0"): PodFacts => ({
  metadata: {
    name,
    uid: `${name}-uid`,
    annotations,
    ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "o", uid: "s", controller: true }],
  },
  status: { containerStatuses: [{ name: "livepeer", ready: true, restartCount }] },
});

describe("podConfig: which config a node pod runs", () => {
  it.each<[string, PodFacts, string | undefined, string, string | undefined]>([
    ["never stamped", pod({}), "B", "unknown", undefined],
    ["stamped with the current hash", pod({ "livepeer.org/config-hash": "B" }), "B", "current", "B"],
    ["stamped with an older hash", pod({ "livepeer.org/config-hash": "A" }), "B", "stale", "A"],
    [
      "asked to restart into B, not restarted yet",
      pod({
        "livepeer.org/config-hash": "A",
        "livepeer.org/config-hash-wanted": "B",
        "livepeer.org/config-restarts": "0",
      }),
      "B",
      "restarting",
      "A",
    ],
    [
      "asked to restart into B, restarted since (restartCount 1 > 0)",
      pod(
        {
          "livepeer.org/config-hash": "A",
          "livepeer.org/config-hash-wanted": "B",
          "livepeer.org/config-restarts": "0",
        },
        1,
      ),
      "B",
      "current",
      "B",
    ],
    [
      "asked for B, C is current now: stale (a new request supersedes it)",
      pod({
        "livepeer.org/config-hash": "A",
        "livepeer.org/config-hash-wanted": "B",
        "livepeer.org/config-restarts": "0",
      }),
      "C",
      "stale",
      "A",
    ],
    ["no config hash to compare with", pod({}), undefined, "current", undefined],
  ])("%s", (_, p, current, state, runs) => {
    expect(podConfig(p, current)).toMatchObject({ state, runs });
  });

  it("a pending request tells when it was asked for (for the in-place restart's timeout)", () => {
    const asked = {
      "livepeer.org/config-hash": "A",
      "livepeer.org/config-hash-wanted": "B",
      "livepeer.org/config-restarts": "0",
    };
    expect(
      podConfig(pod({ ...asked, "livepeer.org/config-restart-requested-at": "2026-11-28T01:00:00Z" }), "B"),
    ).toEqual({ state: "restarting", runs: "A", restarts: 0, askedAt: Date.parse("2026-11-28T01:00:00Z") });
    // Asked by an operator that did not record the time: no timeout to count from.
    expect(podConfig(pod(asked), "B").askedAt).toBeUndefined();
  });
});

describe("podsToStamp", () => {
  it("stamps only pods never stamped, with the hash their StatefulSet's ConfigMap holds", () => {
    const fresh = pod({}, 0, "o-1");
    const stamped = pod({ "livepeer.org/config-hash": "A" });
    const going = {
      ...pod({}, 0, "o-2"),
      metadata: { ...pod({}, 0, "o-2").metadata, deletionTimestamp: "x" },
    };
    expect(podsToStamp([fresh, stamped, going], (sts) => (sts === "o" ? "B" : undefined))).toEqual([
      { pod: fresh, hash: "B" },
    ]);
    expect(podsToStamp([fresh], () => undefined)).toEqual([]);
  });
});

describe("withStamps: the pods as the reconcile's stamps leave them", () => {
  it.each<[string, PodFacts, string | undefined, string, string | undefined]>([
    ["stamped with the hash its ConfigMap held, which then changed: stale", pod({}), "A", "stale", "A"],
    ["stamped with the hash its ConfigMap still holds: current", pod({}), "B", "current", "B"],
    ["not stamped (gone or replaced meanwhile): as cached", pod({}), undefined, "unknown", undefined],
  ])("%s", (_, p, stampedWith, state, runs) => {
    const [after] = withStamps([p], stampedWith === undefined ? [] : [{ pod: p, hash: stampedWith }]);
    expect(podConfig(after!, "B")).toMatchObject({ state, runs });
  });

  it("leaves other pods and the cached objects as they are", () => {
    const stamped = pod({ other: "x" }, 0, "o-1");
    const other = pod({});
    const after = withStamps([other, stamped], [{ pod: stamped, hash: "A" }]);
    expect(after[0]).toBe(other);
    expect(after[1]?.metadata?.annotations).toEqual({ other: "x", "livepeer.org/config-hash": "A" });
    expect(stamped.metadata?.annotations).toEqual({ other: "x" });
  });
});

describe("configHashesOf", () => {
  it("maps each StatefulSet to the config hash of the ConfigMap its pods mount", () => {
    const sts = (name: string, cm: string) => ({
      metadata: { name },
      spec: {
        selector: {},
        serviceName: "s",
        template: { spec: { containers: [], volumes: [{ name: "config", configMap: { name: cm } }] } },
      },
    });
    const cm = (name: string, hash: string) => ({ metadata: { name }, data: { "config-hash": hash } });
    expect(
      Object.fromEntries(
        configHashesOf(
          [sts("o", "o-config"), sts("t", "t-config")],
          [cm("t-config", "T"), cm("o-config", "O")],
        ),
      ),
    ).toEqual({ o: "O", t: "T" });
  });
});
