import { describe, expect, it } from "vitest";
import { encodeCursor } from "./cursor.ts";
import { parseLogQuery } from "./log-query.ts";

describe("parseLogQuery", () => {
  it.each([
    [{}, { limit: 20, count: false }],
    [{ limit: "5" }, { limit: 5, count: false }],
    [{ count: "true" }, { limit: 20, count: true }],
    [
      { cursor: encodeCursor({ createdAt: 9, id: "x" }) },
      { limit: 20, count: false, after: { createdAt: 9, id: "x" } },
    ],
    [{ cursor: "" }, { limit: 20, count: false }],
  ])("%o -> %o", (query, expected) => {
    expect(parseLogQuery(query)).toEqual(expected);
  });

  it.each([
    [{ limit: "0" }, /'limit' must be an integer from 1 to 1000/],
    [{ limit: "1001" }, /'limit' must be an integer/],
    [{ limit: ["1", "2"] }, /'limit' must be given once/],
    [{ cursor: "!!" }, /'cursor' must look like <createdAt ms>_<id>/],
    [{ count: "yes" }, /'count' must be true or false/],
    [{ event: "stream.started" }, /'event' is not supported for the log/],
  ])("%o is refused naming the parameter", (query, message) => {
    expect(() => parseLogQuery(query)).toThrow(message);
  });
});
