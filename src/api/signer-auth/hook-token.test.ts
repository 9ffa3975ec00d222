import { describe, expect, it } from "vitest";
import { hookTokenDigest } from "../../schema/node-hooks.ts";
import { HookTokenCheck } from "./hook-token.ts";

const token = "c".repeat(43);
const signer = () => ({ hookTokenDigest: hookTokenDigest(token) as string | undefined });

describe("HookTokenCheck: the published digest decides, a remembered match only saves the hash", () => {
  it.each<[string, (string | undefined)[], boolean[]]>([
    ["the token, twice", [token, token], [true, true]],
    ["a wrong token after the right one", [token, "d".repeat(43)], [true, false]],
    ["a longer token after the right one", [token, `${token}x`], [true, false]],
    ["a prefix of the token", [token, token.slice(0, 42)], [true, false]],
    ["no token", [undefined, ""], [false, false]],
    ["a wrong token first, then the right one", ["d".repeat(43), token], [false, true]],
  ])("%s", (_, presented, expected) => {
    const check = new HookTokenCheck();
    const s = signer();
    expect(presented.map((p) => check.matches(s, p))).toEqual(expected);
  });

  it("a signer whose token changed (a new cached object) is checked against its new digest", () => {
    const check = new HookTokenCheck();
    const before = signer();
    expect(check.matches(before, token)).toBe(true);
    const after = { hookTokenDigest: hookTokenDigest("e".repeat(43)) as string | undefined };
    expect(check.matches(after, token)).toBe(false);
    expect(check.matches(after, "e".repeat(43))).toBe(true);
  });

  it("no digest published: nothing matches", () => {
    const check = new HookTokenCheck();
    expect(check.matches({ hookTokenDigest: undefined }, token)).toBe(false);
  });
});
