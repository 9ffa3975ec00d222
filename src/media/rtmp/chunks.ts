// The RTMP chunk stream: messages cut into chunks of the peer's chunk size, each with a basic
// header (format, chunk stream id) and a message header of 11, 7, 3 or 0 bytes (absolute time,
// delta + length + type, delta, nothing), and an extended timestamp past 0xFFFFFF.

export interface RtmpMessage {
  type: number;
  streamId: number;
  /** Milliseconds. */
  timestamp: number;
  payload: Buffer;
}

export const MESSAGE = {
  setChunkSize: 1,
  abort: 2,
  acknowledgement: 3,
  userControl: 4,
  windowAckSize: 5,
  setPeerBandwidth: 6,
  audio: 8,
  video: 9,
  amf3Data: 15,
  amf3Command: 17,
  amf0Data: 18,
  amf0Command: 20,
} as const;

interface ChunkStreamState {
  timestamp: number;
  /** The last header's time field: absolute for format 0, a delta for 1 and 2 (format 3 reuses it). */
  delta: number;
  length: number;
  type: number;
  streamId: number;
  extended: boolean;
  parts: Buffer[];
  received: number;
}

export class ChunkReader {
  chunkSize = 128;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly streams = new Map<number, ChunkStreamState>();

  /** Bytes in, whole messages out (Set Chunk Size takes effect at once). */
  push(data: Buffer): RtmpMessage[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, data]) : data;
    const out: RtmpMessage[] = [];
    for (;;) {
      const message = this.next();
      if (message === null) break;
      if (message === undefined) continue;
      if (message.type === MESSAGE.setChunkSize && message.payload.length >= 4) {
        this.chunkSize = message.payload.readUInt32BE(0) & 0x7fff_ffff;
        if (this.chunkSize < 1) throw new Error("RTMP peer set a chunk size of 0");
      }
      if (message.type === MESSAGE.abort && message.payload.length >= 4) {
        const st = this.streams.get(message.payload.readUInt32BE(0));
        if (st) {
          st.parts = [];
          st.received = 0;
        }
      }
      out.push(message);
    }
    return out;
  }

  /** One chunk: null when more bytes are needed, undefined when it did not finish a message. */
  private next(): RtmpMessage | null | undefined {
    const buf = this.buffer;
    if (buf.length < 1) return null;
    const fmt = buf[0]! >> 6;
    let csid = buf[0]! & 0x3f;
    let at = 1;
    if (csid === 0) {
      if (buf.length < 2) return null;
      csid = 64 + buf[1]!;
      at = 2;
    } else if (csid === 1) {
      if (buf.length < 3) return null;
      csid = 64 + buf[1]! + buf[2]! * 256;
      at = 3;
    }
    const headerLength = [11, 7, 3, 0][fmt]!;
    if (buf.length < at + headerLength) return null;
    const st = this.streams.get(csid) ?? {
      timestamp: 0,
      delta: 0,
      length: 0,
      type: 0,
      streamId: 0,
      extended: false,
      parts: [],
      received: 0,
    };
    const timeField = fmt <= 2 ? buf.readUIntBE(at, 3) : 0;
    const length = fmt <= 1 ? buf.readUIntBE(at + 3, 3) : st.length;
    const type = fmt <= 1 ? buf[at + 6]! : st.type;
    const streamId = fmt === 0 ? buf.readUInt32LE(at + 7) : st.streamId;
    at += headerLength;
    const extended = fmt <= 2 ? timeField === 0xffffff : st.extended;
    let time = timeField;
    if (extended) {
      if (buf.length < at + 4) return null;
      time = buf.readUInt32BE(at);
      at += 4;
    }
    const starting = st.received === 0;
    const size = Math.min(this.chunkSize, length - (starting ? 0 : st.received));
    if (buf.length < at + size) return null;
    // The whole chunk is here: commit the header.
    if (starting) {
      if (fmt === 0) {
        st.timestamp = time;
        st.delta = time;
      } else if (fmt <= 2) {
        st.delta = time;
        st.timestamp += time;
      } else {
        st.timestamp += st.delta;
      }
      st.length = length;
      st.type = type;
      st.streamId = streamId;
    }
    st.extended = extended;
    this.streams.set(csid, st);
    st.parts.push(buf.subarray(at, at + size));
    st.received += size;
    this.buffer = buf.subarray(at + size);
    if (st.received < st.length) return undefined;
    const payload = Buffer.concat(st.parts);
    st.parts = [];
    st.received = 0;
    return { type: st.type, streamId: st.streamId, timestamp: st.timestamp, payload };
  }
}

export class ChunkWriter {
  chunkSize = 128;

  /** A message as chunks: a full header first, then format-3 continuation headers. */
  write(csid: number, message: RtmpMessage): Buffer {
    const basic = (fmt: number) =>
      csid < 64
        ? Buffer.from([(fmt << 6) | csid])
        : csid < 320
          ? Buffer.from([fmt << 6, csid - 64])
          : Buffer.from([(fmt << 6) | 1, (csid - 64) & 0xff, (csid - 64) >> 8]);
    const extended = message.timestamp >= 0xffffff;
    const ext = Buffer.alloc(extended ? 4 : 0);
    if (extended) ext.writeUInt32BE(message.timestamp >>> 0);
    const header = Buffer.alloc(11);
    header.writeUIntBE(extended ? 0xffffff : message.timestamp, 0, 3);
    header.writeUIntBE(message.payload.length, 3, 3);
    header[6] = message.type;
    header.writeUInt32LE(message.streamId, 7);
    const parts: Buffer[] = [basic(0), header, ext];
    for (let at = 0; at < message.payload.length || at === 0; at += this.chunkSize) {
      if (at > 0) parts.push(basic(3), ext);
      parts.push(message.payload.subarray(at, at + this.chunkSize));
      if (message.payload.length === 0) break;
    }
    return Buffer.concat(parts);
  }
}

/** Protocol control and user control messages (chunk stream 2, message stream 0). */
export function controlMessage(type: number, value: number, extra?: number): RtmpMessage {
  const payload = Buffer.alloc(type === MESSAGE.setPeerBandwidth ? 5 : 4);
  payload.writeUInt32BE(value >>> 0);
  if (type === MESSAGE.setPeerBandwidth) payload[4] = extra ?? 2;
  return { type, streamId: 0, timestamp: 0, payload };
}

/** User control event (e.g. 0 = Stream Begin) for a message stream. */
export function userControl(event: number, streamId: number): RtmpMessage {
  const payload = Buffer.alloc(6);
  payload.writeUInt16BE(event);
  payload.writeUInt32BE(streamId, 2);
  return { type: MESSAGE.userControl, streamId: 0, timestamp: 0, payload };
}
