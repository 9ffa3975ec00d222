// What RTMP video and audio messages carry (FLV tag bodies): H.264 as an AVCDecoderConfigurationRecord
// then length-prefixed NAL units with a composition offset; AAC as an AudioSpecificConfig then raw
// frames. Read for ingest (to Annex B and ADTS for MPEG-TS) and written for the test publisher.

export interface AvcConfig {
  nalLengthSize: number;
  sps: Buffer[];
  pps: Buffer[];
}

export type VideoTag =
  | { kind: "config"; config: AvcConfig }
  | { kind: "frame"; keyframe: boolean; compositionMs: number; data: Buffer }
  | { kind: "end" }
  | { kind: "unsupported"; codecId: number };

const AVC = 7;
const AAC = 10;

export function parseVideoTag(payload: Buffer): VideoTag {
  if (payload.length < 5) return { kind: "unsupported", codecId: -1 };
  const codecId = payload[0]! & 0x0f;
  if (codecId !== AVC || payload[0]! & 0x80) return { kind: "unsupported", codecId }; // not AVC, or enhanced RTMP
  const keyframe = payload[0]! >> 4 === 1;
  const packetType = payload[1]!;
  const compositionMs = (payload.readIntBE(2, 3) << 8) >> 8;
  const data = payload.subarray(5);
  if (packetType === 0) return { kind: "config", config: parseAvcConfig(data) };
  if (packetType === 2) return { kind: "end" };
  return { kind: "frame", keyframe, compositionMs, data };
}

export function parseAvcConfig(data: Buffer): AvcConfig {
  if (data.length < 7) throw new Error("AVC decoder configuration record too short");
  const nalLengthSize = (data[4]! & 0x03) + 1;
  let at = 5;
  const read = (count: number) => {
    const out: Buffer[] = [];
    for (let i = 0; i < count; i++) {
      const len = data.readUInt16BE(at);
      out.push(data.subarray(at + 2, at + 2 + len));
      at += 2 + len;
    }
    return out;
  };
  const sps = read(data[at++]! & 0x1f);
  const pps = read(data[at++]!);
  return { nalLengthSize, sps, pps };
}

/** Length-prefixed NAL units (AVCC) -> the NAL units. */
export function splitNalus(data: Buffer, lengthSize: number): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at + lengthSize <= data.length) {
    const len = data.readUIntBE(at, lengthSize);
    at += lengthSize;
    out.push(data.subarray(at, at + len));
    at += len;
  }
  return out;
}

/** An AVCDecoderConfigurationRecord for one SPS and one PPS, 4-byte NAL lengths. */
export function avcConfigRecord(sps: Uint8Array, pps: Uint8Array): Buffer {
  const len = (b: Uint8Array) => Buffer.from([b.length >> 8, b.length & 0xff]);
  return Buffer.concat([
    Buffer.from([1, sps[1]!, sps[2]!, sps[3]!, 0xff, 0xe1]),
    len(sps),
    Buffer.from(sps),
    Buffer.from([1]),
    len(pps),
    Buffer.from(pps),
  ]);
}

/** A video message body: frame type, codec, packet type, composition time, data. */
export function videoTag(
  keyframe: boolean,
  packetType: 0 | 1 | 2,
  data: Uint8Array,
  compositionMs = 0,
): Buffer {
  const head = Buffer.alloc(5);
  head[0] = ((keyframe ? 1 : 2) << 4) | AVC;
  head[1] = packetType;
  head.writeIntBE(compositionMs, 2, 3);
  return Buffer.concat([head, Buffer.from(data)]);
}

/** NAL units -> AVCC (4-byte lengths). */
export function lengthPrefixed(nals: readonly Uint8Array[]): Buffer {
  return Buffer.concat(
    nals.flatMap((n) => {
      const len = Buffer.alloc(4);
      len.writeUInt32BE(n.length);
      return [len, Buffer.from(n)];
    }),
  );
}

export interface AacConfig {
  objectType: number;
  frequencyIndex: number;
  channels: number;
}

export type AudioTag =
  | { kind: "config"; config: AacConfig }
  | { kind: "frame"; data: Buffer }
  | { kind: "unsupported"; format: number };

export function parseAudioTag(payload: Buffer): AudioTag {
  if (payload.length < 2) return { kind: "unsupported", format: -1 };
  const format = payload[0]! >> 4;
  if (format !== AAC) return { kind: "unsupported", format };
  const data = payload.subarray(2);
  if (payload[1] === 0) {
    if (data.length < 2) return { kind: "unsupported", format };
    return {
      kind: "config",
      config: {
        objectType: data[0]! >> 3,
        frequencyIndex: ((data[0]! & 0x07) << 1) | (data[1]! >> 7),
        channels: (data[1]! >> 3) & 0x0f,
      },
    };
  }
  return { kind: "frame", data };
}

/** A raw AAC frame with its ADTS header, as MPEG-TS carries AAC. */
export function adtsFrame(config: AacConfig, frame: Buffer): Buffer {
  const length = frame.length + 7;
  const header = Buffer.from([
    0xff,
    0xf1, // MPEG-4, layer 0, no CRC
    (((config.objectType - 1) & 0x03) << 6) |
      ((config.frequencyIndex & 0x0f) << 2) |
      ((config.channels >> 2) & 0x01),
    ((config.channels & 0x03) << 6) | (length >> 11),
    (length >> 3) & 0xff,
    ((length & 0x07) << 5) | 0x1f,
    0xfc,
  ]);
  return Buffer.concat([header, frame]);
}
