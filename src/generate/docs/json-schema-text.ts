// How a JSON Schema node reads in a reference table: its type, its allowed values and its default.
type Node = Record<string, unknown>;

export function typeText(n: Node): string {
  if (n["x-kubernetes-int-or-string"]) return "int or string";
  if (Array.isArray(n.enum)) return n.enum.map((v) => JSON.stringify(v)).join(" | ");
  if ("const" in n) return JSON.stringify(n.const);
  const t = Array.isArray(n.type) ? n.type.join(" or ") : typeof n.type === "string" ? n.type : "";
  if (t === "array" && n.items && typeof n.items === "object") {
    const inner = typeText(n.items as Node);
    return inner ? `[]${inner}` : "array";
  }
  if (t === "object" && typeof n.additionalProperties === "object") {
    return `map[string]${typeText(n.additionalProperties as Node) || "any"}`;
  }
  if (t) return t;
  for (const k of ["anyOf", "oneOf"]) {
    if (Array.isArray(n[k])) return [...new Set((n[k] as Node[]).map(typeText).filter(Boolean))].join(" or ");
  }
  return "any";
}

const NUMERIC_FORMATS = new Set(["int32", "int64", "float", "double"]);

/** Bounds and patterns a reader needs to write a valid value. */
export function constraintText(n: Node): string {
  const parts: string[] = [];
  const add = (key: string, label: string) => {
    if (n[key] !== undefined) parts.push(`${label} ${JSON.stringify(n[key])}`);
  };
  add("minimum", ">=");
  add("exclusiveMinimum", ">");
  add("maximum", "<=");
  add("exclusiveMaximum", "<");
  add("minLength", "min length");
  add("maxLength", "max length");
  add("minItems", "min items");
  add("maxItems", "max items");
  add("pattern", "pattern");
  if (typeof n.format === "string" && !NUMERIC_FORMATS.has(n.format)) parts.push(`format ${n.format}`);
  return parts.join(", ");
}

export function defaultText(n: Node): string {
  return "default" in n ? JSON.stringify(n.default) : "";
}
