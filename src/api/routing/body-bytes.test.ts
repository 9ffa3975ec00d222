import { describe, expect, it } from "vitest";
import { hasBodyBytes } from "./body-bytes.ts";

describe("hasBodyBytes", () => {
  it.each([
    [{}, false],
    [{ "content-type": "application/json" }, false],
    [{ "content-length": "0", "content-type": "text/plain" }, false],
    [{ "content-length": "2" }, true],
    [{ "transfer-encoding": "chunked" }, true],
  ])("%o: %s", (headers, expected) => {
    expect(hasBodyBytes(headers)).toBe(expected);
  });
});
