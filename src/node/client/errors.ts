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
  | "invalid-field"
  /** A gRPC call answered with a status other than OK (`grpcCode` says which). */
  | "grpc-status"
  /** The answer is not the protobuf message the call returns. */
  | "bad-protobuf"
  /** The node presented another certificate than the one pinned for this run of it. */
  | "tls-certificate";

export class NodeEndpointError extends Error {
  readonly baseUrl: string;
  readonly endpoint: string;
  readonly reason: EndpointFailure;
  readonly status: number | undefined;
  /** The response field at fault, for missing-field and invalid-field. */
  readonly field: string | undefined;
  /** The gRPC status code, for grpc-status. */
  readonly grpcCode: number | undefined;

  constructor(init: {
    method?: string;
    baseUrl: string;
    endpoint: string;
    reason: EndpointFailure;
    detail: string;
    status?: number;
    field?: string;
    grpcCode?: number;
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
    this.grpcCode = init.grpcCode;
  }
}
