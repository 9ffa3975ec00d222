// The one error type route code throws: an HTTP status, the messages of the `{errors: [...]}`
// body (each says what was wrong and what to do next) and any headers the status calls for.

export class HttpError extends Error {
  readonly status: number;
  readonly messages: string[];
  readonly headers: Record<string, string>;
  constructor(status: number, messages: string | string[], headers: Record<string, string> = {}) {
    const list = Array.isArray(messages) ? messages : [messages];
    super(list.join("; "));
    this.name = "HttpError";
    this.status = status;
    this.messages = list.length ? list : [`request failed with status ${status}`];
    this.headers = headers;
  }
}

export const badRequest = (m: string | string[]) => new HttpError(400, m);
export const forbidden = (m: string) => new HttpError(403, m);
export const notFound = (m: string) => new HttpError(404, m);
export const conflict = (m: string) => new HttpError(409, m);
export const unprocessable = (m: string | string[]) => new HttpError(422, m);
export const serviceUnavailable = (m: string, retryAfterSeconds = 1) =>
  new HttpError(503, m, { "retry-after": String(retryAfterSeconds) });

/** 401 with the RFC 6750 challenge a client needs to know it must (re)authenticate. */
export function unauthenticated(message: string): HttpError {
  const description = message.replace(/["\\]/g, "'");
  return new HttpError(401, message, {
    "www-authenticate": `Bearer realm="livepeer-operator", error="invalid_token", error_description="${description}"`,
  });
}
