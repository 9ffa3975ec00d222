// One bounded read of a pod container's log through the Kubernetes API (GET .../pods/NAME/log),
// without follow: the request ends by itself, so nothing stays open between reads.
import {
  HttpMethod,
  IsomorphicFetchHttpLibrary,
  RequestContext,
} from "@kubernetes/client-node/dist/gen/http/http.js";
import { KubeApiError } from "../runtime/api-error.ts";
import type { KubeClient } from "../runtime/index.ts";

export interface PodLogRead {
  namespace: string;
  pod: string;
  container: string;
  /** tailLines or sinceTime (from LogCursor), plus previous=true for the last terminated container. */
  query: Record<string, string>;
  limitBytes: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface PodLogChunk {
  /** Complete lines, each "<timestamp> <text>". A line cut by the byte limit is left out. */
  lines: string[];
  /** The byte limit cut the answer: more lines are waiting. */
  truncated: boolean;
}

const http = new IsomorphicFetchHttpLibrary();

export function podLogUrl(
  server: string,
  r: Pick<PodLogRead, "namespace" | "pod" | "container" | "query" | "limitBytes">,
): URL {
  const url = new URL(
    `${server}/api/v1/namespaces/${encodeURIComponent(r.namespace)}/pods/${encodeURIComponent(r.pod)}/log`,
  );
  url.searchParams.set("container", r.container);
  url.searchParams.set("timestamps", "true");
  url.searchParams.set("limitBytes", String(r.limitBytes));
  for (const [k, v] of Object.entries(r.query)) url.searchParams.set(k, v);
  return url;
}

/** Splits a log body into complete lines; an unterminated last line is dropped only when cut. */
export function splitLogBody(body: string, truncated: boolean): string[] {
  const lines = body.split("\n");
  const last = lines.pop() ?? "";
  if (last !== "" && !truncated) lines.push(last);
  return lines.filter((l) => l !== "");
}

export async function readPodLog(client: KubeClient, r: PodLogRead): Promise<PodLogChunk> {
  const url = podLogUrl(client.server, r);
  const ctx = new RequestContext(url.toString(), HttpMethod.GET);
  const timeout = AbortSignal.timeout(r.timeoutMs);
  ctx.setSignal(r.signal ? AbortSignal.any([timeout, r.signal]) : timeout);
  await client.kc.applySecurityAuthentication(ctx);
  const res = await http.send(ctx).toPromise();
  const bytes = await bodyBytes(res.body.stream() as unknown as AsyncIterable<Uint8Array> | null);
  const text = bytes.toString("utf8");
  if (res.httpStatusCode !== 200) {
    let reason = `HTTP${res.httpStatusCode}`;
    let message = text.slice(0, 300);
    try {
      const status = JSON.parse(text) as { reason?: string; message?: string };
      reason = status.reason || reason;
      message = status.message ?? message;
    } catch {}
    throw new KubeApiError(res.httpStatusCode, reason, message, "GET", url.pathname);
  }
  const truncated = bytes.length >= r.limitBytes;
  return { lines: splitLogBody(text, truncated), truncated };
}

// The body as bytes (the byte limit is counted in bytes; ResponseBody.binary() needs node-fetch).
async function bodyBytes(stream: AsyncIterable<Uint8Array> | null): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream ?? []) chunks.push(chunk);
  return Buffer.concat(chunks);
}
