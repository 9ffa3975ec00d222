// Whether a request carries body bytes, from its headers alone (RFC 9112 section 6.3: a request
// with neither Transfer-Encoding nor a non-zero Content-Length has no body).
import type { IncomingHttpHeaders } from "node:http";

export function hasBodyBytes(headers: IncomingHttpHeaders): boolean {
  if (headers["transfer-encoding"] !== undefined) return true;
  const length = headers["content-length"];
  return length !== undefined && length !== "0";
}
