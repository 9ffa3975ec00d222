import { describe, expect, it } from "vitest";
import { HttpError } from "./errors/http-error.ts";
import { parseJsonBody } from "./json-body.ts";

function refusal(text: string): string | undefined {
  try {
    parseJsonBody(text);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(400);
    return (err as HttpError).messages.join("; ");
  }
}

describe("parseJsonBody", () => {
  it.each([
    ['{"event":"stream.started","payload":{"a":1}}', { event: "stream.started", payload: { a: 1 } }],
    ['{"constructor":"a string is fine"}', { constructor: "a string is fine" }],
    ['{"constructor":{"name":"no prototype key"}}', { constructor: { name: "no prototype key" } }],
    ['{"text":"\\"__proto__\\" inside a string value"}', { text: '"__proto__" inside a string value' }],
    ["[1,2]", [1, 2]],
  ])("accepts %s", (text, parsed) => {
    expect(parseJsonBody(text)).toEqual(parsed);
  });

  it.each([
    ["", /empty but Content-Type is application\/json/],
    ["{", /not valid JSON \(.+\): fix its syntax/],
    ['{"__proto__":{"x":1}}', /key '__proto__', which the API refuses .*: rename the key/],
    ['{"event":"stream.started","payload":{"":{"__proto__":false}}}', /key 'payload\.\.__proto__'/],
    ['{"payload":{"list":[{"__proto__":1}]}}', /key 'payload\.list\[0\]\.__proto__'/],
    ['{"payload":{"constructor":{"prototype":{"polluted":true}}}}', /key 'payload\.constructor\.prototype'/],
  ])("refuses %s with a message that says why and what to do", (text, message) => {
    expect(refusal(text)).toMatch(message);
  });

  it("does not change any object's prototype", () => {
    const parsed = parseJsonBody('{"a":{"b":1}}') as { a: object };
    expect(Object.getPrototypeOf(parsed.a)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
