import { describe, expect, it } from "vitest";
import { z } from "zod";
import { crdJsonSchema } from "./crd.ts";
import { StructuralSchemaError, toStructural, undescribedFields } from "./structural.ts";

describe("toStructural", () => {
  it("drops $schema and the additionalProperties: false that strict objects produce", () => {
    const out = toStructural({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { a: { type: "string" } },
      additionalProperties: false,
    });
    expect(out).toEqual({ type: "object", properties: { a: { type: "string" } } });
  });

  it("refuses $ref and $defs, naming the path and the fix", () => {
    expect(() => toStructural({ type: "object", properties: { a: { $ref: "#/$defs/x" } } })).toThrow(
      /\.a: '\$ref' cannot appear in a CRD schema: inline/,
    );
    expect(() => toStructural({ type: "object", $defs: {} })).toThrow(StructuralSchemaError);
  });

  it("refuses oneOf, allOf and not", () => {
    for (const key of ["oneOf", "allOf", "not"]) {
      expect(() => toStructural({ type: "string", [key]: [{ type: "string" }] })).toThrow(key);
    }
  });

  it("writes string|integer as x-kubernetes-int-or-string, keeping the string's pattern", () => {
    const out = toStructural({
      description: "q",
      anyOf: [
        { type: "string", pattern: "^[0-9]+$", maxLength: 8 },
        { type: "integer", minimum: 0 },
      ],
    });
    expect(out).toEqual({
      description: "q",
      pattern: "^[0-9]+$",
      maxLength: 8,
      anyOf: [{ type: "integer" }, { type: "string" }],
      "x-kubernetes-int-or-string": true,
    });
  });

  it("refuses any other union, telling to use one type and CEL", () => {
    expect(() => toStructural({ anyOf: [{ type: "string" }, { type: "boolean" }] })).toThrow(
      /not a structural schema: use one type and a CEL rule/,
    );
  });

  it("keeps a map of mixed scalar values as preserve-unknown-fields", () => {
    const out = toStructural({
      type: "object",
      additionalProperties: { anyOf: [{ type: "string" }, { type: "number" }, { type: "boolean" }] },
    });
    expect(out).toEqual({ type: "object", "x-kubernetes-preserve-unknown-fields": true });
  });

  it("types a map of int-or-string values structurally", () => {
    const out = toStructural({
      type: "object",
      additionalProperties: { anyOf: [{ type: "string" }, { type: "integer" }] },
      propertyNames: { type: "string" },
    });
    expect(out).toEqual({
      type: "object",
      additionalProperties: {
        anyOf: [{ type: "integer" }, { type: "string" }],
        "x-kubernetes-int-or-string": true,
      },
    });
  });

  it("turns const into a one-value enum", () => {
    expect(toStructural({ type: "string", const: "onchain" })).toEqual({ type: "string", enum: ["onchain"] });
  });

  it("drops zod's implied integer bounds and picks an integer format", () => {
    expect(toStructural({ type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER })).toEqual({
      type: "integer",
      format: "int64",
      minimum: 0,
    });
    expect(toStructural({ type: "integer", minimum: 1, maximum: 65535 })).toEqual({
      type: "integer",
      format: "int32",
      minimum: 1,
      maximum: 65535,
    });
  });

  it("drops zod's date-time regex, keeping the format", () => {
    expect(toStructural({ type: "string", format: "date-time", pattern: "^(?:...)$" })).toEqual({
      type: "string",
      format: "date-time",
    });
  });

  it("requires a type on every node", () => {
    expect(() => toStructural({ type: "object", properties: { a: { description: "untyped" } } })).toThrow(
      /\.a: every node of a structural schema needs a type/,
    );
  });

  it("refuses keywords a CRD schema does not know (readOnly belongs to the API document)", () => {
    expect(() => toStructural({ type: "string", readOnly: true })).toThrow(/'readOnly' is not a keyword/);
  });

  it("keeps Kubernetes extensions and CEL rules", () => {
    const rules = [{ rule: "has(self.a)", message: "a is required" }];
    const out = toStructural({
      type: "object",
      properties: { a: { type: "string" } },
      "x-kubernetes-validations": rules,
    });
    expect(out["x-kubernetes-validations"]).toEqual(rules);
  });

  it("orders keys so descriptions come first", () => {
    const out = toStructural({ properties: { a: { type: "string" } }, type: "object", description: "d" });
    expect(Object.keys(out)).toEqual(["description", "type", "properties"]);
  });
});

describe("crdJsonSchema (zod in, structural schema out)", () => {
  it("marks defaulted fields optional and writes their defaults", () => {
    const out = crdJsonSchema(
      z.strictObject({
        network: z.string().default("offchain").describe("n"),
        url: z.string().describe("u"),
      }),
    );
    expect(out).toEqual({
      type: "object",
      properties: {
        network: { description: "n", type: "string", default: "offchain" },
        url: { description: "u", type: "string" },
      },
      required: ["url"],
    });
  });

  it("writes a nullable field as nullable: true, not as a union with null", () => {
    expect(crdJsonSchema(z.string().nullable().describe("n"))).toEqual({
      description: "n",
      type: "string",
      nullable: true,
    });
  });

  it("carries x-kubernetes metadata given with .meta()", () => {
    const out = crdJsonSchema(
      z
        .array(z.strictObject({ type: z.string() }))
        .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"] }),
    );
    expect(out["x-kubernetes-list-type"]).toBe("map");
    expect(out["x-kubernetes-list-map-keys"]).toEqual(["type"]);
  });
});

describe("undescribedFields", () => {
  it("lists properties kubectl explain would show without a description", () => {
    expect(
      undescribedFields({
        type: "object",
        properties: {
          a: { type: "string", description: "a" },
          b: { type: "object", properties: { c: { type: "string" } } },
          d: {
            type: "array",
            description: "d",
            items: { type: "object", properties: { e: { type: "string" } } },
          },
        },
      }),
    ).toEqual(["b", "b.c", "d[].e"]);
  });
});
