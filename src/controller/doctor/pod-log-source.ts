// The node doctor's one need of the cluster: read a node pod container's log from a point on. A
// port, so the doctor runs over the Kubernetes API (pod-log.ts) and is tested with lines in memory.

export interface PodLogRead {
  namespace: string;
  pod: string;
  container: string;
  /**
   * The last `tailLines` lines (a log not read before), or every line stamped at or after
   * `since` (whole seconds: the Kubernetes API's precision; LogCursor drops what was seen).
   */
  from: { tailLines: number } | { since: Date };
  /** The last terminated container's log instead of the running one's (after a restart). */
  previous?: boolean;
  limitBytes: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface PodLogChunk {
  /** Complete lines, each "<RFC 3339 timestamp> <text>". A line cut by the byte limit is left out. */
  lines: string[];
  /** The byte limit cut the answer: more lines are waiting. */
  truncated: boolean;
}

export interface PodLogSource {
  /**
   * One bounded read that ends by itself. Undefined when there is no such log (the pod is gone,
   * or has no previous container); any other failure throws.
   */
  read(r: PodLogRead): Promise<PodLogChunk | undefined>;
}
