// The segment call between a gateway and an orchestrator (server/segment_rpc.go): POST /segment on
// the orchestrator's service port with the segment as the body (Content-Type video/MP2T) and two
// headers, each base64 (standard alphabet) of a protobuf message:
//   Livepeer-Segment: SegData (manifestId, seq, hash = keccak256(body), duration in ms, the auth
//                     token from GetOrchestrator, the renditions in fullProfiles3)
//   Livepeer-Payment: Payment (sender; tickets on chain)
// The answer is 200 and a protobuf TranscodeResult (no Content-Type, as the node writes it) whose
// segments carry the URL of each rendition, or an error status with http.Error's plain text:
// 402 for a payment that does not decode, 403 for segment credentials (ErrorSegEncoding, invalid
// auth token, OrchestratorCapped...), 403 "Forbidden" for a body that does not match its hash.
import { getBytes, keccak256 } from "ethers";
import {
  decodeMessage,
  encodeMessage,
  type MessageInput,
  type PaymentMessage,
  type SegDataMessage,
} from "../node/wire/messages.ts";

export const SEGMENT_HEADER = "Livepeer-Segment";
export const PAYMENT_HEADER = "Livepeer-Payment";

export function encodeHeader<N extends "SegData" | "Payment">(name: N, value: MessageInput<N>): string {
  return encodeMessage(name, value).toString("base64");
}

/** The segment's hash as SegData carries it. */
export function segmentHash(body: Uint8Array): Buffer {
  return Buffer.from(getBytes(keccak256(body)));
}

// Go's base64.StdEncoding is strict: padding required, no stray characters.
const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export type Decoded<T> = { ok: T } | { error: string };

/** server/segment_rpc.go getPayment: a missing header is an empty payment. */
export function decodePayment(header: string | undefined): Decoded<PaymentMessage> {
  const text = header ?? "";
  if (!STD_BASE64.test(text)) return { error: "base64 decode error: illegal base64 data at input byte 0" };
  try {
    return { ok: decodeMessage("Payment", Buffer.from(text, "base64")) };
  } catch (err) {
    return { error: `protobuf unmarshal error: ${(err as Error).message}` };
  }
}

/** verifySegCreds' decoding: bad base64 is ErrorSegEncoding, bad protobuf the decoder's error. */
export function decodeSegData(header: string | undefined): Decoded<SegDataMessage> {
  const text = header ?? "";
  if (!STD_BASE64.test(text)) return { error: "ErrorSegEncoding" };
  try {
    return { ok: decodeMessage("SegData", Buffer.from(text, "base64")) };
  } catch (err) {
    return { error: `proto: ${(err as Error).message}` };
  }
}
