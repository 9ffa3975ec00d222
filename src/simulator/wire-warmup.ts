// protobufjs compiles each message type's encoder and decoder on first use, and ethers' keccak256
// is JIT-compiled JavaScript: together the first segment a process handles took ~100 ms longer
// than the next ones (a race the RTMP playlist watcher of push-stream lost). A node that speaks
// the protocol warms them once while it starts, so its first segment is as fast as the others.
import { decodeMessage, encodeMessage, type MessageName } from "../node/wire/messages.ts";
import { segmentHash } from "./segment-protocol.ts";

const TYPES: MessageName[] = [
  "OrchestratorRequest",
  "OrchestratorInfo",
  "EndTranscodingSessionRequest",
  "EndTranscodingSessionResponse",
  "PingPong",
  "SegData",
  "Payment",
  "TranscodeResult",
];

let warmed = false;

export function warmWire(): void {
  if (warmed) return;
  warmed = true;
  for (const type of TYPES) decodeMessage(type, encodeMessage(type, {}));
  segmentHash(Buffer.alloc(16 * 1024));
}
