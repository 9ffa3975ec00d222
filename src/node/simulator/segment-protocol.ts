// How a simulated gateway hands a segment to a simulated orchestrator. The real node does this on
// the orchestrator's service port over TLS: GetOrchestrator / EndTranscodingSession are gRPC, and
// POST /segment carries protobuf in base64 headers (Livepeer-Segment: SegData, Livepeer-Payment:
// Payment) and answers a protobuf TranscodeResult (server/segment_rpc.go). The simulators keep the
// same endpoint, headers, status codes and error texts over plain HTTP with JSON in place of
// protobuf:
//   GET  /getOrchestratorInfo[?address=<gateway eth address>]   -> JSON (price_info, auth_token)
//   POST /segment  Livepeer-Segment: base64(JSON SegmentCreds)   -> 200 JSON TranscodeResult, or
//                  403 "OrchestratorCapped" at the session limit (as the node: http.Error, 403)
//   POST /endTranscodingSession  JSON {AuthToken: {SessionId}}  -> 200 (frees the session at once)

export const SEGMENT_HEADER = "Livepeer-Segment";
export const PAYMENT_HEADER = "Livepeer-Payment";

export interface SegmentCreds {
  ManifestID: string;
  Seq: number;
  /** Milliseconds. */
  Duration: number;
  /** From the orchestrator's getOrchestratorInfo answer: one session per stream and orchestrator. */
  AuthToken: { SessionId: string };
  /** Rendition names (-transcodingOptions presets). */
  Profiles: string[];
}

export interface PaymentCreds {
  /** The gateway's eth address (-ethAcctAddr), or the zero address off chain. */
  Sender: string;
}

export interface TranscodedSegment {
  Profile: string;
  Pixels: number;
  /** base64 of the rendition's bytes (the real node returns URLs to download them from). */
  Data: string;
}

export type TranscodeResult =
  | { Seq: number; Result: { Data: { Segments: TranscodedSegment[] } } }
  | { Seq: number; Result: { Error: string } };

export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

export function encodeHeader(value: SegmentCreds | PaymentCreds): string {
  return Buffer.from(JSON.stringify(value)).toString("base64");
}

/** undefined when the header is missing or not base64 JSON of the right shape. */
export function decodeSegmentCreds(header: string | undefined): SegmentCreds | undefined {
  const v = decode(header) as Partial<SegmentCreds> | undefined;
  if (
    !v ||
    typeof v.ManifestID !== "string" ||
    typeof v.Seq !== "number" ||
    typeof v.AuthToken?.SessionId !== "string" ||
    !Array.isArray(v.Profiles)
  ) {
    return undefined;
  }
  return {
    ManifestID: v.ManifestID,
    Seq: v.Seq,
    Duration: Number(v.Duration) || 0,
    AuthToken: v.AuthToken,
    Profiles: v.Profiles.map(String),
  };
}

export function decodePayment(header: string | undefined): PaymentCreds {
  const v = decode(header) as Partial<PaymentCreds> | undefined;
  return { Sender: typeof v?.Sender === "string" ? v.Sender : ZERO_ADDRESS };
}

function decode(header: string | undefined): unknown {
  if (!header) return undefined;
  try {
    return JSON.parse(Buffer.from(header, "base64").toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}
