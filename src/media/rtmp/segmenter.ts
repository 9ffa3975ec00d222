// RTMP media into MPEG-TS segments, as the node's segmenter cuts an RTMP stream for HLS: a new
// segment at the first keyframe at least the segment length (2 s, server.SegLen) after the
// current one began. H.264 becomes Annex B (SPS and PPS before each keyframe, an AUD before each
// picture), AAC gets ADTS headers; other codecs are dropped, said once.
import { audNal } from "../h264-test-pattern.ts";
import { annexB, concat, TsMuxer } from "../mpegts-muxer.ts";
import {
  type AacConfig,
  type AvcConfig,
  adtsFrame,
  parseAudioTag,
  parseVideoTag,
  splitNalus,
} from "./flv-media.ts";

export interface CutSegment {
  seq: number;
  data: Uint8Array;
  durationMs: number;
}

interface Unit {
  video: boolean;
  dtsMs: number;
  ptsMs: number;
  keyframe: boolean;
  data: Uint8Array;
}

const NAL_TYPE = { sps: 7, pps: 8, aud: 9 } as const;
/** MPEG-TS times start one second in, so the PCR (100 ms ahead) never goes below zero. */
const TS_OFFSET = 90_000;

export class RtmpSegmenter {
  private avc: AvcConfig | undefined;
  private aac: AacConfig | undefined;
  private muxer: TsMuxer | undefined;
  private units: Unit[] = [];
  private startMs: number | undefined;
  private lastVideoMs = 0;
  private frameMs = 0;
  private seq = 0;
  private readonly said = new Set<string>();
  private readonly segmentMs: number;
  private readonly onSegment: (segment: CutSegment) => void;
  private readonly note: (message: string) => void;

  constructor(options: {
    segmentMs?: number;
    onSegment: (segment: CutSegment) => void;
    note: (message: string) => void;
  }) {
    this.segmentMs = options.segmentMs ?? 2000;
    this.onSegment = options.onSegment;
    this.note = options.note;
  }

  video(payload: Buffer, timestamp: number): void {
    const tag = parseVideoTag(payload);
    if (tag.kind === "unsupported") {
      this.once(`video codec ${tag.codecId} is not H.264: video dropped`);
      return;
    }
    if (tag.kind === "config") {
      this.avc = tag.config;
      return;
    }
    if (tag.kind === "end" || !this.avc) return;
    const nalus = splitNalus(tag.data, this.avc.nalLengthSize).filter((n) => (n[0]! & 0x1f) !== NAL_TYPE.aud);
    const hasSps = nalus.some((n) => (n[0]! & 0x1f) === NAL_TYPE.sps);
    const nals = [audNal(), ...(tag.keyframe && !hasSps ? [...this.avc.sps, ...this.avc.pps] : []), ...nalus];
    if (this.startMs === undefined && !tag.keyframe) return; // a segment starts with a keyframe
    if (tag.keyframe && this.startMs !== undefined && timestamp - this.startMs >= this.segmentMs) {
      this.cut(timestamp);
    }
    if (this.startMs === undefined) this.startMs = timestamp;
    if (timestamp > this.lastVideoMs) this.frameMs = timestamp - this.lastVideoMs;
    this.lastVideoMs = timestamp;
    this.units.push({
      video: true,
      dtsMs: timestamp,
      ptsMs: timestamp + tag.compositionMs,
      keyframe: tag.keyframe,
      data: annexB(nals),
    });
  }

  audio(payload: Buffer, timestamp: number): void {
    const tag = parseAudioTag(payload);
    if (tag.kind === "unsupported") {
      this.once(`audio format ${tag.format} is not AAC: audio dropped`);
      return;
    }
    if (tag.kind === "config") {
      this.aac = tag.config;
      return;
    }
    if (!this.aac || this.startMs === undefined) return;
    this.units.push({
      video: false,
      dtsMs: timestamp,
      ptsMs: timestamp,
      keyframe: false,
      data: adtsFrame(this.aac, tag.data),
    });
  }

  /** The stream ended: the last segment, however short. */
  end(): void {
    if (this.startMs !== undefined && this.units.length > 0) this.cut(this.lastVideoMs + this.frameMs);
    this.startMs = undefined;
  }

  private cut(atMs: number): void {
    const start = this.startMs ?? atMs;
    this.muxer ??= new TsMuxer({ audio: this.aac !== undefined });
    const packets = this.muxer.tables();
    for (const u of this.units) {
      if (u.video) {
        packets.push(
          ...this.muxer.video(u.data, TS_OFFSET + u.ptsMs * 90, u.keyframe, TS_OFFSET + u.dtsMs * 90),
        );
      } else if (this.muxer.hasAudio) {
        packets.push(...this.muxer.audio(u.data, TS_OFFSET + u.ptsMs * 90));
      }
    }
    this.units = [];
    this.startMs = atMs;
    this.onSegment({ seq: this.seq++, data: concat(packets), durationMs: Math.max(1, atMs - start) });
  }

  private once(message: string): void {
    if (this.said.has(message)) return;
    this.said.add(message);
    this.note(message);
  }
}
