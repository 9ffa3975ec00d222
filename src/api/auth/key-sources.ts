// Where token keys come from: a secret file or LIVEPEER_API_JWT_SECRET (HS256), a JWKS file
// (or one PEM public key) or a JWKS URL. Shared by `api` and `token` so both read the same secret.
import { createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import type { JSONWebKeySet, JWK } from "jose";
import type { TokenKeys } from "./verifier.ts";

export const SECRET_ENV = "LIVEPEER_API_JWT_SECRET";

export interface KeySourceOptions {
  jwtSecretFile?: string | undefined;
  jwksFile?: string | undefined;
  jwksUrl?: string | undefined;
  env?: NodeJS.ProcessEnv;
}

function readOrExplain(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new Error(`cannot read the ${what} ${file}: ${(err as Error).message}`);
  }
}

/** The HS256 secret's bytes; one trailing newline (as editors and `echo` leave) is not part of it. */
export function loadSecret(o: KeySourceOptions): Uint8Array | undefined {
  const env = o.env ?? process.env;
  const text = o.jwtSecretFile ? readOrExplain(o.jwtSecretFile, "JWT secret file") : env[SECRET_ENV];
  if (text === undefined || text === "") return undefined;
  return new TextEncoder().encode(text.replace(/\r?\n$/, ""));
}

export function parseJwks(text: string, source: string): JSONWebKeySet {
  if (text.trimStart().startsWith("-----BEGIN")) {
    try {
      return { keys: [createPublicKey(text).export({ format: "jwk" }) as JWK] };
    } catch (err) {
      throw new Error(`${source} is not a PEM public key: ${(err as Error).message}`);
    }
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error(`${source} is neither JSON (a JWKS or one JWK) nor a PEM public key`);
  }
  if (doc && typeof doc === "object" && Array.isArray((doc as { keys?: unknown }).keys))
    return doc as JSONWebKeySet;
  if (doc && typeof doc === "object" && "kty" in doc) return { keys: [doc as JWK] };
  throw new Error(`${source} must hold a JWKS ({"keys": [...]}) or a single JWK`);
}

export function loadTokenKeys(o: KeySourceOptions): TokenKeys {
  const secret = loadSecret(o);
  const jwks = o.jwksFile ? parseJwks(readOrExplain(o.jwksFile, "JWKS file"), o.jwksFile) : undefined;
  if (o.jwksUrl) {
    const url = new URL(o.jwksUrl);
    if (url.protocol !== "https:" && url.protocol !== "http:")
      throw new Error("--jwks-url must be an http(s) URL");
  }
  return { secret, jwks, jwksUrl: o.jwksUrl };
}
