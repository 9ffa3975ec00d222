// The bearer-token check every API route runs first (onRequest, before the body is read): the
// verified caller lands on `request.principal`.
import type { FastifyRequest } from "fastify";
import type { Principal } from "./claims.ts";
import type { TokenVerifier } from "./verifier.ts";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export function authenticate(verifier: TokenVerifier) {
  return async (request: FastifyRequest): Promise<void> => {
    request.principal = await verifier.verifyHeader(request.headers.authorization);
  };
}

/** The caller of an authenticated route (the hook guarantees it is set). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error("route is missing the authentication hook");
  return request.principal;
}
