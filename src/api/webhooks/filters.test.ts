import { describe, expect, it } from "vitest";
import { FiltersSchema, parseJsonFilters } from "./filters.ts";

// The OpenAPI document describes `filters` with FiltersSchema; the server parses it with
// parseJsonFilters (for its messages). A request valid by the document must be accepted and one
// the document rules out must be refused, so the two are checked against each other.
const cases: Array<[string, unknown]> = [
  ["substring filter", [{ id: "name", value: "cam" }]],
  ["exact filter", [{ id: "streamId", value: "s-1" }]],
  ["number as text value", [{ id: "userId", value: 42 }]],
  ["boolean value", [{ id: "url", value: true }]],
  ["createdAt number", [{ id: "createdAt", value: 1700000000000 }]],
  ["createdAt numeric text", [{ id: "createdAt", value: "1700000000000" }]],
  ["createdAt range", [{ id: "createdAt", value: { gte: 1, lt: "2" } }]],
  ["createdAt empty range", [{ id: "createdAt", value: {} }]],
  ["extra property kept out", [{ id: "name", value: "x", note: 1 }]],
  ["empty list", []],
  ["not an array", { id: "name", value: "x" }],
  ["unknown field", [{ id: "colour", value: "red" }]],
  ["missing value", [{ id: "name" }]],
  ["null value", [{ id: "name", value: null }]],
  ["object for a text field", [{ id: "name", value: { gt: 1 } }]],
  ["unknown range operator", [{ id: "createdAt", value: { after: 1 } }]],
  ["non-numeric text for createdAt", [{ id: "createdAt", value: " 12" }]],
  ["text for createdAt", [{ id: "createdAt", value: "yesterday" }]],
  ["overlong text", [{ id: "name", value: "x".repeat(2049) }]],
  ["too many filters", Array.from({ length: 21 }, () => ({ id: "name", value: "x" }))],
];

function serverAccepts(v: unknown): boolean {
  try {
    parseJsonFilters(JSON.stringify(v));
    return true;
  } catch {
    return false;
  }
}

describe("the filters parameter: document and server agree", () => {
  it.each(cases)("%s", (_name, value) => {
    expect(serverAccepts(value)).toBe(FiltersSchema.safeParse(value).success);
  });

  it("refuses text that is not JSON with a message showing the form", () => {
    expect(() => parseJsonFilters("name=x")).toThrow(
      /send a JSON array like \[\{"id":"name","value":"x"\}\]/,
    );
  });
});
