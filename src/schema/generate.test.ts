import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { customResourceDefinition, openApiV3Schema } from "./crd.ts";
import { generatedFiles } from "./crd-files.ts";
import { CUSTOM_RESOURCES, GatewayCrd, OrchestratorCrd, WebhookCrd } from "./resources.ts";
import { type JsonSchema, undescribedFields } from "./structural.ts";
import { WEBHOOK_EVENT_KINDS } from "./webhook-events.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

type Node = { [k: string]: unknown };

function walk(node: Node, visit: (n: Node, path: string) => void, at = ""): void {
  visit(node, at);
  const props = node.properties as Record<string, Node> | undefined;
  for (const [k, v] of Object.entries(props ?? {})) walk(v, visit, `${at}.${k}`);
  if (node.items) walk(node.items as Node, visit, `${at}[]`);
  if (typeof node.additionalProperties === "object")
    walk(node.additionalProperties as Node, visit, `${at}{}`);
}

function at(schema: JsonSchema, dotted: string): Node {
  let n: Node = schema;
  for (const p of dotted.split(".")) n = (n.properties as Record<string, Node>)[p]!;
  return n;
}

describe("deploy/crds", () => {
  it.each(generatedFiles().map((f) => [f.path, f.content]))(
    "%s is what the generator writes (run npm run generate after changing src/schema)",
    (file, content) => {
      expect(readFileSync(path.join(root, file), "utf8")).toBe(content);
    },
  );

  it("parses back to the object the generator built", () => {
    for (const [i, f] of generatedFiles().entries()) {
      expect(load(f.content)).toEqual(customResourceDefinition(CUSTOM_RESOURCES[i]!));
    }
  });
});

describe.each(CUSTOM_RESOURCES.map((d) => [d.kind, d] as const))("the %s CRD schema", (_kind, def) => {
  const schema = openApiV3Schema(def);

  it("describes every field (kubectl explain), metadata excepted (the API server forbids it there)", () => {
    expect(undescribedFields(schema)).toEqual(["metadata"]);
  });

  it("is structural: a type on every node, no refs, no additionalProperties beside properties", () => {
    walk(schema, (n, p) => {
      const typed = typeof n.type === "string" || n["x-kubernetes-int-or-string"] === true;
      const free = n["x-kubernetes-preserve-unknown-fields"] === true;
      expect(typed || free, `${p} has no type`).toBe(true);
      expect("$ref" in n || "$defs" in n || "$schema" in n, `${p} has a reference`).toBe(false);
      if (n.properties) expect("additionalProperties" in n, `${p}`).toBe(false);
      if ("anyOf" in n) expect(n["x-kubernetes-int-or-string"], `${p} has a union`).toBe(true);
    });
  });

  it("keys conditions by type", () => {
    const conditions = at(schema, "status.conditions");
    expect(conditions["x-kubernetes-list-type"]).toBe("map");
    expect(conditions["x-kubernetes-list-map-keys"]).toEqual(["type"]);
  });

  it("has the status subresource, the livepeer category and a short name", () => {
    const crd = customResourceDefinition(def) as Node;
    const spec = crd.spec as Node;
    const version = (spec.versions as Node[])[0]!;
    expect(version.subresources).toEqual({ status: {} });
    expect((spec.names as Node).categories).toEqual(["livepeer"]);
    expect(((spec.names as Node).shortNames as string[]).length).toBe(1);
  });
});

describe("CRD contents", () => {
  it("uses the short names orch, gw and wh", () => {
    expect([OrchestratorCrd, GatewayCrd, WebhookCrd].map((d) => d.shortNames)).toEqual([
      ["orch"],
      ["gw"],
      ["wh"],
    ]);
  });

  it("validates the webhook url with the spec's pattern and events with the spec's kinds", () => {
    const schema = openApiV3Schema(WebhookCrd);
    expect(at(schema, "spec.url").pattern).toBe("^http(s)?://");
    expect((at(schema, "spec.events").items as Node).enum).toEqual([...WEBHOOK_EVENT_KINDS]);
  });

  it("requires a keystore off offchain with a CEL rule naming the field", () => {
    const spec = at(openApiV3Schema(OrchestratorCrd), "spec");
    expect(spec["x-kubernetes-validations"]).toContainEqual(
      expect.objectContaining({
        rule: "self.network == 'offchain' || has(self.keystoreSecret)",
        fieldPath: ".keystoreSecret",
      }),
    );
  });

  it("defaults network to offchain and the Service to ClusterIP:8935", () => {
    const spec = at(openApiV3Schema(OrchestratorCrd), "spec");
    expect(at(spec, "network").default).toBe("offchain");
    expect(at(spec, "service").default).toEqual({});
    expect(at(spec, "service.type").default).toBe("ClusterIP");
    expect(at(spec, "service.port").default).toBe(8935);
  });

  it("shows readiness, sessions, GPU and node for orchestrators", () => {
    expect(OrchestratorCrd.printerColumns.filter((c) => !c.priority).map((c) => c.name)).toEqual([
      "Ready",
      "Sessions",
      "GPU",
      "Node",
      "Age",
    ]);
  });

  it("shows readiness, orchestrators given, price compatibility, funding, deposit and reserve for gateways", () => {
    expect(GatewayCrd.printerColumns.filter((c) => !c.priority).map((c) => c.name)).toEqual([
      "Ready",
      "Orchs",
      "Price",
      "Funded",
      "Deposit",
      "Reserve",
      "Age",
    ]);
  });

  it("bounds every list (CEL cost estimation and etcd object size)", () => {
    for (const def of CUSTOM_RESOURCES) {
      walk(openApiV3Schema(def), (n, p) => {
        if (n.type === "array") expect(n.maxItems, `${def.kind}${p}`).toBeTypeOf("number");
      });
    }
  });
});

describe("CEL rules in the CRDs", () => {
  const rules = CUSTOM_RESOURCES.flatMap((def) => {
    const found: { at: string; rule: Node }[] = [];
    walk(openApiV3Schema(def) as Node, (n, p) => {
      for (const rule of (n["x-kubernetes-validations"] as Node[] | undefined) ?? [])
        found.push({ at: `${def.kind}${p}`, rule });
    });
    return found;
  });

  it("every rule says what is wrong with the values given and the fix (messageExpression), with a plain message besides", () => {
    expect(rules.length).toBeGreaterThanOrEqual(18);
    for (const { at: where, rule } of rules) {
      expect(typeof rule.messageExpression, `${where}: ${String(rule.rule)}`).toBe("string");
      expect(String(rule.message).length, where).toBeGreaterThan(20);
    }
  });

  it("immutable fields are transition rules on oldSelf: Orchestrator and Gateway storage, a Webhook's userId", () => {
    const transitions = rules.filter((r) => String(r.rule.rule).includes("oldSelf")).map((r) => r.at);
    expect(transitions.sort()).toEqual(["Gateway.spec", "Orchestrator.spec", "Webhook.spec"]);
  });

  it("carry the operator version and schema digest the controller compares at start", () => {
    const crd = customResourceDefinition(OrchestratorCrd, "1.2.3") as {
      metadata: { annotations: Record<string, string> };
    };
    expect(crd.metadata.annotations["livepeer.org/operator-version"]).toBe("1.2.3");
    const other = customResourceDefinition(OrchestratorCrd, "1.2.4") as typeof crd;
    // Same schema, another version: the same digest (a patch release that changed no field).
    expect(other.metadata.annotations["livepeer.org/schema-digest"]).toBe(
      crd.metadata.annotations["livepeer.org/schema-digest"],
    );
    const webhook = customResourceDefinition(WebhookCrd, "1.2.3") as typeof crd;
    expect(webhook.metadata.annotations["livepeer.org/schema-digest"]).not.toBe(
      crd.metadata.annotations["livepeer.org/schema-digest"],
    );
  });
});
