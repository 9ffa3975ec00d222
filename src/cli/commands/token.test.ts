import { describe, expect, it } from "vitest";
import { scopeOf } from "./token.ts";

describe("token scopes", () => {
  it.each<[string | undefined, boolean, string | undefined, string]>([
    [undefined, false, undefined, ""],
    ["admin", false, undefined, "admin"],
    [undefined, true, undefined, "sign"],
    ["events:write", true, undefined, "events:write sign"],
    [undefined, false, "video/signer-a", "sign:video/signer-a"],
    ["sign", true, undefined, "sign"],
  ])("--scope %j --signing=%s --signer %j -> %j", (scope, signing, signer, expected) => {
    expect(scopeOf(scope, signing, signer)).toBe(expected);
  });

  it("refuses a --signer that is not NAMESPACE/NAME", () => {
    expect(() => scopeOf(undefined, false, "signer-a")).toThrow(/NAMESPACE\/NAME of a RemoteSigner/);
  });
});
