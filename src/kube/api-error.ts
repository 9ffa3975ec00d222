// Errors from the API server, kept with the status code, reason and message it sent so logs and
// conditions can say exactly what went wrong.

export class KubeApiError extends Error {
  readonly status: number;
  /** The Status object's reason: NotFound, Conflict, AlreadyExists, Expired, Gone, Forbidden ... */
  readonly reason: string;
  readonly method: string;
  readonly path: string;
  constructor(status: number, reason: string, message: string, method: string, path: string) {
    super(`${method} ${path}: ${status} ${reason}: ${message}`);
    this.name = "KubeApiError";
    this.status = status;
    this.reason = reason;
    this.method = method;
    this.path = path;
  }
}

function statusOf(err: unknown): number | undefined {
  if (err instanceof KubeApiError) return err.status;
  // client-node's ApiException and Watch errors carry the code under other names.
  const e = err as { code?: unknown; statusCode?: unknown } | null;
  if (typeof e?.code === "number") return e.code;
  if (typeof e?.statusCode === "number") return e.statusCode;
  return undefined;
}

export const isNotFound = (err: unknown): boolean => statusOf(err) === 404;
export const isConflict = (err: unknown): boolean => statusOf(err) === 409;
/** 410 Gone: the resourceVersion is older than etcd keeps (compacted): list again. */
export const isGone = (err: unknown): boolean => statusOf(err) === 410;
/** 422 Invalid: the object fails validation. */
export const isInvalid = (err: unknown): boolean => statusOf(err) === 422;

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
