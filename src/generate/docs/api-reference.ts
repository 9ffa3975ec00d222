// docs/api.md: the webhook API as its OpenAPI document describes it (the server serves the same
// document at {prefix}/openapi.json): every operation with its parameters, body and answers, then
// the objects.
import { openApiDocument } from "../../api/openapi/document.ts";
import { constraintText, typeText } from "./json-schema-text.ts";
import { anchor, code, GENERATED_NOTE, table } from "./markdown.ts";

type Node = Record<string, unknown>;

const PREFIX = "/api";
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

function refName(n: unknown): string | undefined {
  const ref = (n as Node | undefined)?.$ref;
  return typeof ref === "string" ? ref.split("/").pop() : undefined;
}

/** A schema as a short phrase: a link to a named object, or its type. */
function schemaText(n: Node | undefined): string {
  if (!n) return "";
  const name = refName(n);
  if (name) return `[${name}](#${anchor(`the ${name} object`)})`;
  if (n.type === "array" && n.items) {
    const inner = refName(n.items);
    if (inner) return `array of [${inner}](#${anchor(`the ${inner} object`)})`;
  }
  return code(typeText(n));
}

function parameterRows(params: Node[]): string[][] {
  return params.map((p) => {
    const content = (p.content as Record<string, Node> | undefined)?.["application/json"];
    const schema = (content?.schema ?? p.schema) as Node;
    const type = content ? `JSON text: ${code(typeText(schema))}` : code(typeText(schema));
    return [
      code(String(p.name)),
      String(p.in),
      p.required ? "yes" : "",
      type,
      [String(p.description ?? ""), constraintText(schema)].filter(Boolean).join(" "),
    ];
  });
}

function operation(method: string, path: string, op: Node): string {
  const parts = [`### ${op.summary as string}`, "", `\`${method.toUpperCase()} ${PREFIX}${path}\``, ""];
  if (op.description) parts.push(String(op.description), "");
  const params = (op.parameters as Node[] | undefined) ?? [];
  if (params.length) {
    parts.push(table(["Parameter", "In", "Required", "Type", "Meaning"], parameterRows(params)), "");
  }
  const body = (op.requestBody as Node | undefined)?.content as Record<string, Node> | undefined;
  if (body?.["application/json"]) {
    parts.push(`Body (JSON): ${schemaText(body["application/json"].schema as Node)}`, "");
  }
  const responses = Object.entries((op.responses as Record<string, Node>) ?? {}).map(([status, r]) => {
    const c = (r.content as Record<string, Node> | undefined)?.["application/json"];
    return [
      status === "default" ? "other" : status,
      String(r.description ?? ""),
      schemaText(c?.schema as Node),
    ];
  });
  parts.push(table(["Status", "When", "Body"], responses), "");
  return parts.join("\n");
}

function objectSection(name: string, n: Node): string {
  const props = Object.entries((n.properties as Record<string, Node> | undefined) ?? {});
  const required = new Set((n.required as string[] | undefined) ?? []);
  const rows = props.map(([k, p]) => {
    const flags = [
      required.has(k) ? "required" : "",
      p.readOnly ? "read-only" : "",
      p.writeOnly ? "write-only" : "",
      p.deprecated ? "deprecated" : "",
    ].filter(Boolean);
    return [
      code(k),
      schemaText(p),
      [String(p.description ?? ""), constraintText(p), flags.length ? `(${flags.join(", ")})` : ""]
        .filter(Boolean)
        .join(" "),
    ];
  });
  return [
    `### The ${name} object`,
    "",
    String(n.description ?? ""),
    "",
    rows.length ? table(["Field", "Type", "Meaning"], rows) : code(typeText(n)),
    "",
  ].join("\n");
}

export function apiReference(): string {
  const doc = openApiDocument(PREFIX) as Node;
  const paths = doc.paths as Record<string, Record<string, Node>>;
  const components = doc.components as {
    schemas: Record<string, Node>;
    securitySchemes: Record<string, Node>;
  };
  const ops = Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => operation(m, path, item[m]!)),
  );
  const info = doc.info as Node;
  return [
    GENERATED_NOTE("the API's OpenAPI document (src/api/openapi)"),
    "# Webhook API reference",
    "",
    String(info.description),
    `The server serves this document as OpenAPI ${doc.openapi as string} at \`${PREFIX}/openapi.json\` (the`,
    "prefix is the `--prefix` flag, `/api` by default). Every answer other than 2xx has the body",
    '`{"errors": ["..."]}` with at least one message naming the field and the fix.',
    "",
    "## Authentication",
    "",
    String(components.securitySchemes.apiKey?.description ?? ""),
    "",
    "## Operations",
    "",
    ...ops,
    "## Objects",
    "",
    ...Object.entries(components.schemas).map(([name, n]) => objectSection(name, n)),
  ].join("\n");
}
