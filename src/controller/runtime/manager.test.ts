// The Manager's shared caches: one informer per resource, in the namespaces its declarations
// ask for (the manager's unless a CacheSpec names its own), and a clear error when two
// controllers declare one cache differently. Nothing here starts an informer.
import { KubeConfig } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { ConfigMaps, Secrets } from "../../kube/resources.ts";
import { Orchestrators, Webhooks } from "../../schema/resources.ts";
import { gatewayController } from "../gateway/controller.ts";
import { orchestratorController } from "../orchestrator/controller.ts";
import { webhookController } from "../webhook/controller.ts";
import { secretKeysOnly } from "../webhook/secret-cache.ts";
import { type CacheSpec, cacheDisagreement, Manager } from "./index.ts";
import type { ControllerDefinition } from "./reconciler.ts";

function manager(namespaces?: string[]): Manager {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: "c", server: "http://127.0.0.1:1" }],
    users: [{ name: "u" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return new Manager({
    kubeConfig,
    identity: "test",
    namespaces,
    leaderElection: false,
    processMetrics: false,
  });
}

const namespacesOf = (m: Manager, t: Parameters<Manager["cache"]["informer"]>[0]) =>
  m.cache.informer(t).options.namespaces;

describe("cacheDisagreement", () => {
  const keys = { resource: Secrets, transform: secretKeysOnly };
  it.each<[string, CacheSpec, CacheSpec, string | undefined]>([
    ["the same declaration", keys, { ...keys }, undefined],
    [
      "namespaces in another order",
      { ...keys, namespaces: ["a", "b"] },
      { ...keys, namespaces: ["b", "a"] },
      undefined,
    ],
    ["transforms", keys, { resource: Secrets }, "transforms"],
    [
      "label selectors",
      { resource: ConfigMaps, labelSelector: "a=b" },
      { resource: ConfigMaps },
      'label selectors ("a=b" and "")',
    ],
    [
      "own namespaces and the manager's",
      { ...keys, namespaces: ["ops"] },
      keys,
      "namespaces (ops and the manager's)",
    ],
    [
      "two namespace lists",
      { ...keys, namespaces: ["ops"] },
      { ...keys, namespaces: ["video"] },
      "namespaces (ops and video)",
    ],
  ])("%s", (_, a, b, want) => {
    expect(cacheDisagreement(a, b)).toBe(want);
  });
});

describe("Manager caches", () => {
  it("caches Webhooks and Secrets only in the webhook namespaces, the rest where the manager watches", () => {
    const m = manager(["video", "ai"]);
    m.add(webhookController({ namespaces: ["livepeer-system"] }));
    m.add(orchestratorController({ defaultImage: "livepeer/go-livepeer:test" }));
    expect(namespacesOf(m, Secrets)).toEqual(["livepeer-system"]);
    expect(namespacesOf(m, Webhooks)).toEqual(["livepeer-system"]);
    expect(namespacesOf(m, Orchestrators)).toEqual(["video", "ai"]);
    expect(namespacesOf(m, ConfigMaps)).toEqual(["video", "ai"]);
  });

  it("without webhook namespaces, Secrets are cached where the manager watches", () => {
    const m = manager(["video"]);
    m.add(webhookController());
    expect(namespacesOf(m, Secrets)).toEqual(["video"]);
  });

  it.each([
    ["orchestrator", orchestratorController({ defaultImage: "x" })],
    ["gateway", gatewayController({ defaultImage: "x" })],
  ])("the %s controller declares no Secrets cache, owner or watch (it reads them by name)", (_, def) => {
    const resources = [
      def.resource,
      ...(def.owns ?? []),
      ...(def.watches ?? []).map((w) => w.resource),
      ...(def.cache ?? []).map((c) => c.resource),
    ];
    expect(resources).toContain(Orchestrators);
    expect(resources).not.toContain(Secrets);
  });

  it("refuses a second declaration of a shared cache in other namespaces, naming both", () => {
    const m = manager();
    m.add(webhookController({ namespaces: ["livepeer-system"] }));
    const other: ControllerDefinition = {
      name: "other",
      resource: ConfigMaps,
      cache: [{ resource: Secrets, transform: secretKeysOnly, namespaces: ["video"] }],
      setup: () => ({ reconcile: async () => ({ done: true }) }),
    };
    expect(() => m.add(other)).toThrow(
      "two controllers cache secrets with different namespaces (livepeer-system and video): share one (the cache is shared)",
    );
  });
});
