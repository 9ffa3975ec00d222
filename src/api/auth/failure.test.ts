import { errors } from "jose";
import { describe, expect, it } from "vitest";
import { tokenRejection } from "./failure.ts";

describe("tokenRejection", () => {
  it("says an expired token must be re-minted", () => {
    const r = tokenRejection(new errors.JWTExpired("x", {}, "exp", "check_failed"));
    expect(r.status).toBe(401);
    expect(r.messages[0]).toMatch(/expired/);
  });

  it("names the expected audience and issuer", () => {
    const aud = tokenRejection(new errors.JWTClaimValidationFailed("x", {}, "aud", "check_failed"), {
      audience: "livepeer-api",
    });
    expect(aud.messages[0]).toMatch(/audience.*'livepeer-api'/);
    const iss = tokenRejection(new errors.JWTClaimValidationFailed("x", {}, "iss", "check_failed"), {
      issuer: "https://issuer",
    });
    expect(iss.messages[0]).toMatch(/issuer.*https:\/\/issuer/);
  });

  it("asks for an expiry when exp is missing", () => {
    expect(
      tokenRejection(new errors.JWTClaimValidationFailed("x", {}, "exp", "missing")).messages[0],
    ).toMatch(/TTL/);
  });

  it("maps signature, algorithm and format failures to 401", () => {
    for (const e of [
      new errors.JWSSignatureVerificationFailed(),
      new errors.JOSEAlgNotAllowed("x"),
      new errors.JWSInvalid("x"),
      new errors.JWTInvalid("x"),
      new errors.JWKSNoMatchingKey(),
    ]) {
      const r = tokenRejection(e);
      expect(r.status).toBe(401);
      expect(r.headers["www-authenticate"]).toMatch(/invalid_token/);
    }
  });

  it("treats a key-loading failure as the server's problem (503), not the token's", () => {
    expect(tokenRejection(new errors.JWKSTimeout()).status).toBe(503);
    expect(tokenRejection(new TypeError("fetch failed")).status).toBe(503);
  });
});
