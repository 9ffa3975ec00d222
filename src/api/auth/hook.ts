// The bearer-token check every API route runs first (onRequest, before the body is read): the
// verified caller lands on `request.principal`.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Principal } from "./claims.ts";
import type { TokenVerifier } from "./verifier.ts";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export function authenticate(verifier: TokenVerifier) {
  // Callback-style: a token verified before (the usual case) is answered without a promise.
  return (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
    const known = verifier.knownHeader(request.headers.authorization);
    if (known) {
      request.principal = known;
      done();
      return;
    }
    verifier.verifyHeader(request.headers.authorization).then(
      (principal) => {
        request.principal = principal;
        done();
      },
      (err: Error) => done(err),
    );
  };
}

/** The caller of an authenticated route (the hook guarantees it is set). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error("route is missing the authentication hook");
  return request.principal;
}
