// Maps anything a request can throw to the status and `{errors: [...]}` body the client sees.
// fastify's own errors (body parsing, limits, routing) get messages that say what to send
// instead; anything unexpected is a 500 that names the request id and never the internals.
import { HttpError } from "./http-error.ts";

export interface ErrorResponse {
  status: number;
  body: { errors: string[] };
  headers: Record<string, string>;
  /** Unexpected: log it with its stack (the client only sees the request id). */
  internal: boolean;
}

interface FastifyLikeError {
  code?: unknown;
  statusCode?: unknown;
  message?: unknown;
}

const fastifyMessages: Record<string, (e: FastifyLikeError, ctx: ErrorContext) => [number, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => [400, "the request body is not valid JSON: fix its syntax"],
  FST_ERR_CTP_EMPTY_JSON_BODY: () => [
    400,
    "the request body is empty but Content-Type is application/json: send a JSON object",
  ],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (_e, ctx) => [
    415,
    `unsupported Content-Type${ctx.contentType ? ` '${clip(ctx.contentType)}'` : " (none sent)"}: send the body as application/json`,
  ],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => [400, "Content-Length does not match the body that was sent"],
  FST_ERR_CTP_BODY_TOO_LARGE: (_e, ctx) => [
    413,
    `the request body is larger than the ${ctx.bodyLimit ?? "configured"}-byte limit: send a smaller body`,
  ],
  FST_ERR_CTP_INVALID_TYPE: () => [415, "the Content-Type header is not valid: send application/json"],
  FST_ERR_BAD_URL: () => [400, "the request path is not a valid URL: percent-encode it"],
  FST_ERR_ASYNC_CONSTRAINT: () => [400, "the request could not be routed"],
  FST_ERR_MAX_PARAM_LENGTH: () => [
    414,
    "a path segment is too long: webhook ids have at most 253 characters",
  ],
};

export interface ErrorContext {
  requestId?: string;
  contentType?: string | undefined;
  bodyLimit?: number;
}

function clip(s: string, n = 100): string {
  return s.length > n ? `${s.slice(0, n)}...` : s;
}

export function errorResponse(err: unknown, ctx: ErrorContext = {}): ErrorResponse {
  if (err instanceof HttpError) {
    return { status: err.status, body: { errors: err.messages }, headers: err.headers, internal: false };
  }
  const e = (typeof err === "object" && err !== null ? err : {}) as FastifyLikeError;
  const code = typeof e.code === "string" ? e.code : undefined;
  const mapped = code ? fastifyMessages[code] : undefined;
  if (mapped) {
    const [status, message] = mapped(e, ctx);
    return { status, body: { errors: [message] }, headers: {}, internal: false };
  }
  const status = typeof e.statusCode === "number" ? e.statusCode : 500;
  // Other client errors fastify raised while parsing (bad JSON from a custom parser,
  // prototype poisoning): their messages describe the request, not our internals.
  if (status >= 400 && status < 500) {
    const message = typeof e.message === "string" && e.message ? e.message : `request rejected (${status})`;
    return { status, body: { errors: [clip(message, 300)] }, headers: {}, internal: false };
  }
  const ref = ctx.requestId ? ` (request id ${ctx.requestId})` : "";
  return {
    status: 500,
    body: { errors: [`internal error${ref}: the API server's log has the details; retry later`] },
    headers: {},
    internal: true,
  };
}
