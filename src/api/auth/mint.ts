// Mints HS256 tokens with the configured secret: for `livepeer-operator token`, the embedded
// default's dev token and tests. Production keys come from the identity provider instead.
import { SignJWT } from "jose";
import { MIN_SECRET_BYTES } from "./verifier.ts";

export interface MintOptions {
  secret: Uint8Array;
  sub: string;
  projectId?: string | undefined;
  /** Space-separated, e.g. "admin events:write". */
  scope?: string | undefined;
  ttlSeconds: number;
  issuer?: string | undefined;
  audience?: string | undefined;
}

export async function mintToken(o: MintOptions): Promise<string> {
  if (o.secret.byteLength < MIN_SECRET_BYTES) {
    throw new Error(
      `the JWT secret has ${o.secret.byteLength} bytes; HS256 needs at least ${MIN_SECRET_BYTES}`,
    );
  }
  if (!(o.ttlSeconds > 0)) throw new Error("the token TTL must be positive: tokens must expire");
  const claims: Record<string, string> = {};
  if (o.projectId) claims.projectId = o.projectId;
  if (o.scope?.trim()) claims.scope = o.scope.trim();
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(o.sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + Math.round(o.ttlSeconds));
  if (o.issuer) jwt.setIssuer(o.issuer);
  if (o.audience) jwt.setAudience(o.audience);
  return jwt.sign(o.secret);
}
