import { describe, expect, it } from "vitest";
import { z } from "zod";
import { HttpError } from "./http-error.ts";
import { fieldPath, parseOr422 } from "./validation.ts";

const Body = z.strictObject({
  name: z.string().min(1),
  events: z.array(z.enum(["stream.started", "stream.idle"])).optional(),
  nested: z.strictObject({ a: z.number() }).optional(),
});

function messages(value: unknown): string[] {
  try {
    parseOr422(Body, value, "body");
  } catch (err) {
    if (err instanceof HttpError) {
      expect(err.status).toBe(422);
      return err.messages;
    }
    throw err;
  }
  throw new Error("expected a 422");
}

describe("parseOr422", () => {
  it("names each unknown property", () => {
    expect(messages({ name: "x", foo: 1, bar: 2 })).toEqual([
      "body has unknown property 'foo': remove it",
      "body has unknown property 'bar': remove it",
    ]);
  });

  it("names nested and array fields", () => {
    const m = messages({ name: "x", events: ["stream.started", "nope"], nested: { a: "1" } });
    expect(m).toContain("body field 'events[1]' must be one of stream.started, stream.idle");
    expect(m).toContain("body field 'nested.a' must be a number");
  });

  it("says a missing field is required and an empty one too short", () => {
    expect(messages({})).toEqual(["body field 'name' is required"]);
    expect(messages({ name: "" })).toEqual(["body field 'name' must have at least 1 character(s)"]);
  });

  it("says what the body must be when it is not an object", () => {
    expect(messages([])).toEqual(["body must be an object"]);
    expect(messages(null)).toEqual(["body must be an object"]);
  });

  it("returns the parsed value when valid", () => {
    expect(parseOr422(Body, { name: "x" }, "body")).toEqual({ name: "x" });
  });
});

describe("fieldPath", () => {
  it("joins keys with dots and indexes with brackets", () => {
    expect(fieldPath(["a", 0, "b"])).toBe("a[0].b");
    expect(fieldPath([])).toBe("");
  });
});
