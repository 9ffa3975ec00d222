// Every non-2xx answer is `{errors: [...]}`: route errors, fastify's parsing and limit errors,
// unknown routes (404) and known paths with another method (405, with Allow).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { errorResponse } from "./error-response.ts";

export interface ErrorHandlingOptions {
  bodyLimit: number;
  /** For 405: which methods a path that exists accepts (undefined when the path is unknown). */
  allowedMethods(path: string): string[] | undefined;
}

/** Errors the router raises before any route runs (bad URL encoding, overlong segments). */
export function frameworkErrorHandler(bodyLimit: number) {
  return (err: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    const res = errorResponse(err, { requestId: request.id, bodyLimit });
    void reply.code(res.status).headers(res.headers).send(res.body);
  };
}

export function installErrorHandling(app: FastifyInstance, opts: ErrorHandlingOptions): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const res = errorResponse(err, {
      requestId: request.id,
      contentType: request.headers["content-type"],
      bodyLimit: opts.bodyLimit,
    });
    if (res.internal) request.log.error({ err }, "request failed unexpectedly");
    void reply.code(res.status).headers(res.headers).send(res.body);
  });

  // Unknown paths and methods a path does not take are answered before the body is read, so a
  // 405 (or 404) never turns into a body or Content-Type error first.
  app.addHook("onRequest", (request, reply, done) => {
    if (request.is404) unrouted(request, reply, opts);
    else done();
  });
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => unrouted(request, reply, opts));
}

function unrouted(request: FastifyRequest, reply: FastifyReply, opts: ErrorHandlingOptions): FastifyReply {
  const path = request.url.split("?")[0] ?? "";
  const shown = path.length > 200 ? `${path.slice(0, 200)}...` : path;
  const allowed = opts.allowedMethods(path);
  if (allowed && !allowed.includes(request.method)) {
    return reply
      .code(405)
      .header("allow", allowed.join(", "))
      .send({ errors: [`${request.method} is not supported on ${shown}: use ${allowed.join(", ")}`] });
  }
  return reply
    .code(404)
    .send({ errors: [`no route ${request.method} ${shown}: see the API's openapi.json`] });
}
