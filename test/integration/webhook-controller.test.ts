// The Webhook controller on the real local control plane, run in-process by the runtime's Manager
// (watching only this file's namespace): Ready follows the referenced Secret, generated Secrets
// are owned (and garbage-collected with their Webhook) while a user's Secret never is, and status
// is written only when it changes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Manager } from "../../src/controller/runtime/index.ts";
import { webhookController } from "../../src/controller/webhook/controller.ts";
import { MANAGED_BY_API, MANAGED_BY_LABEL } from "../../src/controller/webhook/secret-ownership.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { type KubeObject, Secrets } from "../../src/kube/index.ts";
import type { Condition } from "../../src/schema/condition.ts";
import { Webhooks } from "../../src/schema/resources.ts";
import type { StoredWebhook } from "../../src/schema/webhook.ts";
import { kubeClient, kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";
import { startTestManager } from "./support/manager.ts";

const { kc, client } = kubeClient();
let ns: Awaited<ReturnType<typeof testNamespace>>;
let manager: Manager;
const logLines: string[] = [];

beforeAll(async () => {
  ns = await testNamespace("wh");
  await installCrds(kubectl);
  manager = await startTestManager("webhook-test", ns.name, [webhookController()], logLines);
});
afterAll(async () => {
  await manager?.stop("tests done");
  await ns.remove();
  await kc.close();
});

const webhook = (name: string, spec: Partial<StoredWebhook["spec"]> = {}): StoredWebhook => ({
  metadata: { name, namespace: ns.name },
  spec: { name, url: "https://example.com/hooks", events: ["stream.started"], ...spec },
});
const secret = (name: string, data: Record<string, string>, labels: Record<string, string> = {}) => ({
  metadata: { name, namespace: ns.name, labels },
  stringData: data,
});
const read = (name: string) => client.get<StoredWebhook>(Webhooks, ns.name, name);
const ready = (w: StoredWebhook): Condition | undefined =>
  w.status?.conditions?.find((c) => c.type === "Ready");

async function readyWhen(name: string, status: Condition["status"], reason: string): Promise<StoredWebhook> {
  let last: StoredWebhook | undefined;
  await waitFor(
    `webhook ${name} Ready=${status} ${reason}`,
    async () => {
      last = await read(name);
      const c = ready(last);
      return c?.status === status && c.reason === reason;
    },
    20_000,
    () => `${JSON.stringify(last?.status)}\n${logLines.slice(-10).join("\n")}`,
  );
  return last!;
}

describe("webhook controller", () => {
  it("follows its Secret: missing -> created without the key -> key added -> key removed", async () => {
    await client.create(
      Webhooks,
      webhook("follows", { sharedSecretRef: { name: "follows-secret", key: "sharedSecret" } }),
    );
    const missing = await readyWhen("follows", "False", "SecretNotFound");
    expect(ready(missing)?.message).toContain(`kubectl create secret generic follows-secret -n ${ns.name}`);
    expect(missing.status?.observedGeneration).toBe(missing.metadata?.generation);
    expect(ready(missing)?.observedGeneration).toBe(missing.metadata?.generation);

    await client.create(Secrets, secret("follows-secret", { other: "x" }));
    const keyMissing = await readyWhen("follows", "False", "SecretKeyMissing");
    // Still False: the transition time stays, only the reason moved.
    expect(ready(keyMissing)?.lastTransitionTime).toBe(ready(missing)?.lastTransitionTime);

    await client.mergePatch(Secrets, ns.name, "follows-secret", { stringData: { sharedSecret: "s3cret" } });
    const configured = await readyWhen("follows", "True", "Configured");
    expect(ready(configured)?.message).toBe(
      "events are delivered to https://example.com/hooks, signed with key sharedSecret of Secret follows-secret",
    );

    await client.mergePatch(Secrets, ns.name, "follows-secret", { data: { sharedSecret: null } });
    await readyWhen("follows", "False", "SecretKeyMissing");
    await kubectl(["wait", "-n", ns.name, "--for=condition=Ready=False", "webhook/follows", "--timeout=10s"]);

    // Warnings were recorded as Events for `kubectl describe`.
    const events = await kubectl([
      "get",
      "events.events.k8s.io",
      "-n",
      ns.name,
      "--field-selector",
      "regarding.name=follows",
      "-o",
      "json",
    ]);
    const reasons = (JSON.parse(events) as { items: Array<{ reason: string }> }).items.map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(["SecretNotFound", "SecretKeyMissing", "Configured"]));
    // Secret values never reach the log.
    expect(logLines.join("\n")).not.toContain("s3cret");
  });

  it("is Ready for kubectl wait once valid, and reports a bad URL with what to do", async () => {
    await client.create(Secrets, secret("wait-secret", { sharedSecret: "x" }));
    await client.create(
      Webhooks,
      webhook("waitable", { sharedSecretRef: { name: "wait-secret", key: "sharedSecret" } }),
    );
    await kubectl(["wait", "-n", ns.name, "--for=condition=Ready", "webhook/waitable", "--timeout=20s"]);

    // The CRD's schema rejects what is not http(s); credentials in the URL only the controller catches.
    await client.create(Webhooks, webhook("bad-url", { url: "https://user:pass@example.com/hooks" }));
    const bad = await readyWhen("bad-url", "False", "InvalidURL");
    expect(ready(bad)?.message).toContain("spec.url contains credentials");
    // Fixing the spec bumps the generation; the status follows it.
    await client.mergePatch(Webhooks, ns.name, "bad-url", { spec: { url: "https://example.com/fixed" } });
    const fixed = await readyWhen("bad-url", "True", "Configured");
    expect(fixed.metadata?.generation).toBe(2);
    expect(fixed.status?.observedGeneration).toBe(2);
  });

  it("owns the Secret the API generated for it, never a Secret the user brought", async () => {
    const generated = await client.create<KubeObject>(
      Secrets,
      secret("gen-secret", { sharedSecret: "x" }, { [MANAGED_BY_LABEL]: MANAGED_BY_API }),
    );
    const users = await client.create<KubeObject>(Secrets, secret("user-secret", { sharedSecret: "x" }));
    const withGenerated = await client.create(
      Webhooks,
      webhook("with-generated", { sharedSecretRef: { name: "gen-secret", key: "sharedSecret" } }),
    );
    await client.create(
      Webhooks,
      webhook("with-users", { sharedSecretRef: { name: "user-secret", key: "sharedSecret" } }),
    );
    await readyWhen("with-generated", "True", "Configured");
    await readyWhen("with-users", "True", "Configured");
    await waitFor(
      "the generated Secret to be owned by its Webhook",
      async () =>
        !!(await client.get(Secrets, ns.name, "gen-secret")).metadata?.ownerReferences?.some(
          (r) => r.uid === withGenerated.metadata?.uid && r.controller && r.blockOwnerDeletion,
        ),
      20_000,
    );
    expect((await client.get(Secrets, ns.name, "user-secret")).metadata?.ownerReferences).toBeUndefined();

    await client.delete(Webhooks, ns.name, "with-generated");
    await client.delete(Webhooks, ns.name, "with-users");
    await waitFor(
      "the garbage collector to delete the generated Secret",
      async () =>
        !(await client.list(Secrets, { namespace: ns.name })).items.some(
          (s) => s.metadata?.uid === generated.metadata?.uid,
        ),
      30_000,
    );
    const stillThere = await client.get<KubeObject>(Secrets, ns.name, "user-secret");
    expect(stillThere.metadata?.uid).toBe(users.metadata?.uid);
  });

  it("writes status only when it changes (a resync does not touch the object)", async () => {
    await client.create(Webhooks, webhook("quiet"));
    const first = await readyWhen("quiet", "True", "Configured");
    const controller = manager.controllers.find((c) => c.name === "webhook")!;
    for (let i = 0; i < 5; i++) controller.enqueue(`${ns.name}/quiet`);
    await waitFor(
      "the queue to drain",
      async () => (controller.queue?.len() ?? 0) === 0 && !controller.queue?.processing().length,
      5_000,
    );
    // A sentinel Webhook made after the drain: the informer delivers events in resourceVersion
    // order, so once the sentinel is reconciled, any write to "quiet" (and the wake it causes)
    // has been seen and worked off before it.
    await client.create(Webhooks, webhook("quiet-sentinel"));
    await readyWhen("quiet-sentinel", "True", "Configured");
    await waitFor(
      "the queue to drain again",
      async () => (controller.queue?.len() ?? 0) === 0 && !controller.queue?.processing().length,
      5_000,
    );
    expect((await read("quiet")).metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
  });
});
