import { describe, expect, it } from "vitest";
import { BitWriter, nalUnit } from "./bit-writer.ts";
import { LivePresentation } from "./hls-playlist.ts";
import { crc32Mpeg2 } from "./mpegts-muxer.ts";
import { presetsFrom } from "./presets.ts";
import { decodeAmf0, encodeAmf0 } from "./rtmp/amf0.ts";
import { ChunkReader, ChunkWriter, controlMessage, MESSAGE, type RtmpMessage } from "./rtmp/chunks.ts";
import {
  adtsFrame,
  avcConfigRecord,
  lengthPrefixed,
  parseAvcConfig,
  parseVideoTag,
  videoTag,
} from "./rtmp/flv-media.ts";
import { type CutSegment, RtmpSegmenter } from "./rtmp/segmenter.ts";
import { TestStream } from "./test-stream.ts";

const bits = (w: BitWriter) =>
  [...w.trailing()]
    .map((b) => b.toString(2).padStart(8, "0"))
    .join("")
    .replace(/10*$/, "");

describe("H.264 bit writing", () => {
  it.each([
    ["ue(0)", (w: BitWriter) => w.ue(0), "1"],
    ["ue(1)", (w: BitWriter) => w.ue(1), "010"],
    ["ue(3)", (w: BitWriter) => w.ue(3), "00100"],
    ["ue(24)", (w: BitWriter) => w.ue(24), "000011001"],
    ["se(1)", (w: BitWriter) => w.se(1), "010"],
    ["se(-1)", (w: BitWriter) => w.se(-1), "011"],
    ["u(3, 5)", (w: BitWriter) => w.u(3, 5), "101"],
  ])("%s", (_n, write, expected) => {
    expect(bits(write(new BitWriter()))).toBe(expected);
  });

  it("NAL units escape 00 00 0x with an emulation prevention byte", () => {
    expect([...nalUnit(3, 7, Uint8Array.of(0, 0, 1, 0, 0, 0, 0))]).toEqual([0x67, 0, 0, 3, 1, 0, 0, 3, 0, 0]);
  });
});

describe("MPEG-TS test stream", () => {
  it("CRC-32/MPEG-2 matches its check value", () => {
    expect(crc32Mpeg2(Buffer.from("123456789"))).toBe(0x0376e6e7);
  });

  it("segments are whole 188-byte packets with PAT and PMT first, their CRCs valid, counters running on", () => {
    const stream = new TestStream({ width: 32, height: 16, fps: 5, segmentSeconds: 1 });
    const [a, b] = [stream.segment(0), stream.segment(1)];
    for (const seg of [a, b]) {
      expect(seg.length % 188).toBe(0);
      for (let at = 0; at < seg.length; at += 188) expect(seg[at]).toBe(0x47);
      const pat = seg.subarray(5, 5 + 3 + ((seg[6]! & 0x0f) << 8) + seg[7]!);
      expect(crc32Mpeg2(pat)).toBe(0); // a section with its CRC appended checks to 0
    }
    const videoCounter = (seg: Uint8Array, which: "first" | "last") => {
      const packets = Array.from({ length: seg.length / 188 }, (_, i) =>
        seg.subarray(i * 188, i * 188 + 188),
      ).filter((p) => (((p[1]! & 0x1f) << 8) | p[2]!) === 0x100);
      return packets.at(which === "first" ? 0 : -1)![3]! & 0x0f;
    };
    expect(videoCounter(b, "first")).toBe((videoCounter(a, "last") + 1) & 0x0f);
  });

  it("refuses picture sizes that are not whole macroblocks", () => {
    expect(() => new TestStream({ width: 30 }).segment(0)).toThrow("use multiples of 16");
  });
});

describe("HLS presentation", () => {
  it("keeps the last 6 segments per rendition and names renditions in the order they appeared", () => {
    const p = new LivePresentation("m");
    for (let seq = 0; seq < 8; seq++) {
      p.add({ name: "source", bandwidth: 4_000_000 }, seq, 2, Uint8Array.of(seq));
      p.add(
        { name: "P144p30fps16x9", bandwidth: 400_000, resolution: "256x144" },
        seq,
        2.5,
        Uint8Array.of(seq),
      );
    }
    expect(p.masterPlaylist()).toContain(
      "BANDWIDTH=4000000\nm/source.m3u8\n#EXT-X-STREAM-INF:PROGRAM-ID=0,BANDWIDTH=400000,RESOLUTION=256x144",
    );
    const media = p.mediaPlaylist("P144p30fps16x9")!;
    expect(media).toContain("#EXT-X-MEDIA-SEQUENCE:2\n#EXT-X-TARGETDURATION:3\n");
    expect(media.match(/#EXTINF/g)).toHaveLength(6);
    expect(p.segment("source", 1)).toBeUndefined();
    expect(p.segment("source", 7)).toEqual(Uint8Array.of(7));
  });

  it("-transcodingOptions drops preset names the node does not know", () => {
    expect(
      presetsFrom("P240p30fps16x9, nope,P720p60fps16x9").map((p) => `${p.name} ${p.width}x${p.height}`),
    ).toEqual(["P240p30fps16x9 426x240", "P720p60fps16x9 1280x720"]);
  });
});

describe("RTMP building blocks", () => {
  it("AMF0 round-trips what commands carry", () => {
    const values = [
      "connect",
      1,
      { app: "live", nested: { ok: true, n: -2.5 }, none: null },
      null,
      undefined,
      [1, "two"],
    ];
    expect(decodeAmf0(encodeAmf0(values))).toEqual(values);
  });

  it("chunks round-trip across chunk sizes, byte by byte, with extended timestamps", () => {
    const messages: RtmpMessage[] = [
      controlMessage(MESSAGE.setChunkSize, 300),
      { type: MESSAGE.video, streamId: 1, timestamp: 40, payload: Buffer.alloc(1000, 7) },
      { type: MESSAGE.audio, streamId: 1, timestamp: 0x1_000_000, payload: Buffer.alloc(700, 9) },
      {
        type: MESSAGE.amf0Command,
        streamId: 0,
        timestamp: 0,
        payload: encodeAmf0(["createStream", 2, null]),
      },
    ];
    const writer = new ChunkWriter();
    const wire = Buffer.concat(
      messages.map((m, i) => {
        const out = writer.write(i === 0 ? 2 : 3 + i, m);
        if (i === 0) writer.chunkSize = 300;
        return out;
      }),
    );
    const reader = new ChunkReader();
    const got: RtmpMessage[] = [];
    for (const byte of wire) got.push(...reader.push(Buffer.from([byte])));
    expect(got).toEqual(messages);
    expect(reader.chunkSize).toBe(300);
  });

  it("reads the compressed headers encoders send: type 1, 2 and 3 chunks adding deltas", () => {
    const header0 = Buffer.from([0x06, 0, 0, 100, 0, 0, 2, 9, 1, 0, 0, 0]); // csid 6, t=100, len 2, video, stream 1
    const header1 = Buffer.from([0x46, 0, 0, 40, 0, 0, 1, 8]); // +40, len 1, audio
    const header2 = Buffer.from([0x86, 0, 0, 20]); // +20
    const header3 = Buffer.from([0xc6]); // +20 again
    const wire = Buffer.concat([
      header0,
      Buffer.from([1, 2]),
      header1,
      Buffer.from([3]),
      header2,
      Buffer.from([4]),
      header3,
      Buffer.from([5]),
    ]);
    const got = new ChunkReader().push(wire).map((m) => [m.type, m.timestamp, [...m.payload]]);
    expect(got).toEqual([
      [9, 100, [1, 2]],
      [8, 140, [3]],
      [8, 160, [4]],
      [8, 180, [5]],
    ]);
  });

  it("FLV: an AVC configuration record and frames read back; ADTS headers carry the frame length", () => {
    const frame = new TestStream().frames(0)[0]!;
    const sps = frame.nals.find((n) => (n[0]! & 0x1f) === 7)!;
    const pps = frame.nals.find((n) => (n[0]! & 0x1f) === 8)!;
    const config = parseAvcConfig(avcConfigRecord(sps, pps));
    expect(config).toEqual({ nalLengthSize: 4, sps: [Buffer.from(sps)], pps: [Buffer.from(pps)] });
    expect(parseVideoTag(videoTag(true, 1, lengthPrefixed([pps]), -33))).toMatchObject({
      kind: "frame",
      keyframe: true,
      compositionMs: -33,
    });
    const adts = adtsFrame({ objectType: 2, frequencyIndex: 4, channels: 2 }, Buffer.alloc(100));
    expect(adts.length).toBe(107);
    expect(((adts[3]! & 0x03) << 11) | (adts[4]! << 3) | (adts[5]! >> 5)).toBe(107);
  });

  it("the segmenter cuts at the first keyframe 2 s after the segment began, and flushes the rest at the end", () => {
    const stream = new TestStream({ fps: 10, segmentSeconds: 1 });
    const segments: CutSegment[] = [];
    const notes: string[] = [];
    const segmenter = new RtmpSegmenter({ onSegment: (s) => segments.push(s), note: (n) => notes.push(n) });
    const first = stream.frames(0)[0]!;
    const nal = (type: number) => first.nals.find((n) => (n[0]! & 0x1f) === type)!;
    segmenter.video(videoTag(true, 0, avcConfigRecord(nal(7), nal(8))), 0);
    for (let i = 0; i < 5; i++) {
      for (const f of stream.frames(i)) {
        const slices = f.nals.filter((n) => ![7, 8, 9].includes(n[0]! & 0x1f));
        segmenter.video(videoTag(f.keyframe, 1, lengthPrefixed(slices)), f.timeMs);
      }
    }
    segmenter.audio(Buffer.from([0x2f, 0x00]), 0); // MP3: dropped, said once
    segmenter.audio(Buffer.from([0x2f, 0x00]), 10);
    segmenter.end();
    expect(segments.map((s) => [s.seq, s.durationMs])).toEqual([
      [0, 2000],
      [1, 2000],
      [2, 1000],
    ]);
    expect(notes).toEqual(["audio format 2 is not AAC: audio dropped"]);
  });
});
