// docs/helm-values.md: every value of the chart, from values.schema.json (types, bounds, allowed
// values, descriptions), values.yaml (defaults) and the comments in values.yaml.
import { readFileSync } from "node:fs";
import path from "node:path";
import { load } from "js-yaml";
import { constraintText, typeText } from "./json-schema-text.ts";
import { code, GENERATED_NOTE, table } from "./markdown.ts";
import { valuesComments } from "./values-comments.ts";

type Node = Record<string, unknown>;

export const CHART_DIR = "deploy/helm/livepeer-operator";

function valueAt(values: unknown, dotted: string): unknown {
  let v = values;
  for (const k of dotted.split("."))
    v = v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

function defaultText(v: unknown): string {
  if (v === undefined) return "";
  const text = JSON.stringify(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

interface Row {
  key: string;
  node: Node;
}

/** Leaves and free-form objects (no declared properties) are rows; declared objects recurse. */
function rows(node: Node, at: string, out: Row[]): Row[] {
  const props = node.properties as Record<string, Node> | undefined;
  if (props && Object.keys(props).length) {
    for (const [k, v] of Object.entries(props)) rows(v, at ? `${at}.${k}` : k, out);
  } else if (at) {
    out.push({ key: at, node });
  }
  return out;
}

export function helmValuesReference(root: string): string {
  const dir = path.join(root, CHART_DIR);
  const schema = JSON.parse(readFileSync(path.join(dir, "values.schema.json"), "utf8")) as Node;
  const yamlText = readFileSync(path.join(dir, "values.yaml"), "utf8");
  const values = load(yamlText);
  const comments = valuesComments(yamlText);
  const body = rows(schema, "", []).map((r) => {
    const words = [String(r.node.description ?? comments.get(r.key) ?? ""), constraintText(r.node)]
      .filter(Boolean)
      .join(" ");
    const d = defaultText(valueAt(values, r.key));
    return [code(r.key), code(typeText(r.node)), d ? code(d) : "", words];
  });
  return [
    GENERATED_NOTE(`${CHART_DIR}/values.schema.json and values.yaml`),
    "# Helm values",
    "",
    "`helm install livepeer-operator deploy/helm/livepeer-operator -n livepeer-system --create-namespace",
    "[-f my-values.yaml] [--set key=value]`. Helm checks every value against `values.schema.json`: an unknown",
    "key or a wrong type fails the install with the key's name, before anything is applied.",
    "",
    table(["Key", "Type", "Default", "Meaning"], body),
    "",
  ].join("\n");
}
