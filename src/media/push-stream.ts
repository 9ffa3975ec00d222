// Pushes a synthetic live stream into a gateway by HTTP ingest, as a segmenter would: one
// MPEG-TS segment per request to /live/<name>/<seq>.ts with Content-Duration (ms) and
// Content-Resolution, paced in real time unless asked not to. No ffmpeg needed. The gateway's
// HLS output is then at /stream/<name>.m3u8 on the same port.
import { TestStream, type TestStreamOptions } from "./test-stream.ts";

export interface PushStreamOptions extends TestStreamOptions {
  /** The gateway's HTTP ingest base URL, e.g. http://127.0.0.1:9935 (its -httpAddr). */
  gateway: string;
  /** The stream name: the manifest id of /live/<name>/<seq>.ts. */
  name: string;
  /** How many segments (default 10). */
  segments?: number;
  /** First sequence number (default 0). */
  firstSeq?: number;
  /** Wait a segment's duration between segments, as a live source does (default true). */
  realtime?: boolean;
  /** PUT (default) or POST: the node takes both. */
  method?: "PUT" | "POST";
  /** Stop early. */
  signal?: AbortSignal;
  /** Called after each segment's answer. */
  onSegment?: (segment: PushedSegment) => void;
}

export interface PushedSegment {
  seq: number;
  /** The gateway's answer: 200 when the segment was transcoded, 503 "No sessions available" ... */
  status: number;
  body: string;
  ms: number;
}

export interface PushResult {
  segments: PushedSegment[];
  /** The stream's HLS master playlist on the gateway. */
  playlistUrl: string;
}

export async function pushStream(options: PushStreamOptions): Promise<PushResult> {
  if (!/^[\w.-]+$/.test(options.name)) {
    throw new Error(`stream name ${JSON.stringify(options.name)}: use letters, digits, ".", "_" or "-"`);
  }
  const base = options.gateway.replace(/\/+$/, "");
  const stream = new TestStream(options);
  const count = options.segments ?? 10;
  const first = options.firstSeq ?? 0;
  const durationMs = Math.round(stream.segmentSeconds * 1000);
  const segments: PushedSegment[] = [];
  for (let i = 0; i < count && !options.signal?.aborted; i++) {
    const seq = first + i;
    const started = performance.now();
    const response = await fetch(`${base}/live/${options.name}/${seq}.ts`, {
      method: options.method ?? "PUT",
      headers: {
        "Content-Type": "video/mp2t",
        "Content-Duration": String(durationMs),
        "Content-Resolution": stream.resolution,
      },
      body: stream.segment(seq),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const pushed = {
      seq,
      status: response.status,
      body: await response.text(),
      ms: performance.now() - started,
    };
    segments.push(pushed);
    options.onSegment?.(pushed);
    const wait = durationMs - pushed.ms;
    if ((options.realtime ?? true) && i + 1 < count && wait > 0) await sleep(wait, options.signal);
  }
  return { segments, playlistUrl: `${base}/stream/${options.name}.m3u8` };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
