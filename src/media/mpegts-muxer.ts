// An MPEG transport stream writer (ISO/IEC 13818-1) for HLS segments: PAT and PMT, H.264 video
// (PCR on its PID, random access flag on keyframes) and optionally AAC audio in ADTS, as 188-byte
// packets with per-PID continuity counters that run on across segments of one stream.

const PACKET = 188;
const PID = { pat: 0x0000, pmt: 0x1000, video: 0x0100, audio: 0x0101 } as const;
const STREAM_TYPE = { h264: 0x1b, aac: 0x0f } as const;
const TS_CLOCK_WRAP = 2 ** 33;

const START_CODE = Uint8Array.of(0, 0, 0, 1);

/** NAL units -> one Annex B access unit (start codes). */
export function annexB(nals: readonly Uint8Array[]): Uint8Array {
  return concat(nals.flatMap((n) => [START_CODE, n]));
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

let crcTable: Uint32Array | undefined;
/** CRC-32/MPEG-2 of PSI sections. */
export function crc32Mpeg2(data: Uint8Array): number {
  crcTable ??= Uint32Array.from({ length: 256 }, (_, i) => {
    let c = i << 24;
    for (let k = 0; k < 8; k++) c = c & 0x8000_0000 ? (c << 1) ^ 0x04c1_1db7 : c << 1;
    return c >>> 0;
  });
  let crc = 0xffff_ffff;
  for (const b of data) crc = ((crc << 8) ^ crcTable[((crc >>> 24) ^ b) & 0xff]!) >>> 0;
  return crc;
}

function timestamp(prefix: number, ts: number): number[] {
  const t = ts % TS_CLOCK_WRAP;
  const high = Math.floor(t / 2 ** 30) & 0x07;
  const mid = Math.floor(t / 2 ** 15) & 0x7fff;
  const low = t & 0x7fff;
  return [
    (prefix << 4) | (high << 1) | 1,
    mid >> 7,
    ((mid & 0x7f) << 1) | 1,
    low >> 7,
    ((low & 0x7f) << 1) | 1,
  ];
}

function pcrBytes(pcr: number): number[] {
  const base = pcr % TS_CLOCK_WRAP;
  return [
    Math.floor(base / 2 ** 25) & 0xff,
    Math.floor(base / 2 ** 17) & 0xff,
    Math.floor(base / 2 ** 9) & 0xff,
    Math.floor(base / 2 ** 1) & 0xff,
    ((base & 1) << 7) | 0x7e, // 6 reserved bits, extension high bit 0
    0x00,
  ];
}

export class TsMuxer {
  private readonly counters = new Map<number, number>();
  private readonly withAudio: boolean;

  constructor(options: { audio?: boolean } = {}) {
    this.withAudio = options.audio === true;
  }

  get hasAudio(): boolean {
    return this.withAudio;
  }

  /** PAT and PMT: the start of every segment. */
  tables(): Uint8Array[] {
    const pat = [0x00, 0x01, 0xc1, 0x00, 0x00, 0x00, 0x01, 0xe0 | (PID.pmt >> 8), PID.pmt & 0xff];
    const streams = [
      [STREAM_TYPE.h264, PID.video],
      ...(this.withAudio ? [[STREAM_TYPE.aac, PID.audio]] : []),
    ];
    const pmt = [
      0x00,
      0x01,
      0xc1,
      0x00,
      0x00,
      0xe0 | (PID.video >> 8),
      PID.video & 0xff,
      0xf0,
      0x00,
      ...streams.flatMap(([type, pid]) => [type!, 0xe0 | (pid! >> 8), pid! & 0xff, 0xf0, 0x00]),
    ];
    return [...this.section(PID.pat, 0x00, pat), ...this.section(PID.pmt, 0x02, pmt)];
  }

  /** One Annex B access unit; times in 90 kHz. Keyframes carry the PCR and the random access flag. */
  video(accessUnit: Uint8Array, pts: number, keyframe: boolean, dts = pts): Uint8Array[] {
    const times =
      dts === pts
        ? [0x80, 0x05, ...timestamp(0b0010, pts)]
        : [0xc0, 0x0a, ...timestamp(0b0011, pts), ...timestamp(0b0001, dts)];
    const header = [0x00, 0x00, 0x01, 0xe0, 0x00, 0x00, 0x84, ...times];
    const pcr = Math.max(0, dts - 9000); // the clock runs 100 ms ahead of decoding
    return this.packets(PID.video, concat([Uint8Array.from(header), accessUnit]), {
      pcr,
      randomAccess: keyframe,
    });
  }

  /** AAC frames with ADTS headers; pts in 90 kHz. */
  audio(adts: Uint8Array, pts: number): Uint8Array[] {
    if (!this.withAudio) throw new Error("this muxer was made without an audio track");
    const length = 8 + adts.length; // PES header bytes after the length field, plus the payload
    const header = [0x00, 0x00, 0x01, 0xc0, (length >> 8) & 0xff, length & 0xff, 0x84, 0x80, 0x05];
    return this.packets(
      PID.audio,
      concat([Uint8Array.from([...header, ...timestamp(0b0010, pts)]), adts]),
      {},
    );
  }

  private section(pid: number, tableId: number, body: number[]): Uint8Array[] {
    const length = body.length + 4; // + CRC
    const section = Uint8Array.from([tableId, 0xb0 | (length >> 8), length & 0xff, ...body, 0, 0, 0, 0]);
    const crc = crc32Mpeg2(section.subarray(0, section.length - 4));
    section.set([crc >>> 24, (crc >>> 16) & 0xff, (crc >>> 8) & 0xff, crc & 0xff], section.length - 4);
    const payload = new Uint8Array(PACKET - 4).fill(0xff);
    payload[0] = 0; // pointer_field
    payload.set(section, 1);
    return [this.packet(pid, true, [], payload)];
  }

  private packets(
    pid: number,
    pes: Uint8Array,
    first: { pcr?: number; randomAccess?: boolean },
  ): Uint8Array[] {
    const out: Uint8Array[] = [];
    let offset = 0;
    while (offset < pes.length) {
      const isFirst = offset === 0;
      let adaptation: number[] = [];
      if (isFirst && (first.pcr !== undefined || first.randomAccess)) {
        adaptation = [
          (first.randomAccess ? 0x40 : 0) | (first.pcr !== undefined ? 0x10 : 0),
          ...(first.pcr === undefined ? [] : pcrBytes(first.pcr)),
        ];
      }
      const room = PACKET - 4 - (adaptation.length ? 1 + adaptation.length : 0);
      const remaining = pes.length - offset;
      if (remaining < room) {
        // Stuff the adaptation field so the payload ends the packet exactly.
        const fieldLength = PACKET - 4 - remaining; // length byte included
        if (fieldLength > 1 && adaptation.length === 0) adaptation = [0x00];
        while (adaptation.length && 1 + adaptation.length < fieldLength) adaptation.push(0xff);
        if (fieldLength === 1) adaptation = [];
        const take = pes.subarray(offset, offset + remaining);
        out.push(this.packet(pid, isFirst, adaptation, take, fieldLength === 1));
        offset += remaining;
      } else {
        out.push(this.packet(pid, isFirst, adaptation, pes.subarray(offset, offset + room)));
        offset += room;
      }
    }
    return out;
  }

  private packet(
    pid: number,
    unitStart: boolean,
    adaptation: number[],
    payload: Uint8Array,
    emptyField = false,
  ) {
    const cc = this.counters.get(pid) ?? 0;
    this.counters.set(pid, (cc + 1) & 0x0f);
    const hasField = adaptation.length > 0 || emptyField;
    const packet = new Uint8Array(PACKET).fill(0xff);
    packet.set([0x47, (unitStart ? 0x40 : 0) | (pid >> 8), pid & 0xff, (hasField ? 0x30 : 0x10) | cc]);
    let at = 4;
    if (hasField) {
      packet[at++] = adaptation.length;
      packet.set(adaptation, at);
      at += adaptation.length;
    }
    packet.set(payload, at);
    if (at + payload.length !== PACKET) throw new Error(`TS packet of ${at + payload.length} bytes`);
    return packet;
  }
}
