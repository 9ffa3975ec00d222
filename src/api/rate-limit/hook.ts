// Applies the per-token budget after authentication: 429 with Retry-After when it is spent.
import type { FastifyReply, FastifyRequest } from "fastify";
import { HttpError } from "../errors/http-error.ts";
import type { RateLimiter } from "./token-bucket.ts";

export function limitRate(limiter: RateLimiter) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    // The token itself is the key: one budget per credential, as clients are told.
    const key = request.headers.authorization ?? "";
    const d = limiter.take(key);
    void reply.header("x-ratelimit-limit", String(limiter.perMinute));
    void reply.header("x-ratelimit-remaining", String(d.remaining));
    if (!d.allowed) {
      throw new HttpError(
        429,
        `rate limit of ${limiter.perMinute} requests per minute for this token exceeded: retry after ${d.retryAfterSeconds} s`,
        { "retry-after": String(d.retryAfterSeconds) },
      );
    }
  };
}
