// Small valid MPEG-TS segments of a synthetic live stream (H.264 test pattern, no audio), each
// starting with a keyframe, with continuous timestamps and continuity counters across segments:
// what an HTTP-ingest client pushes, without ffmpeg.
import { testPatternGop } from "./h264-test-pattern.ts";
import { annexB, concat, TsMuxer } from "./mpegts-muxer.ts";

export interface TestStreamOptions {
  /** Picture size, multiples of 16 (default 64x64). */
  width?: number;
  height?: number;
  /** Frames per second (default 10). */
  fps?: number;
  /** Seconds per segment (default 2, the node's own segment length). */
  segmentSeconds?: number;
}

export class TestStream {
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  readonly segmentSeconds: number;
  private readonly muxer = new TsMuxer();

  constructor(options: TestStreamOptions = {}) {
    this.width = options.width ?? 64;
    this.height = options.height ?? 64;
    this.fps = options.fps ?? 10;
    this.segmentSeconds = options.segmentSeconds ?? 2;
    if (!(this.fps > 0 && Number.isInteger(this.fps)) || !(this.segmentSeconds > 0)) {
      throw new RangeError("fps must be a whole number > 0 and segmentSeconds > 0");
    }
  }

  /** "64x64", as Content-Resolution carries it. */
  get resolution(): string {
    return `${this.width}x${this.height}`;
  }

  /** The pictures of segment number index: NAL units, keyframe or not, time from the start in ms. */
  frames(index: number): { nals: Uint8Array[]; keyframe: boolean; timeMs: number }[] {
    const frames = Math.max(1, Math.round(this.fps * this.segmentSeconds));
    const units = testPatternGop(
      { width: this.width, height: this.height },
      { frames, fps: this.fps, index },
    );
    const startMs = index * this.segmentSeconds * 1000;
    return units.map((unit, n) => ({ ...unit, timeMs: Math.round(startMs + (n * 1000) / this.fps) }));
  }

  /** Segment number index (from 0), as MPEG-TS; call in order: continuity counters run on. */
  segment(index: number): Uint8Array {
    const packets = this.muxer.tables();
    for (const f of this.frames(index)) {
      packets.push(...this.muxer.video(annexB(f.nals), 90_000 + f.timeMs * 90, f.keyframe));
    }
    return concat(packets);
  }
}
