// Validation at admission, on the real API server: every cross-field rule of the schemas is a CEL
// rule of the CRD whose message names the values and the fix (messageExpression), the same specs
// zod refuses; immutable fields (transition rules, oldSelf) are refused on update and nothing
// else is; the ValidatingAdmissionPolicy refuses a Webhook outside the namespace the API serves,
// naming that namespace. A rule the API server could not compile would fail the CRD's apply.
import { randomBytes } from "node:crypto";
import { dump } from "js-yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { GatewaySpecSchema } from "../../src/schema/gateway.ts";
import { OrchestratorSpecSchema } from "../../src/schema/orchestrator.ts";
import { webhookNamespacePolicy } from "../../src/schema/webhook-namespace-policy.ts";
import { kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";

let ns: Awaited<ReturnType<typeof testNamespace>>;

beforeAll(async () => {
  await installCrds(kubectl);
  ns = await testNamespace("crd-rules");
});
afterAll(async () => {
  await ns?.remove();
});

const doc = (kind: string, name: string, spec: unknown) =>
  dump({ apiVersion: "livepeer.org/v1alpha1", kind, metadata: { name }, spec });

/** kubectl's answer to a server-side dry run: "" when accepted. */
async function rejection(yaml: string, namespace = ns.name): Promise<string> {
  try {
    await kubectl(["create", "--dry-run=server", "-n", namespace, "-f", "-"], yaml);
    return "";
  } catch (err) {
    return (err as Error).message;
  }
}

const keystore = { keystoreSecret: "ks", ethUrl: "https://arb1.arbitrum.io/rpc", pricePerUnit: "1000" };
const arb = { network: "arbitrum-one-mainnet", ...keystore };
const selector = { orchestrators: { selector: {} } };
const model = { pipeline: "text-to-image", model_id: "stabilityai/sd-turbo" };

interface Case {
  name: string;
  kind: "Orchestrator" | "Gateway";
  bad: Record<string, unknown>;
  /** What the API server's message says: the values that break the rule, and the fix. */
  says: string[];
  fixed: Record<string, unknown>;
}

const CASES: Case[] = [
  {
    name: "on chain without keystoreSecret",
    kind: "Orchestrator",
    bad: { ...arb, keystoreSecret: undefined },
    says: [
      "keystoreSecret is required when network is arbitrum-one-mainnet (not offchain)",
      "key.json and password",
    ],
    fixed: arb,
  },
  {
    name: "on chain without ethUrl",
    kind: "Gateway",
    bad: { ...selector, ...arb, ethUrl: undefined, pricePerUnit: undefined },
    says: ["ethUrl is required when network is arbitrum-one-mainnet", "devnet deployment ConfigMap"],
    fixed: { ...selector, ...arb, pricePerUnit: undefined },
  },
  {
    name: "a devnet deployment off chain",
    kind: "Orchestrator",
    bad: { devnet: "dn" },
    says: ["devnet names the chain deployment dn but network is offchain: set network, for example devnet"],
    fixed: { network: "devnet", devnet: "dn", ...keystore },
  },
  {
    name: "a network without a built-in Controller and no ethController",
    kind: "Orchestrator",
    bad: { network: "devnet", ...keystore },
    says: ["network devnet has no built-in protocol Controller address: set ethController"],
    fixed: { network: "devnet", ...keystore, ethController: `0x${"a".repeat(40)}` },
  },
  {
    name: "an on-chain orchestrator without a price",
    kind: "Orchestrator",
    bad: { ...arb, pricePerUnit: undefined },
    says: ["pricePerUnit is required when network is arbitrum-one-mainnet", 'for example "1000"'],
    fixed: arb,
  },
  {
    name: "an AI-only orchestrator with GPUs of its own",
    kind: "Orchestrator",
    bad: { gpu: { count: 1 }, ai: { only: true, models: [{ ...model, url: "http://r:8000" }] } },
    says: ["ai.only: true runs no video, but spec.gpu is set", "ai.models[].runner.gpus"],
    fixed: { ai: { only: true, models: [{ ...model, url: "http://r:8000" }] } },
  },
  {
    name: "a gateway with two ways to find orchestrators",
    kind: "Gateway",
    bad: { orchestrators: { selector: {}, addresses: ["o:8935"] } },
    says: ["orchestrators sets more than one of selector, addresses and discovery: set exactly one"],
    fixed: selector,
  },
  {
    name: "a gateway with no way to find orchestrators",
    kind: "Gateway",
    bad: { orchestrators: {} },
    says: ["orchestrators sets none of selector, addresses and discovery"],
    fixed: selector,
  },
  {
    name: "stream events without a user",
    kind: "Gateway",
    bad: { ...selector, streamEvents: { enabled: true } },
    says: ["streamEvents.enabled is true but streamEvents.userId is not set", "userId: user-123"],
    fixed: { ...selector, streamEvents: { enabled: true, userId: "u" } },
  },
  {
    name: "on-chain discovery off chain",
    kind: "Gateway",
    bad: { orchestrators: { discovery: "onchain" } },
    says: ["orchestrators.discovery: onchain needs a chain but network is offchain"],
    fixed: { orchestrators: { discovery: "onchain" }, ...arb, pricePerUnit: undefined },
  },
  {
    name: "the AI service registry off chain",
    kind: "Gateway",
    bad: { ...selector, ai: { serviceRegistry: true } },
    says: ["ai.serviceRegistry reads the AI subnet's registry on chain but network is offchain"],
    fixed: { ...selector, ai: { serviceRegistry: false } },
  },
  {
    name: "GPUs in the pod template's limits",
    kind: "Orchestrator",
    bad: { podTemplate: { resources: { limits: { "nvidia.com/gpu": "1" } } } },
    says: ["podTemplate.resources.limits sets nvidia.com/gpu", "set gpu.count"],
    fixed: { gpu: { count: 1 } },
  },
  {
    name: "model weights from both a claim and a host path",
    kind: "Orchestrator",
    bad: {
      ai: { models: [{ ...model, runner: { weights: { persistentVolumeClaim: "m", hostPath: "/m" } } }] },
    },
    says: ["runner.weights sets both persistentVolumeClaim and hostPath: set exactly one"],
    fixed: { ai: { models: [{ ...model, runner: { weights: { persistentVolumeClaim: "m" } } }] } },
  },
  {
    name: "an LLM tag as a model id",
    kind: "Orchestrator",
    bad: { ai: { models: [{ pipeline: "llm", model_id: "llama3:8b", url: "http://r:8000" }] } },
    says: ["model_id llama3:8b is a container-runtime LLM tag"],
    fixed: {
      ai: {
        models: [
          { pipeline: "llm", model_id: "meta-llama/Meta-Llama-3.1-8B-Instruct", url: "http://r:8000" },
        ],
      },
    },
  },
  {
    name: "a model id without its organisation",
    kind: "Orchestrator",
    bad: { ai: { models: [{ pipeline: "text-to-image", model_id: "sd-turbo", url: "http://r:8000" }] } },
    says: ["model_id sd-turbo has no organisation prefix", "stabilityai/sd-turbo"],
    fixed: { ai: { models: [{ ...model, url: "http://r:8000" }] } },
  },
  {
    name: "a model with both url and runner",
    kind: "Orchestrator",
    bad: { ai: { models: [{ ...model, url: "http://r:8000", runner: { gpus: 1 } }] } },
    says: ["model stabilityai/sd-turbo has both url", "remove one of them"],
    fixed: { ai: { models: [{ ...model, runner: { gpus: 1 } }] } },
  },
];

const schemas: Record<Case["kind"], z.ZodType> = {
  Orchestrator: OrchestratorSpecSchema,
  Gateway: GatewaySpecSchema,
};
const clean = (o: Record<string, unknown>) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>;

describe("cross-field rules at admission", () => {
  it.each(CASES)("$kind: $name is refused with the values and the fix, as zod refuses it", async (c) => {
    const bad = clean(c.bad);
    const err = await rejection(doc(c.kind, "bad", bad));
    for (const text of c.says) expect(err).toContain(text);
    expect(schemas[c.kind].safeParse(bad).success, "zod refuses the same spec").toBe(false);
    const fixed = clean(c.fixed);
    expect(await rejection(doc(c.kind, "fixed", fixed))).toBe("");
    expect(schemas[c.kind].safeParse(fixed).success, "zod accepts the fix").toBe(true);
  });
});

describe("immutable fields (oldSelf)", () => {
  /** A server-side dry run of a merge patch: "" when accepted. */
  async function patchRejection(resource: string, patch: unknown): Promise<string> {
    try {
      await kubectl([
        "patch",
        resource,
        "-n",
        ns.name,
        "--type=merge",
        "--dry-run=server",
        "-p",
        JSON.stringify(patch),
      ]);
      return "";
    } catch (err) {
      return (err as Error).message;
    }
  }

  beforeAll(async () => {
    await kubectl(
      ["create", "-n", ns.name, "-f", "-"],
      doc("Orchestrator", "stored", { storage: { size: "1Gi" } }),
    );
    await kubectl(["create", "-n", ns.name, "-f", "-"], doc("Gateway", "plain", selector));
    await kubectl(
      ["create", "-n", ns.name, "-f", "-"],
      doc("Webhook", "owned", { name: "h", url: "https://example.com/h", userId: "user-1" }),
    );
    await kubectl(
      ["create", "-n", ns.name, "-f", "-"],
      doc("Webhook", "unowned", { name: "h", url: "https://example.com/h" }),
    );
  });

  it("spec.storage cannot change, be removed or be added, naming the value to keep", async () => {
    const changed = await patchRejection("orchestrator/stored", { spec: { storage: { size: "2Gi" } } });
    expect(changed).toContain("storage cannot change once the resource exists");
    expect(changed).toContain("set it back to size 1Gi");
    expect(await patchRejection("orchestrator/stored", { spec: { storage: null } })).toContain(
      "set it back to size 1Gi",
    );
    expect(await patchRejection("gateway/plain", { spec: { storage: { size: "1Gi" } } })).toContain(
      "set it back to none (remove storage)",
    );
  });

  it("other fields still change", async () => {
    expect(await patchRejection("orchestrator/stored", { spec: { maxSessions: 4 } })).toBe("");
    expect(await patchRejection("gateway/plain", { spec: { maxSessions: 4 } })).toBe("");
  });

  it("a webhook's userId cannot change or go once set, naming its user; it may be added", async () => {
    const moved = await patchRejection("webhook/owned", { spec: { userId: "user-2" } });
    expect(moved).toContain(
      "userId cannot change once set: this webhook belongs to user user-1; keep userId: user-1",
    );
    expect(await patchRejection("webhook/owned", { spec: { userId: null } })).toContain(
      "belongs to user user-1",
    );
    expect(await patchRejection("webhook/owned", { spec: { name: "renamed" } })).toBe("");
    expect(await patchRejection("webhook/unowned", { spec: { userId: "user-3" } })).toBe("");
  });
});

describe("the ValidatingAdmissionPolicy: Webhooks only where the API serves", () => {
  // Scoped to this file's namespaces by a label: other test files create Webhooks elsewhere.
  const id = randomBytes(3).toString("hex");
  const name = `crd-rules-${id}`;
  const served = { name: "" };
  let other: Awaited<ReturnType<typeof testNamespace>>;
  let servedNs: Awaited<ReturnType<typeof testNamespace>>;

  beforeAll(async () => {
    servedNs = await testNamespace("vap-served");
    other = await testNamespace("vap-other");
    served.name = servedNs.name;
    for (const n of [servedNs.name, other.name])
      await kubectl(["label", "namespace", n, `crd-rules-vap=${id}`]);
    const items = webhookNamespacePolicy({
      namespace: servedNs.name,
      name,
      namespaceSelector: { matchLabels: { "crd-rules-vap": id } },
    });
    await kubectl(
      ["apply", "--server-side", "-f", "-"],
      JSON.stringify({ apiVersion: "v1", kind: "List", items }),
    );
  });
  afterAll(async () => {
    await kubectl([
      "delete",
      "validatingadmissionpolicybinding,validatingadmissionpolicy",
      name,
      "--ignore-not-found",
    ]);
    await other?.remove();
    await servedNs?.remove();
  });

  const hook = doc("Webhook", "h", { name: "h", url: "https://example.com/h" });

  it("refuses a Webhook in another namespace, naming the one the API serves", async () => {
    // A new policy takes effect once the API server has compiled it: poll to a deadline.
    let err = "";
    await waitFor(
      "the policy to refuse a Webhook outside the served namespace",
      async () => {
        err = await rejection(hook, other.name);
        return err !== "";
      },
      30_000,
    );
    expect(err).toContain(
      `Webhook h is in namespace ${other.name}, which the livepeer-operator webhook API does not serve`,
    );
    expect(err).toContain(`Create Webhooks in namespace ${served.name}`);
  });

  it("accepts one in the served namespace", async () => {
    expect(await rejection(hook, served.name)).toBe("");
  });
});
