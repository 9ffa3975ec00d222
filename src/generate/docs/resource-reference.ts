// docs/resources.md: every field of every custom resource, from the CRDs the zod schemas build
// (what `kubectl explain --recursive` shows, on one page with types, defaults and bounds).

import { customResourceType } from "../../schema/api-group.ts";
import { type CrdDefinition, openApiV3Schema } from "../../schema/crd.ts";
import { CUSTOM_RESOURCES } from "../../schema/resources.ts";
import { constraintText, defaultText, typeText } from "./json-schema-text.ts";
import { code, GENERATED_NOTE, table } from "./markdown.ts";

type Node = Record<string, unknown>;

interface FieldRow {
  path: string;
  node: Node;
  required: boolean;
}

function fields(node: Node, at: string, required: boolean, out: FieldRow[]): FieldRow[] {
  if (at) out.push({ path: at, node, required });
  const props = node.properties as Record<string, Node> | undefined;
  const req = new Set((node.required as string[] | undefined) ?? []);
  for (const [k, v] of Object.entries(props ?? {})) fields(v, at ? `${at}.${k}` : k, req.has(k), out);
  const items = node.items as Node | undefined;
  if (items?.properties) fields(items, `${at}[]`, false, out).pop();
  const extra = node.additionalProperties;
  if (extra && typeof extra === "object" && (extra as Node).properties) {
    fields(extra as Node, `${at}{}`, false, out).pop();
  }
  return out;
}

function fieldTable(root: Node, part: "spec" | "status"): string {
  const node = (root.properties as Record<string, Node>)[part]!;
  const rows = fields(node, part, false, [])
    .slice(1)
    .map((f) => {
      const notes = [
        f.required ? "**required**" : "",
        defaultText(f.node) ? `default ${code(defaultText(f.node))}` : "",
        constraintText(f.node),
      ].filter(Boolean);
      return [
        code(f.path),
        code(typeText(f.node)),
        `${String(f.node.description ?? "")}${notes.length ? ` (${notes.join("; ")})` : ""}`,
      ];
    });
  return table(["Field", "Type", "Meaning"], rows);
}

function section(def: CrdDefinition): string {
  const type = customResourceType(def);
  const schema = openApiV3Schema(def);
  const columns = table(
    ["Column", "From", "Shown"],
    def.printerColumns.map((c) => [c.name, code(c.jsonPath), c.priority ? "with `-o wide`" : "always"]),
  );
  return [
    `## ${def.kind}`,
    "",
    `${def.description}`,
    "",
    `\`apiVersion: ${type.group}/${type.version}\`, \`kind: ${def.kind}\`; \`kubectl get ${def.plural}\` (short: ${def.shortNames.map((s) => `\`${s}\``).join(", ")}), \`kubectl explain ${def.singular}.spec\`.`,
    "",
    "### Columns of `kubectl get`",
    "",
    columns,
    "",
    "### spec",
    "",
    fieldTable(schema, "spec"),
    "",
    "### status",
    "",
    "Written by the operator; never set it yourself.",
    "",
    fieldTable(schema, "status"),
    "",
  ].join("\n");
}

export function resourceReference(): string {
  return [
    GENERATED_NOTE("the zod schemas in src/schema"),
    "# Resource reference",
    "",
    "Every field of the operator's custom resources, as the CRDs in `deploy/crds/` declare them (the API",
    "server validates against the same schemas, and `kubectl explain` prints the same descriptions).",
    "`a[]` is an element of the list `a`; `m{}` a value of the map `m`.",
    "",
    ...CUSTOM_RESOURCES.map((d) => `- [${d.kind}](#${d.kind.toLowerCase()})`),
    "",
    ...CUSTOM_RESOURCES.map(section),
  ].join("\n");
}
