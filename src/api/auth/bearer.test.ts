import { describe, expect, it } from "vitest";
import { BEARER, bearerToken } from "./verifier.ts";

describe("bearerToken: an Authorization header's token, read by hand", () => {
  it.each<[string, string | undefined]>([
    ["Bearer abc", "abc"],
    ["bearer abc", "abc"],
    ["BEARER abc", "abc"],
    ["bEaReR a.b-c_d~e+f/g=", "a.b-c_d~e+f/g="],
    ["Bearer    abc", "abc"],
    ["Bearer abc   ", "abc"],
    ["Bearer x", "x"],
    ["Bearer a\tb", "a\tb"],
    ["Bearer abc def", undefined],
    ["Bearer ", undefined],
    ["Bearer     ", undefined],
    ["Bearer", undefined],
    ["Bearerabc", undefined],
    ["Bearer\tabc", undefined],
    [" Bearer abc", undefined],
    ["Basic abc", undefined],
    ["Bearez abc", undefined],
    ["Bearer\u00a0abc", undefined],
    ["B\u0080arer abc", undefined],
    ["", undefined],
  ])("%j", (header, token) => {
    expect(bearerToken(header)).toBe(token);
    expect(BEARER.exec(header)?.[1]).toBe(token);
  });

  it("reads what the regex reads", () => {
    // Every header of up to 3 characters after each prefix, over an alphabet with the word's letters in both cases,
    // other characters ('@', a non-ASCII letter), spaces and a tab.
    const alphabet = ["B", "b", "e", "E", "a", "A", "r", "R", " ", "\t", "x", "@", "\u0142"];
    let n = 0;
    const prefixes = ["", "Bearer", "bearer ", "BEARER  ", "Bearer x", "bEARER"];
    for (const prefix of prefixes) {
      const walk = (s: string, depth: number): void => {
        const header = prefix + s;
        expect(bearerToken(header), JSON.stringify(header)).toBe(BEARER.exec(header)?.[1]);
        n++;
        if (depth > 0) for (const c of alphabet) walk(s + c, depth - 1);
      };
      walk("", 3);
    }
    expect(n).toBeGreaterThan(10_000);
  });
});
