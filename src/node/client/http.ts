// One HTTP exchange with a node, bounded by a timeout, with every failure turned into a
// NodeEndpointError that names the endpoint, the node and the cause. Over node:http rather than
// fetch: the controller reads thousands of nodes, and fetch would load undici (20 MB of RSS) for
// what a plain request does.

import https from "node:https";
import type { z } from "zod";
import { http } from "../../process/builtin-http.ts";
import { type EndpointFailure, NodeEndpointError } from "./errors.ts";

export interface RequestOptions {
  /** Whole exchange, headers and body (default 5000 ms). */
  timeoutMs?: number;
  /** Cancels the read early (e.g. the reconcile was cancelled). */
  signal?: AbortSignal;
  /**
   * https only: accept the node's self-signed certificate (an orchestrator's service port serves
   * one, as gateways accept it).
   */
  selfSigned?: boolean;
}

export const DEFAULT_TIMEOUT_MS = 5000;

interface Exchange {
  method: "GET" | "POST";
  baseUrl: string;
  endpoint: string;
  form?: Record<string, string>;
}

/** Hints for an HTTP status that has a known cause on a Livepeer node. */
function statusHint(endpoint: string, status: number): string {
  if (status === 404 && endpoint === "/metrics") return " (the node serves /metrics only with -monitor)";
  if (status === 404) return " (not served on this port: check it is the right one of -cliAddr / -httpAddr)";
  return "";
}

export async function requestText(x: Exchange, options: RequestOptions = {}): Promise<string> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const fail = (reason: EndpointFailure, detail: string, extra: { status?: number; cause?: unknown } = {}) =>
    new NodeEndpointError({
      method: x.method,
      baseUrl: x.baseUrl,
      endpoint: x.endpoint,
      reason,
      detail,
      ...extra,
    });
  const url = new URL(x.endpoint, x.baseUrl.endsWith("/") ? x.baseUrl : `${x.baseUrl}/`);
  try {
    const { status, text } = await exchange(url, x.method, x.form, signal, options.selfSigned === true);
    if (status < 200 || status >= 300) {
      const body = text.trim().slice(0, 200);
      throw fail("http-status", `HTTP ${status}${body ? `: ${body}` : ""}${statusHint(x.endpoint, status)}`, {
        status,
      });
    }
    return text;
  } catch (err) {
    if (err instanceof NodeEndpointError) throw err;
    if (timeout.aborted) throw fail("timeout", `no complete answer within ${timeoutMs} ms`, { cause: err });
    if (options.signal?.aborted) throw fail("aborted", "the read was cancelled", { cause: err });
    const code = (err as { code?: string }).code;
    if (code === "ECONNREFUSED") {
      throw fail(
        "connection-refused",
        "connection refused: nothing listens there (is the node up, and bound to that address?)",
        {
          cause: err,
        },
      );
    }
    const detail = (err as Error).message;
    throw fail("unreachable", code && !detail.includes(code) ? `${code}: ${detail}` : detail, { cause: err });
  }
}

/** The status and whole body; rejects on transport errors and when `signal` aborts (body included). */
function exchange(
  url: URL,
  method: string,
  form: Record<string, string> | undefined,
  signal: AbortSignal,
  selfSigned = false,
): Promise<{ status: number; text: string }> {
  const body = form ? new URLSearchParams(form).toString() : undefined;
  const headers: Record<string, string> = body
    ? {
        "Content-Type": "application/x-www-form-urlencoded",
        "Content-Length": String(Buffer.byteLength(body)),
      }
    : {};
  return new Promise((resolve, reject) => {
    const transport = url.protocol === "https:" ? https : http;
    const tls = url.protocol === "https:" && selfSigned ? { rejectUnauthorized: false } : {};
    const req = transport.request(url, { method, headers, signal, ...tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("error", reject);
      // A body cut short (the node died, or the signal aborted) must not leave the read pending.
      res.on("close", () => {
        if (!res.complete) reject(signal.aborted ? signal.reason : new Error("the answer ended early"));
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** GET a JSON endpoint and validate it; missing and malformed fields are named. */
export async function getJson<S extends z.ZodType>(
  baseUrl: string,
  endpoint: string,
  schema: S,
  options: RequestOptions = {},
): Promise<z.output<S>> {
  const text = await requestText({ method: "GET", baseUrl, endpoint }, options);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new NodeEndpointError({
      baseUrl,
      endpoint,
      reason: "bad-json",
      detail: `the answer is not JSON (${(err as Error).message}): ${JSON.stringify(text.slice(0, 80))}`,
      cause: err,
    });
  }
  return validateBody(baseUrl, endpoint, schema, body);
}

/** Validates a parsed body; the first problem becomes a missing-field or invalid-field error. */
export function validateBody<S extends z.ZodType>(
  baseUrl: string,
  endpoint: string,
  schema: S,
  body: unknown,
  fieldPrefix = "",
): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = fieldPrefix + (issue.path.map(String).join(".") || "(body)");
  const missing = issue.path.length > 0 && valueAt(body, issue.path) === undefined;
  throw new NodeEndpointError({
    baseUrl,
    endpoint,
    reason: missing ? "missing-field" : "invalid-field",
    field,
    detail: missing ? `field ${field} is missing` : `field ${field} is invalid: ${issue.message}`,
  });
}

export function missingField(baseUrl: string, endpoint: string, field: string): NodeEndpointError {
  return new NodeEndpointError({
    baseUrl,
    endpoint,
    reason: "missing-field",
    field,
    detail: `field ${field} is missing`,
  });
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = body;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}
