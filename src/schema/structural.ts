// Turns the JSON Schema zod emits (OpenAPI 3.0 target) into a structural schema the API server
// accepts for a CRD: every node typed, no references, no unions except int-or-string, no
// `additionalProperties: false`, no keywords the CRD schema does not know. Pure: schema in,
// schema out; anything it cannot translate faithfully throws, naming the path.

export type JsonSchema = { [key: string]: unknown };

/** JSONSchemaProps keys of apiextensions.k8s.io/v1 this generator emits, in output order. */
const KEY_ORDER = [
  "description",
  "type",
  "format",
  "enum",
  "default",
  "nullable",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "exclusiveMinimum",
  "maximum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "anyOf",
  "items",
  "properties",
  "required",
  "additionalProperties",
  "x-kubernetes-int-or-string",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
  "x-kubernetes-validations",
] as const;
const ALLOWED = new Set<string>(KEY_ORDER);
const SCALAR_TYPES = new Set(["string", "integer", "number", "boolean"]);

/** Bounds zod adds to every integer; they say nothing the format does not. */
const IMPLIED_INTEGER_BOUNDS = new Set([
  Number.MIN_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER,
  -2147483648,
  2147483647,
]);
const INT32_MAX = 2147483647;
const INT32_MIN = -2147483648;

export class StructuralSchemaError extends Error {
  override name = "StructuralSchemaError";
}

export function toStructural(schema: JsonSchema, path = ""): JsonSchema {
  const at = path || "<root>";
  const n: JsonSchema = { ...schema };
  delete n.$schema;
  delete n.$id;
  delete n.id;
  for (const key of [
    "$ref",
    "$defs",
    "definitions",
    "allOf",
    "not",
    "oneOf",
    "patternProperties",
    "dependencies",
  ]) {
    if (key in n) {
      throw new StructuralSchemaError(
        `${at}: '${key}' cannot appear in a CRD schema: inline the shape (toJSONSchema with reused: "inline") or express the rule as CEL in x-kubernetes-validations`,
      );
    }
  }
  if ("const" in n) {
    n.enum = [n.const];
    delete n.const;
  }
  if ("anyOf" in n) intOrString(n, at);

  if (n.additionalProperties === false || n.additionalProperties === true) delete n.additionalProperties;
  delete n.propertyNames; // map keys are always strings in Kubernetes
  if (isObject(n.additionalProperties)) {
    const values = n.additionalProperties;
    if (Object.keys(values).length === 0 || isScalarUnion(values)) {
      // A map of mixed scalar values cannot be typed structurally: keep it, unchecked by the
      // API server (zod still checks it in the operator).
      delete n.additionalProperties;
      n["x-kubernetes-preserve-unknown-fields"] = true;
    } else {
      n.additionalProperties = toStructural(values, `${path}.additionalProperties`);
    }
  }
  if (isObject(n.properties)) {
    if ("additionalProperties" in n) {
      throw new StructuralSchemaError(
        `${at}: properties and additionalProperties are mutually exclusive in a CRD schema`,
      );
    }
    n.properties = Object.fromEntries(
      Object.entries(n.properties).map(([k, v]) => [
        k,
        toStructural(asSchema(v, `${path}.${k}`), `${path}.${k}`),
      ]),
    );
  }
  if ("items" in n) {
    if (!isObject(n.items))
      throw new StructuralSchemaError(`${at}: items must be one schema (tuples are not structural)`);
    n.items = toStructural(n.items, `${path}[]`);
  }
  if (n.type === "integer") integerFormat(n);
  if (n.format === "date-time") delete n.pattern; // zod's RFC 3339 regex; the format already checks it
  if (n.uniqueItems === true) {
    throw new StructuralSchemaError(`${at}: uniqueItems is not allowed: use x-kubernetes-list-type: set`);
  }
  delete n.uniqueItems;
  delete n.title;

  if (
    typeof n.type !== "string" &&
    !n["x-kubernetes-int-or-string"] &&
    !n["x-kubernetes-preserve-unknown-fields"]
  ) {
    throw new StructuralSchemaError(`${at}: every node of a structural schema needs a type`);
  }
  for (const key of Object.keys(n)) {
    if (!ALLOWED.has(key)) {
      throw new StructuralSchemaError(
        `${at}: '${key}' is not a keyword this generator writes into a CRD schema`,
      );
    }
  }
  return ordered(n);
}

/** `string | integer` is the one union a structural schema allows (x-kubernetes-int-or-string). */
function intOrString(n: JsonSchema, at: string): void {
  const branches = n.anyOf;
  if (!Array.isArray(branches) || !branches.every(isObject)) {
    throw new StructuralSchemaError(`${at}: anyOf must be a list of schemas`);
  }
  const types = branches.map((b) => b.type).sort();
  if (types.length !== 2 || types[0] !== "integer" || types[1] !== "string") {
    throw new StructuralSchemaError(
      `${at}: a union (anyOf of ${types.join(", ")}) is not a structural schema: use one type and a CEL rule in x-kubernetes-validations`,
    );
  }
  const str = branches.find((b) => b.type === "string")!;
  for (const key of ["pattern", "minLength", "maxLength"]) {
    if (key in str) n[key] = str[key];
  }
  delete n.type;
  n.anyOf = [{ type: "integer" }, { type: "string" }];
  n["x-kubernetes-int-or-string"] = true;
}

function integerFormat(n: JsonSchema): void {
  if (typeof n.minimum === "number" && IMPLIED_INTEGER_BOUNDS.has(n.minimum)) delete n.minimum;
  if (typeof n.maximum === "number" && IMPLIED_INTEGER_BOUNDS.has(n.maximum)) delete n.maximum;
  if (n.format === undefined) {
    const fitsInt32 =
      typeof n.maximum === "number" &&
      n.maximum <= INT32_MAX &&
      (typeof n.minimum !== "number" || n.minimum >= INT32_MIN);
    n.format = fitsInt32 ? "int32" : "int64";
  }
}

/** A union of scalar types other than int-or-string (which has its own structural form). */
function isScalarUnion(s: JsonSchema): boolean {
  if (!Array.isArray(s.anyOf) || s.anyOf.length < 2) return false;
  const types = s.anyOf.map((b) => (isObject(b) ? b.type : undefined));
  if (!types.every((t) => typeof t === "string" && SCALAR_TYPES.has(t))) return false;
  const intOrString = types.length === 2 && types.includes("integer") && types.includes("string");
  return !intOrString;
}

function isObject(v: unknown): v is JsonSchema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function asSchema(v: unknown, path: string): JsonSchema {
  if (!isObject(v)) throw new StructuralSchemaError(`${path}: a property's schema must be an object`);
  return v;
}

function ordered(n: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const key of KEY_ORDER) if (key in n) out[key] = n[key];
  return out;
}

/** Every property below `schema` without a description, as dotted paths (kubectl explain shows them). */
export function undescribedFields(schema: JsonSchema, path = ""): string[] {
  const missing: string[] = [];
  if (isObject(schema.properties)) {
    for (const [k, v] of Object.entries(schema.properties)) {
      const p = path ? `${path}.${k}` : k;
      if (!isObject(v)) continue;
      if (typeof v.description !== "string" || v.description.trim() === "") missing.push(p);
      missing.push(...undescribedFields(v, p));
    }
  }
  if (isObject(schema.items)) missing.push(...undescribedFields(schema.items, `${path}[]`));
  if (isObject(schema.additionalProperties))
    missing.push(...undescribedFields(schema.additionalProperties, `${path}{}`));
  return missing;
}
