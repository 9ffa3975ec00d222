// What a client is told when its token is refused: which check failed and what to do. Only
// facts about the token the client sent (never the configured keys or secret).
import { HttpError, serviceUnavailable, unauthenticated } from "../errors/http-error.ts";

interface JoseLikeError {
  code?: unknown;
  claim?: unknown;
  reason?: unknown;
}

export interface Expectations {
  issuer?: string | undefined;
  audience?: string | string[] | undefined;
}

function claimMessage(claim: unknown, reason: unknown, expect: Expectations): string {
  if (reason === "missing") {
    if (claim === "exp") return "token has no 'exp' claim: tokens must expire; mint one with a TTL";
    return `token has no '${String(claim)}' claim, which this server requires`;
  }
  switch (claim) {
    case "aud":
      return `token audience is not accepted${expect.audience ? `: this server expects '${[expect.audience].flat().join("' or '")}'` : ""}`;
    case "iss":
      return `token issuer is not accepted${expect.issuer ? `: this server expects '${expect.issuer}'` : ""}`;
    case "nbf":
      return "token is not valid yet (nbf is in the future): check the issuer's clock";
    case "iat":
      return "token 'iat' claim is not valid";
    default:
      return `token claim '${String(claim)}' is not valid`;
  }
}

/** The response for a token jose refused (or an error while fetching keys). */
export function tokenRejection(err: unknown, expect: Expectations = {}): HttpError {
  if (err instanceof HttpError) return err;
  const e = (typeof err === "object" && err !== null ? err : {}) as JoseLikeError;
  switch (e.code) {
    case "ERR_JWT_EXPIRED":
      return unauthenticated("token expired: mint a new one");
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      return unauthenticated(claimMessage(e.claim, e.reason, expect));
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return unauthenticated(
        "token signature does not verify: it was signed with a key this server does not trust",
      );
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return unauthenticated("token algorithm is not accepted by this server");
    case "ERR_JWKS_NO_MATCHING_KEY":
      return unauthenticated("no trusted key matches the token's kid and alg");
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return unauthenticated("several trusted keys match the token and none verifies it: set a kid");
    case "ERR_JWS_INVALID":
    case "ERR_JWT_INVALID":
    case "ERR_JOSE_NOT_SUPPORTED":
    case "ERR_JWK_INVALID":
      return unauthenticated("token is not a valid signed JWT (header.payload.signature)");
    case "ERR_JWKS_TIMEOUT":
    case "ERR_JWKS_INVALID":
      return serviceUnavailable("the server could not load its token keys (JWKS): retry later", 5);
    default:
      // A failed JWKS fetch surfaces as a plain Error: the fault is ours, not the token's.
      return serviceUnavailable("the server could not verify tokens right now: retry later", 5);
  }
}
