// Which signature algorithms each key may verify. Pinning them per key type is what stops
// algorithm confusion: an HMAC secret only ever checks HS256, a public key only ever checks its
// own asymmetric family, and `alg: none` matches nothing.

export const HMAC_ALGORITHMS = ["HS256"] as const;
const RSA = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];
const EC_BY_CURVE: Record<string, string> = { "P-256": "ES256", "P-384": "ES384", "P-521": "ES512" };
const OKP_BY_CURVE: Record<string, string[]> = { Ed25519: ["EdDSA", "Ed25519"], Ed448: ["EdDSA"] };

/** Every asymmetric algorithm a remote JWKS may use (its keys are unknown until fetched). */
export const ASYMMETRIC_ALGORITHMS = [...RSA, "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];

export interface PublicJwk {
  kty?: unknown;
  crv?: unknown;
  alg?: unknown;
  kid?: unknown;
  d?: unknown;
}

/** The algorithms one public JWK may verify; throws with the fix for keys we must not accept. */
export function algorithmsForJwk(jwk: PublicJwk): string[] {
  const name = typeof jwk.kid === "string" ? `key '${jwk.kid}'` : "a key";
  if (jwk.kty === "oct") {
    throw new Error(
      `the JWKS holds a symmetric ('oct') ${name}: put HMAC secrets in --jwt-secret-file, never in a public key set`,
    );
  }
  if (jwk.d !== undefined) {
    throw new Error(`the JWKS holds a private ${name}: give the API server only public keys`);
  }
  let family: string[];
  if (jwk.kty === "RSA") family = RSA;
  else if (jwk.kty === "EC")
    family = typeof jwk.crv === "string" && EC_BY_CURVE[jwk.crv] ? [EC_BY_CURVE[jwk.crv]!] : [];
  else if (jwk.kty === "OKP") family = typeof jwk.crv === "string" ? (OKP_BY_CURVE[jwk.crv] ?? []) : [];
  else family = [];
  if (family.length === 0) {
    throw new Error(
      `${name} has an unsupported type (kty ${String(jwk.kty)}, crv ${String(jwk.crv)}): use RSA, EC P-256/384/521 or Ed25519`,
    );
  }
  if (jwk.alg === undefined) return family;
  if (typeof jwk.alg !== "string" || !family.includes(jwk.alg)) {
    throw new Error(
      `${name} declares alg ${String(jwk.alg)}, which does not fit its key type ${String(jwk.kty)}`,
    );
  }
  return [jwk.alg];
}

/** The union of what a key set's keys may verify (each key still checks only its own family). */
export function algorithmsForJwks(keys: PublicJwk[]): string[] {
  if (keys.length === 0) throw new Error("the JWKS has no keys: add at least one public key");
  return [...new Set(keys.flatMap(algorithmsForJwk))];
}
