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

  /** Segment number index (from 0), in order: counters continue from the previous call. */
  segment(index: number): Uint8Array {
    const frames = Math.max(1, Math.round(this.fps * this.segmentSeconds));
    const units = testPatternGop(
      { width: this.width, height: this.height },
      { frames, fps: this.fps, index },
    );
    const start = 90_000 * (1 + index * this.segmentSeconds);
    const packets = this.muxer.tables();
    units.forEach((unit, n) => {
      packets.push(
        ...this.muxer.video(annexB(unit.nals), start + Math.round((n * 90_000) / this.fps), unit.keyframe),
      );
    });
    return concat(packets);
  }
}
