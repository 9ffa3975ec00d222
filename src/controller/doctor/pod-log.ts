// One bounded read of a pod container's log through the Kubernetes API (GET .../pods/NAME/log),
// without follow: the request ends by itself, so nothing stays open between reads.
import { KubeApiError } from "../../kube/api-error.ts";
import { bodyBytes, type KubeClient } from "../../kube/index.ts";

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

/** The log request: path and query (no follow, so the answer ends by itself). */
export function podLogRequest(
  r: Pick<PodLogRead, "namespace" | "pod" | "container" | "query" | "limitBytes">,
): { path: string; query: Record<string, string> } {
  return {
    path: `/api/v1/namespaces/${encodeURIComponent(r.namespace)}/pods/${encodeURIComponent(r.pod)}/log`,
    query: { container: r.container, timestamps: "true", limitBytes: String(r.limitBytes), ...r.query },
  };
}

/** Splits a log body into complete lines; an unterminated last line is dropped only when cut. */
export function splitLogBody(body: string, truncated: boolean): string[] {
  const lines = body.split("\n");
  const last = lines.pop() ?? "";
  if (last !== "" && !truncated) lines.push(last);
  return lines.filter((l) => l !== "");
}

export async function readPodLog(client: KubeClient, r: PodLogRead): Promise<PodLogChunk> {
  const { path, query } = podLogRequest(r);
  const res = await client.send(
    "GET",
    path,
    { query, ...(r.signal ? { signal: r.signal } : {}) },
    r.timeoutMs,
  );
  const bytes = await bodyBytes(res.body);
  const text = bytes.toString("utf8");
  if (res.status !== 200) {
    let reason = `HTTP${res.status}`;
    let message = text.slice(0, 300);
    try {
      const status = JSON.parse(text) as { reason?: string; message?: string };
      reason = status.reason || reason;
      message = status.message ?? message;
    } catch {}
    throw new KubeApiError(res.status, reason, message, "GET", path);
  }
  const truncated = bytes.length >= r.limitBytes;
  return { lines: splitLogBody(text, truncated), truncated };
}
