import { describe, expect, it } from "vitest";
import { algorithmsForJwk, algorithmsForJwks } from "./algorithms.ts";

describe("algorithmsForJwk", () => {
  it("pins EC keys to the algorithm of their curve", () => {
    expect(algorithmsForJwk({ kty: "EC", crv: "P-256" })).toEqual(["ES256"]);
    expect(algorithmsForJwk({ kty: "EC", crv: "P-521" })).toEqual(["ES512"]);
  });

  it("gives RSA keys only RSA algorithms, or the one they declare", () => {
    expect(algorithmsForJwk({ kty: "RSA" })).not.toContain("HS256");
    expect(algorithmsForJwk({ kty: "RSA", alg: "PS256" })).toEqual(["PS256"]);
  });

  it("refuses a key whose declared alg belongs to another family (confusion)", () => {
    expect(() => algorithmsForJwk({ kty: "RSA", alg: "HS256" })).toThrow(/does not fit/);
    expect(() => algorithmsForJwk({ kty: "EC", crv: "P-256", alg: "ES384" })).toThrow(/does not fit/);
  });

  it("refuses symmetric and private keys in a public key set", () => {
    expect(() => algorithmsForJwk({ kty: "oct", kid: "k" })).toThrow(/--jwt-secret-file/);
    expect(() => algorithmsForJwk({ kty: "EC", crv: "P-256", d: "x" })).toThrow(/private/);
  });

  it("refuses unknown key types and curves", () => {
    expect(() => algorithmsForJwk({ kty: "EC", crv: "secp256k1" })).toThrow(/unsupported/);
    expect(() => algorithmsForJwk({})).toThrow(/unsupported/);
  });
});

describe("algorithmsForJwks", () => {
  it("is the union over the keys and never includes none or HMAC", () => {
    const algs = algorithmsForJwks([
      { kty: "EC", crv: "P-256" },
      { kty: "OKP", crv: "Ed25519" },
    ]);
    expect(algs.sort()).toEqual(["ES256", "EdDSA", "Ed25519"].sort());
    expect(algs).not.toContain("none");
  });
  it("refuses an empty set", () => {
    expect(() => algorithmsForJwks([])).toThrow(/no keys/);
  });
});
