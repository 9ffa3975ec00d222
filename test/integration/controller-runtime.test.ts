// The controller-runtime against the real local control plane: informers through 410 Gone and
// watch failures, 409 conflicts, Events, leader election between two `livepeer-operator
// controller` processes (failover on SIGKILL and SIGTERM, measured), and metrics that move.
import path from "node:path";
import { CoreV1Api, RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  ChildApplier,
  type ControllerDefinition,
  done,
  EventRecorder,
  Manager,
} from "../../src/controller/runtime/index.ts";
import type { Lease } from "../../src/controller/runtime/leader-election.ts";
import { renderKubeconfig } from "../../src/dev/cluster/kubeconfig.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import {
  applyOwned,
  applyStatus,
  ConfigMaps,
  Events,
  Informer,
  KubeClient,
  type KubeObject,
  Leases,
  PooledKubeConfig,
  StatefulSets,
  updateWithRetry,
} from "../../src/kube/index.ts";
import { createLogger } from "../../src/process/log.ts";
import { Webhooks } from "../../src/schema/resources.ts";
import { kubeClient, kubectl, pooledKubeConfig, testNamespace, uniqueName } from "./support/cluster.ts";
import {
  type ControllerProcess,
  sample,
  scrape,
  startController,
  stopAllControllers,
} from "./support/controller-process.ts";
import { installCrds } from "./support/crds.ts";

const { kc, client } = kubeClient();
const core = kc.makeApiClient(CoreV1Api);
let ns: Awaited<ReturnType<typeof testNamespace>>;
const informers: Informer[] = [];
const fastRetry = { backoff: { initialMs: 100, maxMs: 1000 } };

beforeAll(async () => {
  ns = await testNamespace("rt");
  await installCrds(kubectl);
});
afterAll(async () => {
  await stopAllControllers();
  await Promise.all(informers.map((i) => i.stop()));
  await ns.remove();
  await kc.close();
});

function track<T extends KubeObject>(informer: Informer<T>) {
  informers.push(informer as unknown as Informer);
  const events: string[] = [];
  informer.addHandlers({
    onAdd: (o) => events.push(`add ${o.metadata?.name}`),
    onUpdate: (_old, o) => events.push(`update ${o.metadata?.name}`),
    onDelete: (o) => events.push(`delete ${o.metadata?.name}`),
  });
  return events;
}

const configMap = (name: string, data: Record<string, string> = {}) => ({
  metadata: { name, namespace: ns.name },
  data,
});

/**
 * A custom resource of this test alone (its own group): the API server starts its watch cache
 * when the CRD is established, so any resourceVersion from before is too old (410 Gone), and
 * deleting the CRD breaks watches on it.
 */
async function gadgetResource(plural: string) {
  const group = `${ns.name}.test.livepeer.org`;
  const manifest = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: ${plural}.${group} }
spec:
  group: ${group}
  names: { kind: Gadget, plural: ${plural}, singular: ${plural.replace(/s$/, "")} }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }
`;
  const type = { group, version: "v1", plural, kind: "Gadget", namespaced: true };
  const install = async () => {
    await kubectl(["apply", "-f", "-"], manifest);
    await kubectl(["wait", "--for=condition=Established", `crd/${plural}.${group}`, "--timeout=30s"]);
    await waitFor(
      `${plural} to be served`,
      async () => !!(await client.list(type, { namespace: ns.name })),
      10_000,
    );
  };
  await install();
  return {
    type,
    install,
    remove: (wait: boolean) => kubectl(["delete", "crd", `${plural}.${group}`, `--wait=${wait}`]),
    create: (name: string, size = 1) =>
      client.create<KubeObject>(type, { metadata: { name, namespace: ns.name }, spec: { size } }),
  };
}

describe("informer", () => {
  it("relists after 410 Gone and reports every change made while it was away", async () => {
    const gadgets = await gadgetResource("relisted");
    await gadgets.create("keep");
    await gadgets.create("gone");
    const informer = new Informer(client, { resource: gadgets.type, namespaces: [ns.name], ...fastRetry });
    const events = track(informer);
    informer.start();
    await informer.waitForSync();
    expect(events.sort()).toEqual(["add gone", "add keep"]);

    // Away: the watch is closed while objects change.
    await informer.stop();
    events.length = 0;
    await client.mergePatch(gadgets.type, ns.name, "keep", { spec: { size: 2 } });
    await client.delete(gadgets.type, ns.name, "gone");
    await gadgets.create("new");

    // Resume from a version older than the API server keeps (as after etcd's ~5 minute window):
    // it answers 410 Gone, and only a relist can tell what changed.
    informer.start({ resumeFrom: "1" });
    await waitFor(
      "the relist to bring the cache up to date",
      async () => events.length >= 3,
      20_000,
      () => events.join(", "),
    );
    expect(events.sort()).toEqual(["add new", "delete gone", "update keep"]);
    expect(informer.store.get(`${ns.name}/keep`)?.spec).toEqual({ size: 2 });
    expect(informer.store.get(`${ns.name}/gone`)).toBeUndefined();
    expect(informer.health()).toMatchObject({ relists: 2, synced: true });

    // And it watches again after the relist.
    await gadgets.create("after");
    await waitFor(
      "the watch after the relist",
      async () => events.includes("add after"),
      10_000,
      () => events.join(", "),
    );
    // The cache holds what reconcilers need, not managedFields.
    expect(informer.store.get(`${ns.name}/after`)?.metadata?.managedFields).toBeUndefined();
    await informer.stop();
    await gadgets.remove(false);
  });

  it("caches this process's own write at once, and its watch event is then no news", async () => {
    const informer = new Informer<KubeObject>(client, { resource: ConfigMaps, namespaces: [ns.name] });
    informers.push(informer);
    const events: string[] = [];
    informer.addHandlers({
      onAdd: (o, origin) => events.push(`add ${o.metadata?.name} ${origin ?? "watch"}`),
      onUpdate: (_old, o, origin) => events.push(`update ${o.metadata?.name} ${origin ?? "watch"}`),
      onDelete: (o) => events.push(`delete ${o.metadata?.name}`),
    });
    informer.start();
    await informer.waitForSync();
    const seen = (name: string) =>
      waitFor(
        `the watch to bring ${name}`,
        async () => events.includes(`add ${name} watch`),
        10_000,
        () => events.join(", "),
      );

    // Our write is one event, whichever comes first: cached when written (the usual order), or
    // brought by the watch before the API server's answer was read (then applyWritten is a no-op).
    const once = async (name: string, write: () => Promise<KubeObject>, kind: "add" | "update") => {
      const before = events.filter((e) => e.includes(` ${name} `)).length;
      const answer = await write();
      const cached = informer.applyWritten(answer);
      expect(informer.store.get(`${ns.name}/${name}`)?.metadata?.resourceVersion).toBe(
        answer.metadata?.resourceVersion,
      );
      // An object created after it: once the watch brings that, it has brought ours (one
      // stream, in resourceVersion order).
      const marker = uniqueName("after");
      await client.create(ConfigMaps, configMap(marker));
      await seen(marker);
      expect(events.filter((e) => e.includes(` ${name} `)).slice(before)).toEqual([
        `${kind} ${name} ${cached ? "written" : "watch"}`,
      ]);
      return answer;
    };
    const mine = await once(
      "mine",
      () => client.create<KubeObject>(ConfigMaps, configMap("mine", { a: "1" })),
      "add",
    );
    expect(informer.store.get(`${ns.name}/mine`)?.metadata?.managedFields).toBeUndefined();
    const edited = await once(
      "mine",
      () => client.mergePatch<KubeObject>(ConfigMaps, ns.name, "mine", { data: { a: "2" } }),
      "update",
    );

    // A version the watch already passed is not cached again: an older answer, a deleted object.
    expect(informer.applyWritten(mine)).toBe(false);
    expect(informer.store.get(`${ns.name}/mine`)?.metadata?.resourceVersion).toBe(
      edited.metadata?.resourceVersion,
    );
    const doomed = await client.create<KubeObject>(ConfigMaps, configMap("doomed"));
    await seen("doomed");
    await client.delete(ConfigMaps, ns.name, "doomed");
    await waitFor("the deletion", async () => events.includes("delete doomed"), 10_000);
    expect(informer.applyWritten(doomed)).toBe(false);
    expect(informer.store.get(`${ns.name}/doomed`)).toBeUndefined();

    // What the watch would not deliver is left to it: another namespace, another selector.
    const selective = new Informer<KubeObject>(client, {
      resource: ConfigMaps,
      namespaces: [ns.name],
      labelSelector: "app.kubernetes.io/managed-by=livepeer-operator",
    });
    informers.push(selective);
    selective.start();
    await selective.waitForSync();
    const unlabelled = await client.create<KubeObject>(ConfigMaps, configMap("unlabelled"));
    expect(selective.applyWritten(unlabelled)).toBe(false);
    expect(selective.store.get(`${ns.name}/unlabelled`)).toBeUndefined();
    const labelled = await client.create<KubeObject>(ConfigMaps, {
      metadata: {
        name: "labelled",
        namespace: ns.name,
        labels: { "app.kubernetes.io/managed-by": "livepeer-operator" },
      },
    });
    // In the cache at once (cached now, or already by a watch that was quicker than the answer).
    selective.applyWritten(labelled);
    expect(selective.store.get(`${ns.name}/labelled`)?.metadata?.resourceVersion).toBe(
      labelled.metadata?.resourceVersion,
    );
    expect(selective.isOwnWrite(labelled)).toBe(true);
    expect(selective.isOwnWrite(unlabelled)).toBe(false);
    await Promise.all([informer.stop(), selective.stop()]);
  });

  it("recovers when its watch fails: the resource disappears from the API and comes back", async () => {
    const gadgets = await gadgetResource("flaky");
    await gadgets.create("g1");
    const informer = new Informer(client, { resource: gadgets.type, namespaces: [ns.name], ...fastRetry });
    const events = track(informer);
    informer.start();
    await informer.waitForSync();
    expect(events).toEqual(["add g1"]);

    await gadgets.remove(true);
    await waitFor(
      "the informer to report the failing watch",
      async () => /404|NotFound|not found/i.test(informer.health().lastError ?? ""),
      30_000,
      () => JSON.stringify(informer.health()),
    );
    expect(informer.health().watching).toBe(false);
    expect(informer.health().dead).toBe(false); // failing and retried: not dead

    await gadgets.install();
    await gadgets.create("g2");
    await waitFor(
      "the informer to recover and see g2",
      async () => informer.store.get(`${ns.name}/g2`) !== undefined,
      30_000,
      () => `${events.join(", ")} ${JSON.stringify(informer.health())}`,
    );
    expect(informer.store.get(`${ns.name}/g1`)).toBeUndefined(); // deleted with its CRD
    expect(events).toContain("delete g1");
    expect(informer.health()).toMatchObject({ synced: true, watching: true, dead: false });
    expect(informer.health().lastError).toBeUndefined();
    expect(informer.health().restarts).toBeGreaterThan(0);
    await informer.stop();
    await gadgets.remove(false);
  });

  it("never gives up while forbidden, and syncs once RBAC allows it", async () => {
    const sa = uniqueName("reader");
    await core.createNamespacedServiceAccount({ namespace: ns.name, body: { metadata: { name: sa } } });
    const token = await core.createNamespacedServiceAccountToken({
      name: sa,
      namespace: ns.name,
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    const saKc = new PooledKubeConfig();
    saKc.loadFromString(
      renderKubeconfig(
        kc.getCurrentCluster()!.server,
        path.join(inject("controlPlaneDir"), "pki", "ca.crt"),
        {
          token: token.status!.token,
        },
      ),
    );
    const informer = new Informer(new KubeClient(saKc), {
      resource: ConfigMaps,
      namespaces: [ns.name],
      ...fastRetry,
    });
    informers.push(informer);
    informer.start();
    await waitFor(
      "the informer to report the 403",
      async () => informer.health().restarts >= 2,
      20_000,
      () => JSON.stringify(informer.health()),
    );
    expect(informer.health().lastError).toMatch(/403 Forbidden/);
    expect(informer.hasSynced()).toBe(false);

    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: ns.name,
      body: {
        metadata: { name: sa },
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["list", "watch"] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns.name,
      body: {
        metadata: { name: sa },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: sa },
        subjects: [{ kind: "ServiceAccount", name: sa, namespace: ns.name }],
      },
    });
    await waitFor(
      "the informer to sync",
      async () => informer.hasSynced(),
      20_000,
      () => JSON.stringify(informer.health()),
    );
    expect(informer.health().lastError).toBeUndefined();
    await informer.stop();
    await saKc.close();
  });
});

describe("writes", () => {
  it("retries 409 Conflict: ten concurrent read-modify-writes of one object all land", async () => {
    await client.create(ConfigMaps, configMap("counter", { n: "0" }));
    let conflicts = 0;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        updateWithRetry<KubeObject & { data?: Record<string, string> }>(
          client,
          ConfigMaps,
          ns.name,
          "counter",
          (cm) => ({ ...cm, data: { n: String(Number(cm.data?.n ?? 0) + 1) } }),
          { attempts: 50, onConflict: () => conflicts++ },
        ),
      ),
    );
    const counter = await client.get<KubeObject & { data?: Record<string, string> }>(
      ConfigMaps,
      ns.name,
      "counter",
    );
    expect(counter.data?.n).toBe("10");
    expect(conflicts).toBeGreaterThan(0);
    process.stderr.write(`[controller-runtime] 10 concurrent updates: ${conflicts} conflicts retried\n`);
  });

  it("switches a StatefulSet made with the default RollingUpdate (as 0.1.0 made them) to OnDelete", async () => {
    const owner = await client.create<KubeObject>(Webhooks, {
      metadata: { name: "sts-owner", namespace: ns.name },
      spec: { name: "sts-owner", url: "https://example.com/h" },
    });
    const sts = (type?: string) => ({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "old-node" },
      spec: {
        serviceName: "old-node",
        replicas: 0,
        selector: { matchLabels: { app: "old-node" } },
        ...(type ? { updateStrategy: { type } } : {}),
        template: {
          metadata: { labels: { app: "old-node" } },
          spec: { containers: [{ name: "livepeer", image: "livepeer/go-livepeer:0.8.8" }] },
        },
      },
    });
    type Stored = KubeObject & {
      spec: { updateStrategy: { type: string; rollingUpdate?: unknown } };
      status?: { updateRevision?: string };
    };
    // 0.1.0 set no update strategy: the API server defaulted RollingUpdate with a partition no apply owns.
    const before = await applyOwned<Stored>(client, StatefulSets, owner, sts());
    expect(before.spec.updateStrategy).toEqual({ type: "RollingUpdate", rollingUpdate: { partition: 0 } });
    const after = await applyOwned<Stored>(client, StatefulSets, owner, sts("OnDelete"));
    expect(after.spec.updateStrategy).toEqual({ type: "OnDelete" });
    expect(after.metadata?.generation).toBe((before.metadata?.generation ?? 0) + 1);
    const again = await applyOwned<Stored>(client, StatefulSets, owner, sts("OnDelete"));
    expect(again.metadata?.generation).toBe(after.metadata?.generation);
  });

  it("applies children with a controller owner reference and status with its own field manager", async () => {
    const owner = await client.create<KubeObject>(Webhooks, {
      metadata: { name: "owner", namespace: ns.name },
      spec: { name: "owner", url: "https://example.com/h" },
    });
    const child = await applyOwned(client, ConfigMaps, owner, {
      metadata: { name: "owned-child" },
      data: { a: "1" },
    });
    expect(child.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "livepeer.org/v1alpha1",
        kind: "Webhook",
        name: "owner",
        uid: owner.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const updated = await applyStatus(client, Webhooks, owner, { observedGeneration: 1 });
    const managers = (updated.metadata?.managedFields ?? []) as Array<{
      manager: string;
      operation: string;
      subresource?: string;
    }>;
    expect(managers).toContainEqual(
      expect.objectContaining({
        manager: "livepeer-operator-status",
        operation: "Apply",
        subresource: "status",
      }),
    );
    const childManagers = (child.metadata?.managedFields ?? []) as Array<{
      manager: string;
      operation: string;
    }>;
    expect(childManagers).toContainEqual(
      expect.objectContaining({ manager: "livepeer-operator", operation: "Apply" }),
    );
    // (Garbage collection through this reference is proven in webhook-controller.test.ts.)
  });

  it("records one Event per object, reason and message, counting repeats in its series", async () => {
    const regarding = await client.create<KubeObject>(ConfigMaps, configMap("noisy"));
    const recorder = new EventRecorder(client, {
      controller: "livepeer.org/livepeer-operator",
      instance: "test",
    });
    for (let i = 0; i < 3; i++) {
      recorder.event(
        { ...regarding, apiVersion: "v1", kind: "ConfigMap" },
        { type: "Warning", reason: "SecretNotFound", message: "same" },
      );
      await recorder.flush();
    }
    recorder.event(
      { ...regarding, apiVersion: "v1", kind: "ConfigMap" },
      { type: "Normal", reason: "Configured", message: "other" },
    );
    await recorder.flush();
    const events = (
      await client.list<
        KubeObject & { reason?: string; series?: { count: number }; regarding?: { name?: string } }
      >(Events, {
        namespace: ns.name,
      })
    ).items.filter((e) => e.regarding?.name === "noisy");
    expect(events.map((e) => e.reason).sort()).toEqual(["Configured", "SecretNotFound"]);
    expect(events.find((e) => e.reason === "SecretNotFound")?.series?.count).toBe(3);
  });

  type EventView = KubeObject & {
    reason?: string;
    series?: { count: number };
    regarding?: { name?: string };
  };
  const eventsAbout = async (namespace: string, name: string) =>
    (await client.list<EventView>(Events, { namespace })).items.filter((e) => e.regarding?.name === name);

  it("counts repeats fired at once on their one Event, in order; after the window a new Event, and the old series is let go", async () => {
    const regarding = {
      ...(await client.create<KubeObject>(ConfigMaps, configMap("windowed"))),
      apiVersion: "v1",
      kind: "ConfigMap",
    };
    let now = 0;
    const recorder = new EventRecorder(client, {
      controller: "livepeer.org/livepeer-operator",
      instance: "test",
      windowMs: 60_000,
      now: () => now,
    });
    const spec = { type: "Warning" as const, reason: "SecretNotFound", message: "fired at once" };
    // Not flushed in between: the count updates must follow the create, in their order.
    for (let i = 0; i < 4; i++) recorder.event(regarding, spec);
    await recorder.flush();
    const first = await eventsAbout(ns.name, "windowed");
    expect(first.map((e) => [e.reason, e.series?.count])).toEqual([["SecretNotFound", 4]]);
    expect(recorder.sizes).toEqual({ series: 1, buckets: 1 });

    now = 60_001; // the window has passed
    recorder.event(regarding, spec);
    await recorder.flush();
    const after = await eventsAbout(ns.name, "windowed");
    expect(after).toHaveLength(2);
    const fresh = after.find((e) => e.metadata?.name !== first[0]?.metadata?.name);
    expect(fresh?.series).toBeUndefined();
    expect(recorder.sizes.series).toBe(1);
  });

  it("an Event the API server refused is created at the next occurrence", async () => {
    // Its namespace does not exist yet: the API server refuses the Event (404).
    const missing = uniqueName("rt-events");
    const regarding: KubeObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "refused", namespace: missing, uid: "uid-refused" },
    };
    const recorder = new EventRecorder(client, {
      controller: "livepeer.org/livepeer-operator",
      instance: "test",
    });
    const spec = { type: "Warning" as const, reason: "SecretNotFound", message: "refused first" };
    recorder.event(regarding, spec);
    await recorder.flush();
    await kubectl(["create", "namespace", missing]);
    try {
      recorder.event(regarding, spec);
      await recorder.flush();
      const events = await eventsAbout(missing, "refused");
      expect(events.map((e) => [e.reason, e.series?.count])).toEqual([["SecretNotFound", undefined]]);
    } finally {
      await kubectl(["delete", "namespace", missing, "--wait=false"]);
    }
  });
});

describe("manager", () => {
  it("maps events on owned children to their owner: a deleted or edited child is put back", async () => {
    const reconciled: string[] = [];
    const manager = new Manager({
      kubeConfig: pooledKubeConfig(),
      identity: "owner-mapping-test",
      namespaces: [ns.name],
      leaderElection: false,
      processMetrics: false,
    });
    // The shape every reconciler of this project has: read the primary from the cache, apply
    // children built by a pure function, report done.
    const definition: ControllerDefinition = {
      name: "child-keeper",
      resource: Webhooks,
      owns: [ConfigMaps],
      setup: ({ client: c, cache }) => ({
        async reconcile(key) {
          reconciled.push(key);
          const owner = cache.get<KubeObject>(Webhooks, key);
          if (!owner) return done;
          await applyOwned(c, ConfigMaps, owner, {
            metadata: { name: `${owner.metadata?.name}-child` },
            data: { wanted: "yes" },
          });
          return done;
        },
      }),
    };
    manager.add(definition);
    await manager.start();
    try {
      await client.create(Webhooks, {
        metadata: { name: "parent", namespace: ns.name },
        spec: { name: "parent", url: "https://example.com/h" },
      });
      const child = () =>
        client.get<KubeObject & { data?: Record<string, string> }>(ConfigMaps, ns.name, "parent-child");
      await waitFor("the child", async () => (await child()).data?.wanted === "yes", 10_000);
      await client.delete(ConfigMaps, ns.name, "parent-child");
      await waitFor(
        "the deleted child to be put back",
        async () => (await child()).data?.wanted === "yes",
        10_000,
      );
      await client.mergePatch(ConfigMaps, ns.name, "parent-child", { data: { wanted: "no" } });
      await waitFor(
        "the edited child to be put back",
        async () => (await child()).data?.wanted === "yes",
        10_000,
      );
      // Child events were mapped to the owner's key, never reconciled as keys of their own.
      expect(reconciled.filter((k) => k === `${ns.name}/parent`).length).toBeGreaterThanOrEqual(3);
      expect(reconciled).not.toContain(`${ns.name}/parent-child`);
    } finally {
      await manager.stop();
    }
  });
});

describe("manager: a controller's own writes", () => {
  it("do not wake the owner again; someone else's edit of a child does", async () => {
    const reconciled: string[] = [];
    let finished = 0;
    const manager = new Manager({
      kubeConfig: pooledKubeConfig(),
      identity: "own-writes-test",
      namespaces: [ns.name],
      leaderElection: false,
      processMetrics: false,
      // A short coalescing window: an echo is judged when it ends (isOwnWrite).
      coalesceMs: 200,
    });
    manager.add({
      name: "child-writer",
      resource: Webhooks,
      owns: [ConfigMaps],
      setup: ({ client: c, cache }) => {
        const children = new ChildApplier(c, cache);
        return {
          async reconcile(key) {
            reconciled.push(key);
            const owner = cache.get<KubeObject>(Webhooks, key);
            if (owner) {
              for (const suffix of ["a", "b"]) {
                await children.apply(ConfigMaps, owner, {
                  metadata: { name: `${owner.metadata?.name}-${suffix}`, namespace: ns.name },
                  data: { wanted: "yes" },
                });
                // What it wrote, it reads back from the cache at once.
                if (!cache.get(ConfigMaps, `${ns.name}/${owner.metadata?.name}-${suffix}`)) {
                  throw new Error(`${suffix} not in the cache after its write`);
                }
              }
            }
            finished++;
            return done;
          },
        };
      },
    });
    const watched: string[] = [];
    manager.cache.informer(ConfigMaps).addHandlers({ onAdd: (o) => watched.push(o.metadata?.name ?? "") });
    await manager.start();
    const enqueuedByConfigMaps = async () =>
      Number(
        /livepeer_operator_enqueues_total\{controller="child-writer",cause="ConfigMap"\} (\d+)/.exec(
          await manager.metrics.registry.metrics(),
        )?.[1] ?? 0,
      );
    try {
      await client.create(Webhooks, {
        metadata: { name: "writer", namespace: ns.name },
        spec: { name: "writer", url: "https://example.com/h" },
      });
      await waitFor("the first reconcile", async () => finished >= 1, 10_000);
      // An object created after the children: once the watch brings it, it has brought their
      // events (one stream, in order), and the handlers have run for them.
      await client.create(ConfigMaps, configMap("marker"));
      await waitFor("the marker", async () => watched.includes("marker"), 10_000);
      // Every window an event opened has ended (and counted its enqueue, if any).
      const queue = () => manager.controllers.find((x) => x.name === "child-writer")?.queue;
      await waitFor("the coalescing windows to end", async () => queue()?.holding === 0, 10_000);
      const writer = () => reconciled.filter((k) => k === `${ns.name}/writer`);
      expect(writer()).toEqual([`${ns.name}/writer`]);
      expect(await enqueuedByConfigMaps()).toBe(0);

      // Someone else's edit of a child wakes the owner, which puts it back.
      await client.mergePatch(ConfigMaps, ns.name, "writer-a", { data: { wanted: "no" } });
      await waitFor(
        "the edited child to be put back",
        async () =>
          (await client.get<KubeObject & { data?: Record<string, string> }>(ConfigMaps, ns.name, "writer-a"))
            .data?.wanted === "yes",
        10_000,
      );
      expect(await enqueuedByConfigMaps()).toBeGreaterThanOrEqual(1);
      expect(writer().length).toBeGreaterThanOrEqual(2);
    } finally {
      await manager.stop();
    }
  });
});

describe("manager: work before leading", () => {
  const managerWith = (
    identity: string,
    lease: string,
    beforeLeading: (s: AbortSignal) => Promise<void>,
    lines: string[] = [],
  ) => {
    return new Manager({
      kubeConfig: pooledKubeConfig(),
      identity,
      namespaces: [ns.name],
      leaderElection: {
        namespace: ns.name,
        name: lease,
        retryPeriodMs: 200,
        leaseDurationMs: 3_000,
        renewDeadlineMs: 2_000,
      },
      processMetrics: false,
      beforeLeading,
      log: createLogger("before-leading", { write: (l) => lines.push(l) }),
    });
  };
  const recorder = (name: string, order: string[]): ControllerDefinition => ({
    name,
    resource: Webhooks,
    setup: () => ({
      async reconcile(key) {
        order.push(`reconcile ${key}`);
        return done;
      },
    }),
  });

  it("runs once this replica leads (not while another holds the lease), before any reconcile", async () => {
    const lease = uniqueName("before-leading");
    await client.create<Lease>(Leases, {
      metadata: { name: lease, namespace: ns.name },
      spec: {
        holderIdentity: "previous-release",
        leaseDurationSeconds: 3600,
        renewTime: new Date().toISOString().replace(/\.(\d{3})Z$/, ".$1000Z"),
      },
    });
    await client.create(Webhooks, {
      metadata: { name: "before-leading", namespace: ns.name },
      spec: { name: "before-leading", url: "https://example.com/h" },
    });
    const order: string[] = [];
    const lines: string[] = [];
    const manager = managerWith(
      "next-release",
      lease,
      async () => {
        order.push("beforeLeading");
      },
      lines,
    );
    manager.add(recorder("before-leading-recorder", order));
    await manager.start(); // caches synced: a standby replica is Ready
    try {
      // While the other holds the lease: it campaigns and sees the holder, and does nothing else.
      await waitFor(
        "the replica to see the previous release lead",
        async () => lines.some((l) => l.includes("leader is previous-release")),
        10_000,
        () => lines.join("\n"),
      );
      expect(order).toEqual([]);
      expect(manager.isLeader).toBe(false);
      // The previous release hands over (its lease gone): the work, then the reconciles.
      await client.delete(Leases, ns.name, lease);
      await waitFor(
        "a reconcile after leading",
        async () => order.some((o) => o.startsWith("reconcile")),
        20_000,
      );
      expect(order[0]).toBe("beforeLeading");
      expect(manager.isLeader).toBe(true);
      expect(order.filter((o) => o === "beforeLeading")).toHaveLength(1);
      expect(manager.failure).toBeUndefined();
    } finally {
      await manager.stop();
      await client.delete(Webhooks, ns.name, "before-leading").catch(() => undefined);
    }
  });

  it("stops the manager with the failure, and starts no controller, when the work fails", async () => {
    const order: string[] = [];
    const manager = managerWith("refused", uniqueName("before-leading-fails"), async () => {
      order.push("beforeLeading");
      throw new Error("CRDs refused: written by a newer operator");
    });
    manager.add(recorder("before-leading-fails-recorder", order));
    await manager.start();
    await manager.done;
    expect(manager.failure?.message).toBe("CRDs refused: written by a newer operator");
    expect(order).toEqual(["beforeLeading"]);
  });
});

describe("leader election between controller processes", () => {
  const short = ["--lease-duration", "3", "--renew-deadline", "2", "--retry-period", "0.5"];
  const args = (lease: string, timings: string[] = short) => [
    "--kubeconfig",
    inject("kubeconfig"),
    "--namespace",
    ns.name,
    "--lease-namespace",
    ns.name,
    "--lease-name",
    lease,
    // The runtime and the Webhook controller are under test here, not the others.
    "--controllers",
    "webhook",
    ...timings,
  ];
  const holder = async (lease: string) =>
    (await client.get<Lease>(Leases, ns.name, lease).catch(() => undefined))?.spec?.holderIdentity ?? "";
  const leaderMetric = async (p: ControllerProcess, lease: string) =>
    sample(await scrape(await p.metricsUrl()), "leader_election_master_status", { name: lease });
  const webhook = (name: string) => ({
    metadata: { name, namespace: ns.name },
    spec: { name, url: "https://example.com/h" },
  });
  const readyStatus = async (name: string) =>
    (
      (
        await client.get<KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }>(
          Webhooks,
          ns.name,
          name,
        )
      ).status?.conditions ?? []
    ).find((c) => c.type === "Ready")?.status;

  it("elects exactly one leader, whose metrics move as it reconciles", async () => {
    const lease = uniqueName("lease");
    const a = startController("replica-a", args(lease));
    const b = startController("replica-b", args(lease));
    await Promise.all([a.waitForLine(/caches synced/), b.waitForLine(/caches synced/)]);
    await waitFor("a leader", async () => ["replica-a", "replica-b"].includes(await holder(lease)), 20_000);
    // Over five renewals of the lease (each a sentinel that must arrive), exactly one says leader.
    let renewed = "";
    for (let i = 0; i < 5; i++) {
      await waitFor(
        "the leader to renew its lease",
        async () => {
          const now = (await client.get<Lease>(Leases, ns.name, lease)).spec?.renewTime ?? "";
          if (!now || now === renewed) return false;
          renewed = now;
          return true;
        },
        20_000,
      );
      const statuses = [await leaderMetric(a, lease), await leaderMetric(b, lease)];
      expect(statuses.sort()).toEqual([0, 1]);
    }
    const leaderId = await holder(lease);
    const [leader, follower] = leaderId === "replica-a" ? [a, b] : [b, a];
    // A follower is ready too (caches synced), so a rollout never waits for the election.
    expect((await fetch(`${await follower.metricsUrl()}/readyz`)).status).toBe(200);
    expect((await fetch(`${await leader.metricsUrl()}/healthz`)).status).toBe(200);

    const before = await scrape(await leader.metricsUrl());
    const success0 =
      sample(before, "controller_runtime_reconcile_total", { controller: "webhook", result: "success" }) ?? 0;
    await client.create(Webhooks, webhook("metrics-mover"));
    await waitFor(
      "the leader to reconcile the Webhook",
      async () => (await readyStatus("metrics-mover")) === "True",
      20_000,
      () => leader.log(),
    );
    await waitFor(
      "reconcile metrics to move",
      async () =>
        (sample(await scrape(await leader.metricsUrl()), "controller_runtime_reconcile_total", {
          controller: "webhook",
          result: "success",
        }) ?? 0) > success0,
      10_000,
    );
    const after = await scrape(await leader.metricsUrl());
    for (const name of [
      "workqueue_adds_total",
      "workqueue_queue_duration_seconds_count",
      "workqueue_work_duration_seconds_count",
      "controller_runtime_reconcile_time_seconds_count",
    ]) {
      expect(
        sample(after, name, name.startsWith("workqueue") ? { name: "webhook" } : { controller: "webhook" }),
      ).toBeGreaterThan(0);
    }
    expect(sample(after, "informer_synced", { resource: "webhooks.livepeer.org", namespace: ns.name })).toBe(
      1,
    );
    expect(
      sample(after, "rest_client_requests_total", { code: "201", method: "PATCH" }) ??
        sample(after, "rest_client_requests_total", { code: "200", method: "PATCH" }),
    ).toBeGreaterThan(0);
    // The follower reconciled nothing.
    const followerText = await scrape(await follower.metricsUrl());
    expect(
      sample(followerText, "controller_runtime_reconcile_total", {
        controller: "webhook",
        result: "success",
      }),
    ).toBe(0);
    await Promise.all([a.stop(), b.stop()]);
  });

  it("fails over when the leader is killed (SIGKILL, default 15 s / 10 s / 2 s lease)", async () => {
    const lease = uniqueName("lease");
    const a = startController("crash-a", args(lease, []));
    await a.waitForLine(/became leader/);
    const b = startController("crash-b", args(lease, []));
    await b.waitForLine(/campaigning/);
    await b.waitForLine(/leader is crash-a/);
    const t0 = Date.now();
    await a.stop("SIGKILL");
    await waitFor(
      "crash-b to take over",
      async () => (await holder(lease)) === "crash-b",
      30_000,
      () => b.log(),
    );
    const seconds = (Date.now() - t0) / 1000;
    process.stderr.write(
      `[controller-runtime] failover after SIGKILL: ${seconds.toFixed(1)} s (lease 15 s, retry 2 s)\n`,
    );
    // 15 s after the follower last saw a renewal (up to one retry period after it happened, and
    // the kill up to one retry period after that), then its next poll: about 13-19 s.
    expect(seconds).toBeGreaterThan(12.5);
    expect(seconds).toBeLessThan(21);
    await client.create(Webhooks, webhook("after-crash"));
    await waitFor(
      "the new leader to reconcile",
      async () => (await readyStatus("after-crash")) === "True",
      20_000,
      () => b.log(),
    );
    await b.stop();
  });

  it("hands over within one retry period when the leader is stopped (SIGTERM, default timings)", async () => {
    const lease = uniqueName("lease");
    const a = startController("term-a", args(lease, []));
    await a.waitForLine(/became leader/);
    const b = startController("term-b", args(lease, []));
    await b.waitForLine(/leader is term-a/);
    const t0 = Date.now();
    const stopping = a.stop("SIGTERM");
    await waitFor(
      "term-b to take over",
      async () => (await holder(lease)) === "term-b",
      30_000,
      () => `${a.log()}\n---\n${b.log()}`,
    );
    const seconds = (Date.now() - t0) / 1000;
    await stopping;
    process.stderr.write(
      `[controller-runtime] handover after SIGTERM: ${seconds.toFixed(1)} s (retry period 2 s)\n`,
    );
    expect(await a.exited).toBe(0);
    expect(a.log()).toMatch(/released lease/);
    expect(seconds).toBeLessThan(3.5);
    await b.stop();
  });

  it("stops reconciling when it loses the lease, and resumes when it wins it back", async () => {
    const lease = uniqueName("lease");
    const a = startController("loser", args(lease));
    await a.waitForLine(/became leader/);
    // Someone else takes the lease (as a replica that won a race would).
    const current = await client.get<Lease>(Leases, ns.name, lease);
    await client.replace<Lease>(Leases, {
      ...current,
      spec: {
        ...current.spec,
        holderIdentity: "thief",
        leaseDurationSeconds: 3600,
        renewTime: new Date().toISOString().replace(/\.(\d{3})Z$/, ".$1000Z"),
      },
    });
    await a.waitForLine(/lost lease .* to thief/, 10_000);
    expect(await leaderMetric(a, lease)).toBe(0);
    // The replica tries for the lease every retry period (a GET each): its own count of them
    // shows it kept running, seeing the new Webhook, for three periods (no fixed sleep).
    const leaseGets = async () =>
      sample(await scrape(await a.metricsUrl()), "rest_client_requests_total", {
        code: "200",
        method: "GET",
      }) ?? 0;
    const getsBefore = await leaseGets();
    await client.create(Webhooks, webhook("while-not-leader"));
    await waitFor(
      "three more tries for the lease",
      async () => (await leaseGets()) >= getsBefore + 3,
      10_000,
    );
    expect(await readyStatus("while-not-leader")).toBeUndefined();
    // The thief goes away without releasing: deleting the lease lets the replica win again.
    const leaseVersion = Number((await client.get<Lease>(Leases, ns.name, lease)).metadata?.resourceVersion);
    await client.delete(Leases, ns.name, lease);
    await waitFor(
      "the replica to lead again and reconcile",
      async () => (await readyStatus("while-not-leader")) === "True",
      20_000,
      () => a.log(),
    );
    expect(await leaderMetric(a, lease)).toBe(1);
    // Written after the lease went (etcd revisions only grow): a status written while not leading,
    // however late, would be older, and the leader would have found nothing to change.
    const written = Number(
      (await client.get<KubeObject>(Webhooks, ns.name, "while-not-leader")).metadata?.resourceVersion,
    );
    expect(written).toBeGreaterThan(leaseVersion);
    await a.stop();
  });
});
