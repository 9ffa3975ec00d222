// Kubernetes API failures as the API's clients should see them. Ours to fix (RBAC, a missing
// CRD) stay 500s whose details go to the log; the cluster being briefly unavailable is a 503
// the client may retry; the cluster refusing the object is the client's 422.
import { KubeApiError } from "../../kube/api-error.ts";
import { HttpError, serviceUnavailable, unprocessable } from "../errors/http-error.ts";

export function translateKubeError(err: unknown): unknown {
  if (err instanceof HttpError) return err;
  if (err instanceof KubeApiError) {
    if (err.status === 422) {
      return unprocessable(
        `the cluster refused the webhook: ${err.message.replace(/^.*?: 422 \w+: /, "").slice(0, 500)}`,
      );
    }
    if (err.status === 429 || err.status >= 500) {
      return serviceUnavailable("the Kubernetes API server is overloaded or unavailable: retry shortly", 2);
    }
    return err; // 401/403/404 of the API server itself: a deployment problem, logged as a 500
  }
  // Transport failures (connection refused or reset, a timeout, an HTTP/2 stream or session torn
  // down under load) surface as plain errors: the request may be retried.
  const e = err as { name?: unknown; cause?: unknown; code?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  if (
    e &&
    (e.name === "TimeoutError" ||
      e.name === "AbortError" ||
      e.cause !== undefined ||
      e.name === "TypeError" ||
      code.startsWith("ERR_HTTP2_") ||
      code === "ERR_STREAM_PREMATURE_CLOSE" ||
      /^E(CONNRESET|CONNREFUSED|PIPE|TIMEDOUT|HOSTUNREACH|NETUNREACH)$/.test(code))
  ) {
    return serviceUnavailable("the Kubernetes API server did not answer: retry shortly", 2);
  }
  return err;
}
