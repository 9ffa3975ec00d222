// The controller keeps its CRDs current (src/controller/crds) against the real API server: it
// creates a missing CRD and updates an older one by server-side apply with its own field manager
// (a field the old schema pruned round-trips after), leaves one of its own schema alone and
// refuses a newer operator's without writing anything. CRDs are cluster-wide and other test files
// use the operator's own, so this file keeps a copy of the Webhook CRD under a group of its own.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, inject, it } from "vitest";
import {
  CRD_FIELD_MANAGER,
  CrdsNewerError,
  keepCrdsCurrent,
} from "../../src/controller/crds/keep-current.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { CustomResourceDefinitions, type KubeObject } from "../../src/kube/index.ts";
import { packageVersion } from "../../src/release/version.ts";
import {
  CRD_OPERATOR_VERSION_ANNOTATION,
  CRD_SCHEMA_DIGEST_ANNOTATION,
  customResourceDefinition,
} from "../../src/schema/index.ts";
import { WebhookCrd } from "../../src/schema/resources.ts";
import { kubeClient, testNamespace } from "./support/cluster.ts";

const { client } = kubeClient();
const group = `u${randomBytes(3).toString("hex")}.crd-test.livepeer.org`;
const crdName = `webhooks.${group}`;
const Hooks = { group, version: "v1alpha1", plural: "webhooks", kind: "Webhook", namespaced: true };

interface Crd extends KubeObject {
  spec: {
    group: string;
    versions: {
      schema: { openAPIV3Schema: { properties: Record<string, { properties: Record<string, unknown> }> } };
    }[];
  };
}

/** The operator's Webhook CRD as `version` generates it, moved to this file's group. */
function crdAt(version: string, edit: (crd: Crd) => void = () => {}): Crd {
  const crd = structuredClone(customResourceDefinition(WebhookCrd, version)) as unknown as Crd;
  crd.metadata!.name = crdName;
  crd.spec.group = group;
  edit(crd);
  return crd;
}

/** The 0.1.0 shape: no version annotations, and no spec.sharedSecretRef (a field added since). */
function oldCrd(): Crd {
  return crdAt("0.1.0", (crd) => {
    delete crd.metadata!.annotations;
    delete crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec!.properties.sharedSecretRef;
  });
}

const getCrd = () => client.get<Crd>(CustomResourceDefinitions, undefined, crdName);

let ns: Awaited<ReturnType<typeof testNamespace>> | undefined;
afterAll(async () => {
  await ns?.remove();
  // The keeper never deletes a CRD; the test removes its own copy.
  await client.delete(CustomResourceDefinitions, undefined, crdName).catch(() => undefined);
});

describe("the controller keeps its CRDs current", () => {
  it("creates a missing CRD with its own field manager and waits until it is served", async () => {
    const outcomes = await keepCrdsCurrent(client, { crds: [oldCrd()] });
    expect(outcomes).toEqual([expect.objectContaining({ name: crdName, action: "apply" })]);
    const crd = await getCrd();
    const managers = (crd.metadata?.managedFields ?? []) as { manager: string; operation: string }[];
    expect(managers.map((m) => [m.manager, m.operation])).toContainEqual([CRD_FIELD_MANAGER, "Apply"]);
  });

  it("updates a CRD an older version installed: a field the old schema pruned round-trips after", async () => {
    ns = await testNamespace("crd-upgrade");
    // As Helm's crds/ or kubectl left it: another writer, no version annotation, the old schema.
    const old = oldCrd();
    old.metadata!.resourceVersion = (await getCrd()).metadata?.resourceVersion;
    await client.replace(CustomResourceDefinitions, old);
    // Under the old schema the API server drops the unknown field (structural pruning, as a
    // controller's update or kubectl's non-strict write meets it; server-side apply refuses it). A
    // CRD update reaches the serving handler shortly after the write: poll to a deadline.
    await client.create(Hooks, {
      metadata: { name: "h1", namespace: ns.name },
      spec: { name: "h", url: "https://example.com/h" },
    });
    const patchSecretRef = () =>
      client.mergePatch<{ spec: Record<string, unknown> }>(Hooks, ns!.name, "h1", {
        spec: { sharedSecretRef: { name: "s", key: "k" } },
      });
    await waitFor(
      "the old schema to prune spec.sharedSecretRef",
      async () => (await patchSecretRef()).spec.sharedSecretRef === undefined,
      15_000,
    );

    const outcomes = await keepCrdsCurrent(client, { crds: [crdAt("0.2.0")] });
    expect(outcomes[0]!.action).toBe("apply");
    expect(outcomes[0]!.reason).toContain("no livepeer.org/operator-version");
    const crd = await getCrd();
    expect(crd.metadata?.annotations?.[CRD_OPERATOR_VERSION_ANNOTATION]).toBe("0.2.0");

    let last: unknown;
    await waitFor(
      "spec.sharedSecretRef to round-trip under the new schema",
      async () => {
        last = (await patchSecretRef()).spec.sharedSecretRef;
        return last !== undefined;
      },
      15_000,
    );
    expect(last).toEqual({ name: "s", key: "k" });
  });

  it("leaves a CRD of its own version and schema alone (no write)", async () => {
    const rv = (await getCrd()).metadata?.resourceVersion;
    const outcomes = await keepCrdsCurrent(client, { crds: [crdAt("0.2.0")] });
    expect(outcomes[0]!.action).toBe("keep");
    expect((await getCrd()).metadata?.resourceVersion).toBe(rv);
  });

  it("at start only a missing CRD is created; a changed one waits (checkOnly and onlyMissing write nothing else)", async () => {
    const gadgets = `gadgets.${group}`;
    const gadgetCrd = crdAt("0.3.0", (c) => {
      c.metadata!.name = gadgets;
      const names = (c.spec as unknown as { names: Record<string, string> }).names;
      Object.assign(names, { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" });
      delete (names as { shortNames?: unknown }).shortNames;
    });
    try {
      const rv = (await getCrd()).metadata?.resourceVersion;
      const crds = [crdAt("0.3.0"), gadgetCrd];
      const judged = await keepCrdsCurrent(client, { crds, checkOnly: true });
      expect(judged.map((c) => [c.name, c.action, c.missing])).toEqual([
        [crdName, "apply", false],
        [gadgets, "apply", true],
      ]);
      expect((await getCrd()).metadata?.resourceVersion).toBe(rv);
      const created = await keepCrdsCurrent(client, { crds, onlyMissing: true });
      expect(created).toHaveLength(2);
      // The new kind is served; the changed one is untouched (its watches not cut) until later.
      const gadget = await client.get<Crd>(CustomResourceDefinitions, undefined, gadgets);
      expect(gadget.metadata?.annotations?.[CRD_OPERATOR_VERSION_ANNOTATION]).toBe("0.3.0");
      expect((await getCrd()).metadata?.resourceVersion).toBe(rv);
      expect((await getCrd()).metadata?.annotations?.[CRD_OPERATOR_VERSION_ANNOTATION]).toBe("0.2.0");
    } finally {
      await client.delete(CustomResourceDefinitions, undefined, gadgets).catch(() => undefined);
    }
  });

  it("refuses a newer operator's CRD with another schema, naming the versions, and writes nothing", async () => {
    await keepCrdsCurrent(client, {
      crds: [
        crdAt("9.9.9", (c) => (c.metadata!.annotations![CRD_SCHEMA_DIGEST_ANNOTATION] = "f".repeat(64))),
      ],
    });
    const rv = (await getCrd()).metadata?.resourceVersion;
    const refused = keepCrdsCurrent(client, { crds: [crdAt("0.2.0")] });
    await expect(refused).rejects.toThrow(CrdsNewerError);
    await expect(refused).rejects.toThrow(/written by livepeer-operator 9\.9\.9, newer than this 0\.2\.0/);
    const crd = await getCrd();
    expect(crd.metadata?.resourceVersion).toBe(rv);
    expect(crd.metadata?.annotations?.[CRD_OPERATOR_VERSION_ANNOTATION]).toBe("9.9.9");
  });
});

describe("livepeer-operator controller", () => {
  it("keeps the operator's CRDs current before it starts its controllers (once it leads)", async () => {
    const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.ts");
    const child = spawn(
      process.execPath,
      [
        main,
        "controller",
        `--kubeconfig=${inject("kubeconfig")}`,
        "--no-leader-elect",
        "--metrics-addr=0",
        "--shutdown-timeout=2",
        "--controllers=webhook",
        "--webhook-namespace=crds-upgrade-none",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let log = "";
    child.stdout.on("data", (d: Buffer) => (log += d.toString()));
    child.stderr.on("data", (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const started = /\[controller\/webhook\] started \d+ workers/;
      await waitFor(
        "the webhook controller to start",
        async () => started.test(log),
        30_000,
        () => log.slice(-3000),
      );
      // Each CRD was created (missing: at start, or no cache could sync) or applied / found
      // current once this replica leads (no election: once its caches synced), and served before
      // any controller started; before leading, nothing but a creation.
      const workersAt = log.search(started);
      const syncedAt = log.indexOf("caches synced");
      const crdLines = [...log.matchAll(/CRDs: (\S+)\.livepeer\.org (.*)/g)].map((m) => ({
        crd: m[1],
        what: m[2]!,
        at: m.index,
      }));
      for (const p of ["orchestrators", "gateways", "webhooks", "remotesigners"]) {
        const lines = crdLines.filter((l) => l.crd === p);
        expect(lines.length, log).toBeGreaterThan(0);
        expect(lines.at(-1)!.at).toBeLessThan(workersAt);
      }
      for (const l of crdLines.filter((l) => l.at < syncedAt))
        expect(l.what, "before leading only missing CRDs are created").toContain(
          "is not installed: creating it",
        );
      expect(log).not.toContain("could not keep the CRDs current");
      const crd = await client.get<Crd>(CustomResourceDefinitions, undefined, "orchestrators.livepeer.org");
      expect(crd.metadata?.annotations?.[CRD_OPERATOR_VERSION_ANNOTATION]).toBe(packageVersion());
    } finally {
      child.kill("SIGTERM");
      await waitFor(
        "the controller to exit on SIGTERM",
        async () => child.exitCode !== null || child.signalCode !== null,
        30_000,
      ).catch(() => child.kill("SIGKILL"));
      expect(await exited, `the controller's log:\n${log.slice(-3000)}`).toBe(0);
    }
  });
});
