import { describe, expect, it } from "vitest";
import { HttpError } from "../errors/http-error.ts";
import type { ApiWebhook } from "./api-schema.ts";
import { encodeCursor } from "./cursor.ts";
import { matches } from "./filters.ts";
import { parseListQuery } from "./list-query.ts";

function refusal(q: Record<string, unknown>): string {
  try {
    parseListQuery(q);
  } catch (err) {
    if (err instanceof HttpError && err.status === 422) return err.messages.join("\n");
    throw err;
  }
  throw new Error("expected a 422");
}

const hook = (o: Partial<ApiWebhook>): ApiWebhook => ({
  id: "id",
  name: "Order Events",
  kind: "webhook",
  userId: "alice",
  projectId: "default",
  createdAt: 1000,
  url: "https://example.com/hooks",
  ...o,
});

describe("parseListQuery", () => {
  it("defaults to 20 items, no count, no filters", () => {
    expect(parseListQuery({})).toEqual({ limit: 20, count: false, filters: [] });
  });

  it("reads limit, cursor and count", () => {
    const q = parseListQuery({
      limit: "1000",
      cursor: encodeCursor({ createdAt: 5, id: "x" }),
      count: "true",
    });
    expect(q).toMatchObject({ limit: 1000, count: true, after: { createdAt: 5, id: "x" } });
  });

  it.each([
    [{ limit: "0" }, /limit/],
    [{ limit: "1001" }, /limit/],
    [{ limit: "abc" }, /limit/],
    [{ limit: ["1", "2"] }, /given once/],
    [{ count: "yes" }, /count/],
    [{ sort: "name" }, /unknown query parameter 'sort'/],
    [{ filters: "{" }, /not JSON/],
    [{ filters: '{"id":"name"}' }, /JSON array/],
    [{ filters: '[{"id":"secret","value":"x"}]' }, /unknown field 'secret'/],
    [{ filters: '[{"id":"createdAt","value":{"after":1}}]' }, /unknown operator 'after'/],
    [{ "createdAt[gte]": "soon" }, /number/],
  ])("refuses %j, naming the parameter", (q, message) => {
    expect(refusal(q)).toMatch(message);
  });

  it("combines JSON filters and simple parameters", () => {
    const q = parseListQuery({
      filters: JSON.stringify([
        { id: "name", value: "order" },
        { id: "createdAt", value: { gte: 500, lt: 2000 } },
      ]),
      streamId: "s1",
      "createdAt[lte]": "1500",
    });
    expect(q.filters).toHaveLength(4);
    expect(matches(hook({ streamId: "s1" }), q.filters)).toBe(true);
    expect(matches(hook({ streamId: "s2" }), q.filters)).toBe(false);
    expect(matches(hook({ streamId: "s1", createdAt: 1600 }), q.filters)).toBe(false);
    expect(matches(hook({ streamId: "s1", name: "Other" }), q.filters)).toBe(false);
  });
});

describe("matches", () => {
  it("matches name and url by case-insensitive substring", () => {
    const q = parseListQuery({ name: "ORDER", url: "example.COM" });
    expect(matches(hook({}), q.filters)).toBe(true);
  });

  it("matches streamId exactly and a createdAt number as equality", () => {
    expect(matches(hook({ streamId: "s10" }), parseListQuery({ streamId: "s1" }).filters)).toBe(false);
    const eq = parseListQuery({ filters: '[{"id":"createdAt","value":1000}]' }).filters;
    expect(matches(hook({}), eq)).toBe(true);
    expect(matches(hook({ createdAt: 1001 }), eq)).toBe(false);
  });

  it("does not match an absent streamId", () => {
    expect(matches(hook({}), parseListQuery({ streamId: "s" }).filters)).toBe(false);
  });
});
