// The node's protobuf messages, from go-livepeer's own lp_rpc.proto (kept beside this file),
// loaded once with protobufjs's reflection: no generated code to keep in step. Decoded messages
// are plain objects with camelCase names (`priceInfo`, `authToken.sessionId`), int64 as decimal
// strings and bytes as Buffers, so a price never loses precision and a caller never sees a Long.
import path from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

// The .proto stays in the source tree (also when running from dist/, which tsc fills with .js only):
// src/node/wire and dist/node/wire are both three levels below the package root.
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const PROTO_PATH = path.join(packageRoot, "src", "node", "wire", "lp_rpc.proto");

const root = protobuf.loadSync(PROTO_PATH);

export interface PriceInfoMessage {
  /** int64 as a decimal string. */
  pricePerUnit: string;
  pixelsPerUnit: string;
  capability: number;
  constraint: string;
}

export interface ModelConstraintMessage {
  warm: boolean;
  capacity: number;
  runnerVersion: string;
  capacityInUse: number;
}

export interface CapabilitiesMessage {
  bitstring: string[];
  mandatories: string[];
  capacities: Record<string, number>;
  version: string;
  constraints?: {
    minVersion: string;
    PerCapability: Record<string, { models: Record<string, ModelConstraintMessage> }>;
  };
}

export interface TicketParamsMessage {
  recipient: Buffer;
  faceValue: Buffer;
  winProb: Buffer;
  recipientRandHash: Buffer;
  seed: Buffer;
  expirationBlock: Buffer;
  expirationParams?: { creationRound: string; creationRoundBlockHash: Buffer };
}

export interface AuthTokenMessage {
  token: Buffer;
  sessionId: string;
  expiration: string;
}

export interface GpuComputeInfoMessage {
  id: string;
  name: string;
  major: number;
  minor: number;
  memoryFree: string;
  memoryTotal: string;
}

export interface HardwareInformationMessage {
  pipeline: string;
  modelId: string;
  gpuInfo: Record<string, GpuComputeInfoMessage>;
}

export interface OrchestratorInfoMessage {
  transcoder: string;
  ticketParams?: TicketParamsMessage;
  priceInfo?: PriceInfoMessage;
  address: Buffer;
  capabilities?: CapabilitiesMessage;
  authToken?: AuthTokenMessage;
  hardware: HardwareInformationMessage[];
  capabilitiesPrices: PriceInfoMessage[];
  nodes: string[];
}

export interface OrchestratorRequestMessage {
  address: Buffer;
  sig: Buffer;
  capabilities?: CapabilitiesMessage;
  ignoreCapacityCheck: boolean;
}

export interface SegDataMessage {
  manifestId: Buffer;
  seq: string;
  hash: Buffer;
  /** The legacy fixed-size profile encoding; fullProfiles3 carries the profiles. */
  profiles: Buffer;
  sig: Buffer;
  /** Milliseconds. */
  duration: number;
  capabilities?: CapabilitiesMessage;
  authToken?: AuthTokenMessage;
  fullProfiles3: VideoProfileMessage[];
  segmentParameters?: { from: string; to: string };
  ForceSessionReinit: boolean;
}

export interface VideoProfileMessage {
  name: string;
  width: number;
  height: number;
  bitrate: number;
  fps: number;
  fpsDen: number;
  gop: number;
}

export interface PaymentMessage {
  ticketParams?: TicketParamsMessage;
  sender: Buffer;
  expirationParams?: { creationRound: string; creationRoundBlockHash: Buffer };
  ticketSenderParams: { senderNonce: number; sig: Buffer }[];
  expectedPrice?: PriceInfoMessage;
}

export interface TranscodeResultMessage {
  seq: string;
  error?: string;
  data?: { segments: { url: string; pixels: string; perceptualHashUrl: string }[]; sig: Buffer };
  info?: OrchestratorInfoMessage;
}

export interface EndTranscodingSessionRequestMessage {
  authToken?: AuthTokenMessage;
}

export interface PingPongMessage {
  value: Buffer;
}

/** The message types this project speaks, by their proto names. */
export interface Messages {
  OrchestratorRequest: OrchestratorRequestMessage;
  OrchestratorInfo: OrchestratorInfoMessage;
  EndTranscodingSessionRequest: EndTranscodingSessionRequestMessage;
  EndTranscodingSessionResponse: Record<string, never>;
  PingPong: PingPongMessage;
  SegData: SegDataMessage;
  Payment: PaymentMessage;
  TranscodeResult: TranscodeResultMessage;
}

export type MessageName = keyof Messages;

/** Deep-partial input for encode: unset fields take proto3 defaults. */
export type MessageInput<N extends MessageName> = DeepPartial<Messages[N]>;
type DeepPartial<T> = T extends Buffer | string | number | boolean
  ? T | (T extends string ? number | bigint : never) | (T extends Buffer ? Uint8Array : never)
  : T extends (infer E)[]
    ? DeepPartial<E>[]
    : { [K in keyof T]?: DeepPartial<T[K]> };

const TO_OBJECT: protobuf.IConversionOptions = {
  longs: String,
  bytes: Buffer as unknown as protobuf.IConversionOptions["bytes"],
  defaults: true,
  arrays: true,
  objects: true,
  oneofs: false,
};

function typeOf(name: MessageName): protobuf.Type {
  return root.lookupType(`net.${name}`);
}

/** Encodes a message; throws naming the field when a value does not fit its type. */
export function encodeMessage<N extends MessageName>(name: N, value: MessageInput<N>): Buffer {
  const type = typeOf(name);
  const message = type.fromObject(normalizeLongs(value) as Record<string, unknown>);
  const problem = type.verify(message);
  if (problem) throw new Error(`net.${name}: ${problem}`);
  return Buffer.from(type.encode(message).finish());
}

/** Decodes a message; throws on bytes that are not that message (a protobuf wire error). */
export function decodeMessage<N extends MessageName>(name: N, bytes: Uint8Array): Messages[N] {
  const type = typeOf(name);
  const object = type.toObject(type.decode(bytes), TO_OBJECT) as Record<string, unknown>;
  return withBuffers(object) as unknown as Messages[N];
}

// protobufjs takes int64 values as numbers or strings; bigint goes in as its decimal text.
function normalizeLongs(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(normalizeLongs);
  if (value && typeof value === "object" && !(value instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalizeLongs(v)]));
  }
  return value;
}

// toObject's `bytes: Buffer` option yields Uint8Array in places (map values): make every one a Buffer.
function withBuffers(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (Array.isArray(value)) return value.map(withBuffers);
  if (value && typeof value === "object") {
    // An unset message field is null in toObject's output: absent here, as the interfaces say.
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, withBuffers(v)]),
    );
  }
  return value;
}

/** A big-endian unsigned integer in bytes (how TicketParams carries face value, win prob, block). */
export function bytesToBigInt(bytes: Uint8Array | undefined): bigint {
  if (!bytes || bytes.length === 0) return 0n;
  return BigInt(`0x${Buffer.from(bytes).toString("hex")}`);
}

/** The inverse of bytesToBigInt: minimal big-endian bytes (none for 0, as Go's big.Int.Bytes()). */
export function bigIntToBytes(value: bigint): Buffer {
  if (value <= 0n) return Buffer.alloc(0);
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex");
}
