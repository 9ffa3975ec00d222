// Values a JSON Schema (as the served OpenAPI document writes it) declares valid, as fast-check
// arbitraries: what a client generated from the document, or a schema-driven fuzzer, would send.
// Covers the subset the document uses: $ref, type, enum, const, anyOf/oneOf, string bounds,
// pattern and format uri, number bounds, arrays and objects (readOnly properties left out of
// requests, as the document marks them).
import fc from "fast-check";

type Node = Record<string, unknown>;

export interface SchemaContext {
  components: Record<string, Node>;
}

function resolve(n: Node, ctx: SchemaContext): Node {
  const ref = n.$ref;
  if (typeof ref !== "string") return n;
  const name = ref.split("/").pop()!;
  const target = ctx.components[name];
  if (!target) throw new Error(`the document references ${ref}, which it does not define`);
  return resolve(target, ctx);
}

function stringArb(n: Node): fc.Arbitrary<string> {
  const minLength = typeof n.minLength === "number" ? n.minLength : 0;
  const maxLength = Math.min(typeof n.maxLength === "number" ? n.maxLength : 64, 64);
  if (n.format === "uri") return fc.webUrl({ validSchemes: ["http", "https"], withQueryParameters: true });
  const base = fc.string({ minLength, maxLength });
  if (typeof n.pattern !== "string") return base;
  const re = new RegExp(n.pattern, "u");
  const fits = (s: string) => re.test(s) && s.length >= minLength && s.length <= maxLength;
  try {
    // Patterns that random text rarely meets (numbers as text) need a generator of their own.
    return fc.stringMatching(new RegExp(n.pattern)).filter(fits);
  } catch {
    return base.filter(fits);
  }
}

function numberArb(n: Node, integer: boolean): fc.Arbitrary<number> {
  const min = typeof n.minimum === "number" ? n.minimum : -1e12;
  const max = typeof n.maximum === "number" ? n.maximum : 1e15;
  if (integer)
    return fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, 2 ** 31) });
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

export function arbitraryFor(schema: Node, ctx: SchemaContext): fc.Arbitrary<unknown> {
  const n = resolve(schema, ctx);
  if ("const" in n) return fc.constant(n.const);
  if (Array.isArray(n.enum)) return fc.constantFrom(...(n.enum as unknown[]));
  for (const k of ["anyOf", "oneOf"]) {
    if (Array.isArray(n[k]))
      return fc.oneof(...(n[k] as Node[]).map((s) => arbitraryFor({ ...n, [k]: undefined, ...s }, ctx)));
  }
  const type = Array.isArray(n.type) ? n.type[0] : n.type;
  switch (type) {
    case "string":
      return stringArb(n);
    case "integer":
      return numberArb(n, true);
    case "number":
      return numberArb(n, false);
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(arbitraryFor((n.items as Node) ?? {}, ctx), {
        minLength: typeof n.minItems === "number" ? n.minItems : 0,
        maxLength: Math.min(typeof n.maxItems === "number" ? n.maxItems : 5, 5),
      });
    case "object":
      return objectArb(n, ctx);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectArb(n: Node, ctx: SchemaContext): fc.Arbitrary<unknown> {
  const props = Object.entries((n.properties as Record<string, Node> | undefined) ?? {}).filter(
    ([, p]) => !resolve(p, ctx).readOnly,
  );
  if (!props.length)
    return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
  const required = (n.required as string[] | undefined) ?? [];
  return fc.record(Object.fromEntries(props.map(([k, p]) => [k, arbitraryFor(p, ctx)])), {
    requiredKeys: required.filter((k) => props.some(([name]) => name === k)),
  });
}
