// Node pods' logs through the Kubernetes API (GET .../pods/NAME/log): one bounded read, without
// follow, so the request ends by itself and nothing stays open between reads.
import { KubeApiError } from "../../kube/api-error.ts";
import { bodyBytes, type KubeClient } from "../../kube/index.ts";
import type { PodLogChunk, PodLogRead, PodLogSource } from "./pod-log-source.ts";

/** The log request: path and query (no follow, so the answer ends by itself). */
export function podLogRequest(
  r: Pick<PodLogRead, "namespace" | "pod" | "container" | "from" | "previous" | "limitBytes">,
): { path: string; query: Record<string, string> } {
  const from: Record<string, string> =
    "tailLines" in r.from
      ? { tailLines: String(r.from.tailLines) }
      : { sinceTime: r.from.since.toISOString().replace(/\.\d+Z$/, "Z") };
  return {
    path: `/api/v1/namespaces/${encodeURIComponent(r.namespace)}/pods/${encodeURIComponent(r.pod)}/log`,
    query: {
      container: r.container,
      timestamps: "true",
      limitBytes: String(r.limitBytes),
      ...from,
      ...(r.previous ? { previous: "true" } : {}),
    },
  };
}

/** Splits a log body into complete lines; an unterminated last line is dropped only when cut. */
export function splitLogBody(body: string, truncated: boolean): string[] {
  const lines = body.split("\n");
  const last = lines.pop() ?? "";
  if (last !== "" && !truncated) lines.push(last);
  return lines.filter((l) => l !== "");
}

export class KubePodLogs implements PodLogSource {
  readonly #client: KubeClient;

  constructor(client: KubeClient) {
    this.#client = client;
  }

  async read(r: PodLogRead): Promise<PodLogChunk | undefined> {
    const { path, query } = podLogRequest(r);
    const res = await this.#client.send(
      "GET",
      path,
      { query, ...(r.signal ? { signal: r.signal } : {}) },
      r.timeoutMs,
    );
    const bytes = await bodyBytes(res.body);
    const text = bytes.toString("utf8");
    if (res.status === 404) return undefined;
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
}
