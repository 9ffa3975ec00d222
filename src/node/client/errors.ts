// A failed read of one node endpoint, saying which endpoint of which node and why, with the next
// step where there is an obvious one.
export type EndpointFailure =
  | "timeout"
  | "aborted"
  | "connection-refused"
  | "unreachable"
  | "http-status"
  | "bad-json"
  | "bad-metrics"
  | "missing-field"
  | "invalid-field";

export class NodeEndpointError extends Error {
  readonly baseUrl: string;
  readonly endpoint: string;
  readonly reason: EndpointFailure;
  readonly status: number | undefined;
  /** The response field at fault, for missing-field and invalid-field. */
  readonly field: string | undefined;

  constructor(init: {
    method?: string;
    baseUrl: string;
    endpoint: string;
    reason: EndpointFailure;
    detail: string;
    status?: number;
    field?: string;
    cause?: unknown;
  }) {
    super(`${init.method ?? "GET"} ${init.endpoint} of ${init.baseUrl} failed: ${init.detail}`, {
      cause: init.cause,
    });
    this.name = "NodeEndpointError";
    this.baseUrl = init.baseUrl;
    this.endpoint = init.endpoint;
    this.reason = init.reason;
    this.status = init.status;
    this.field = init.field;
  }
}
