// gRPC over HTTP/2, the parts a unary call needs (grpc/grpc PROTOCOL-HTTP2.md): each message is a
// 5-byte prefix (compressed flag, big-endian length) and the protobuf bytes; the call's outcome is
// the `grpc-status` trailer (or header, for a trailers-only answer) with `grpc-message`
// percent-encoded. The node serves net.Orchestrator this way on its service port.

export const GRPC_CONTENT_TYPE = "application/grpc";

/** The service the node registers on its service port (package net, service Orchestrator). */
export const ORCHESTRATOR_SERVICE = "net.Orchestrator";

export type OrchestratorMethod = "GetOrchestrator" | "EndTranscodingSession" | "Ping";

/** gRPC status codes by name (the ones this project meets). */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

const STATUS_NAMES = Object.fromEntries(Object.entries(GrpcStatus).map(([k, v]) => [v, k]));

export function grpcStatusName(code: number): string {
  return STATUS_NAMES[code] ?? `code ${code}`;
}

export function methodPath(method: OrchestratorMethod): string {
  return `/${ORCHESTRATOR_SERVICE}/${method}`;
}

/** One length-prefixed, uncompressed message. */
export function frameMessage(message: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt8(0, 0);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/**
 * The one message of a unary body; throws on a compressed message (no compression is negotiated),
 * a truncated frame, or anything but exactly one message.
 */
export function unframeMessage(body: Buffer): Buffer {
  if (body.length < 5) throw new Error(`a gRPC message needs a 5-byte prefix, got ${body.length} bytes`);
  if (body.readUInt8(0) !== 0)
    throw new Error("a compressed gRPC message, but no compression was negotiated");
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) {
    throw new Error(`a gRPC frame announces ${length} bytes but ${body.length - 5} follow`);
  }
  return body.subarray(5);
}

/** grpc-message is percent-encoded (only bytes outside 0x20-0x7E and '%'). */
export function encodeGrpcMessage(text: string): string {
  return Array.from(Buffer.from(text, "utf8"))
    .map((b) =>
      b < 0x20 || b > 0x7e || b === 0x25
        ? `%${b.toString(16).toUpperCase().padStart(2, "0")}`
        : String.fromCharCode(b),
    )
    .join("");
}

export function decodeGrpcMessage(text: string | undefined): string {
  if (!text) return "";
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
