// The orchestrator's auth tokens, as core/orchestrator.go AuthToken makes them: a session id
// (core.RandomManifestID: 4 random bytes in hex) and an expiration 30 minutes ahead
// (authTokenValidPeriod), bound by an HMAC-SHA256 under a secret made at start, so only tokens
// this run of the node handed out in GetOrchestrator verify (EndTranscodingSession, /segment).
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { bigIntToBytes } from "../node/wire/messages.ts";

export const AUTH_TOKEN_VALID_MS = 30 * 60 * 1000;

export interface AuthToken {
  token: Buffer;
  sessionId: string;
  /** Unix seconds. */
  expiration: number;
}

export class AuthTokens {
  readonly #secret = randomBytes(32);

  issue(now = Date.now()): AuthToken {
    const sessionId = randomBytes(4).toString("hex");
    const expiration = Math.floor((now + AUTH_TOKEN_VALID_MS) / 1000);
    return { token: this.#mac(sessionId, expiration), sessionId, expiration };
  }

  /** The token's MAC matches its session id and expiration (an expired one still verifies). */
  verify(
    token: { token?: Uint8Array; sessionId?: string; expiration?: string | number } | undefined,
  ): boolean {
    if (!token?.token || typeof token.sessionId !== "string") return false;
    const expected = this.#mac(token.sessionId, Number(token.expiration ?? 0));
    return token.token.length === expected.length && timingSafeEqual(Buffer.from(token.token), expected);
  }

  // sessionID bytes, then the expiration as big.Int.Bytes() (minimal big-endian).
  #mac(sessionId: string, expiration: number): Buffer {
    return createHmac("sha256", this.#secret)
      .update(Buffer.concat([Buffer.from(sessionId, "utf8"), bigIntToBytes(BigInt(expiration))]))
      .digest();
  }
}
