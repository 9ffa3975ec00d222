// Verifies `Authorization: Bearer <JWT>` tokens with jose: HS256 against a shared secret and/or
// asymmetric algorithms against public keys (a JWKS document or URL), each pinned to its own
// algorithms; issuer and audience when configured; `exp` required. Verified tokens are cached
// until they expire (at most a minute) so a busy client does not pay a signature check per call.
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
  jwtVerify,
} from "jose";
import { unauthenticated } from "../errors/http-error.ts";
import { ASYMMETRIC_ALGORITHMS, algorithmsForJwks, HMAC_ALGORITHMS, type PublicJwk } from "./algorithms.ts";
import { type Principal, principalFromClaims } from "./claims.ts";
import { tokenRejection } from "./failure.ts";

export const MIN_SECRET_BYTES = 32;
/** What an Authorization header must be (bearerToken reads it by hand, the same way). */
export const BEARER = /^Bearer[ ]+([^ ]+)[ ]*$/i;
const BEARER_WORD = "bearer";

/**
 * The token of an Authorization header as BEARER reads it ("Bearer", any case, one or more
 * spaces, the token, spaces): undefined when it is not that. By hand, as the auth webhook reads
 * one per payment.
 */
export function bearerToken(header: string): string | undefined {
  const n = header.length;
  if (n < 8 || header.charCodeAt(6) !== 32) return undefined;
  // ASCII letters only: x | 0x20 is the lower case of a letter, and no other character's.
  for (let i = 0; i < 6; i++)
    if ((header.charCodeAt(i) | 0x20) !== BEARER_WORD.charCodeAt(i)) return undefined;
  let from = 7;
  while (from < n && header.charCodeAt(from) === 32) from++;
  if (from === n) return undefined;
  const to = header.indexOf(" ", from);
  if (to === -1) return header.slice(from);
  for (let i = to + 1; i < n; i++) if (header.charCodeAt(i) !== 32) return undefined;
  return header.slice(from, to);
}

export interface TokenKeys {
  /** HS256 shared secret (at least 32 bytes). */
  secret?: Uint8Array | undefined;
  /** Public keys, as a JWKS document. */
  jwks?: JSONWebKeySet | undefined;
  /** Where to fetch a JWKS (cached and refreshed by jose). */
  jwksUrl?: string | undefined;
}

export interface VerifierOptions extends TokenKeys {
  issuer?: string | undefined;
  audience?: string | string[] | undefined;
  clockToleranceSeconds?: number;
  /** How long a verified token is trusted without re-checking (capped by its exp). */
  cacheMs?: number;
  cacheSize?: number;
}

interface Cached {
  principal: Principal;
  until: number;
}

export class TokenVerifier {
  readonly #opts: VerifierOptions;
  readonly #secret: Uint8Array | undefined;
  readonly #publicKeys: { keys: JWTVerifyGetKey; algorithms: string[] } | undefined;
  readonly #cache = new Map<string, Cached>();

  constructor(opts: VerifierOptions) {
    this.#opts = opts;
    if (opts.secret && opts.secret.byteLength < MIN_SECRET_BYTES) {
      throw new Error(
        `the JWT secret has ${opts.secret.byteLength} bytes; HS256 needs at least ${MIN_SECRET_BYTES} (e.g. openssl rand -base64 48)`,
      );
    }
    this.#secret = opts.secret;
    if (opts.jwks && opts.jwksUrl) throw new Error("give either a JWKS file or a JWKS URL, not both");
    if (opts.jwks) {
      this.#publicKeys = {
        keys: createLocalJWKSet(opts.jwks),
        algorithms: algorithmsForJwks(opts.jwks.keys as PublicJwk[]),
      };
    } else if (opts.jwksUrl) {
      this.#publicKeys = {
        keys: createRemoteJWKSet(new URL(opts.jwksUrl)),
        algorithms: ASYMMETRIC_ALGORITHMS,
      };
    }
    if (!this.#secret && !this.#publicKeys) {
      throw new Error(
        "no token keys configured: pass --jwt-secret-file (or set LIVEPEER_API_JWT_SECRET), --jwks-file or --jwks-url",
      );
    }
  }

  /** The caller behind an Authorization header value; throws an HttpError (401, or 503). */
  async verifyHeader(header: string | undefined): Promise<Principal> {
    if (!header) {
      throw unauthenticated("missing Authorization header: send 'Authorization: Bearer <token>'");
    }
    const token = bearerToken(header);
    if (token === undefined) throw unauthenticated("the Authorization header must be 'Bearer <token>'");
    return this.verify(token);
  }

  async verify(token: string): Promise<Principal> {
    return this.#known(token) ?? (await this.#verifyUncached(token));
  }

  /** The caller behind a header whose token was verified and is still cached; else undefined (verify it). */
  knownHeader(header: string | undefined): Principal | undefined {
    if (!header) return undefined;
    const token = bearerToken(header);
    return token === undefined ? undefined : this.#known(token);
  }

  #known(token: string): Principal | undefined {
    const hit = this.#cache.get(token);
    if (!hit) return undefined;
    if (hit.until > Date.now()) return hit.principal;
    this.#cache.delete(token);
    return undefined;
  }

  async #verifyUncached(token: string): Promise<Principal> {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw unauthenticated("token is not a valid signed JWT (header.payload.signature)");
    }
    if (!alg || alg.toLowerCase() === "none") throw unauthenticated("unsigned tokens (alg none) are refused");
    const common = {
      issuer: this.#opts.issuer,
      audience: this.#opts.audience,
      clockTolerance: this.#opts.clockToleranceSeconds ?? 5,
      requiredClaims: ["exp", "sub"],
    };
    let payload: Record<string, unknown>;
    try {
      if (this.#secret && (HMAC_ALGORITHMS as readonly string[]).includes(alg)) {
        ({ payload } = await jwtVerify(token, this.#secret, { ...common, algorithms: [...HMAC_ALGORITHMS] }));
      } else if (this.#publicKeys?.algorithms.includes(alg)) {
        ({ payload } = await jwtVerify(token, this.#publicKeys.keys, {
          ...common,
          algorithms: this.#publicKeys.algorithms,
        }));
      } else {
        throw unauthenticated(`token algorithm ${alg.slice(0, 20)} is not accepted by this server`);
      }
    } catch (err) {
      throw tokenRejection(err, this.#opts);
    }
    const principal = principalFromClaims(payload);
    this.#remember(token, principal, typeof payload.exp === "number" ? payload.exp * 1000 : 0);
    return principal;
  }

  #remember(token: string, principal: Principal, expiresAtMs: number): void {
    const until = Math.min(expiresAtMs, Date.now() + (this.#opts.cacheMs ?? 60_000));
    if (until <= Date.now()) return;
    const max = this.#opts.cacheSize ?? 10_000;
    if (this.#cache.size >= max) {
      // Oldest first (Map keeps insertion order): a bounded cache, not a memory leak.
      const oldest = this.#cache.keys().next();
      if (!oldest.done) this.#cache.delete(oldest.value);
    }
    this.#cache.set(token, { principal, until });
  }
}
