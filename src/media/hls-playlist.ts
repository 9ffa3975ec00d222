// A live HLS presentation as the node's playlist manager keeps one (core/playlistmanager.go): a
// master playlist listing one media playlist per rendition ("<mid>/<rendition>.m3u8", source
// first), each a sliding window of the last 6 segments, and the segments' bytes for as long as a
// playlist can still name them.

/** core.LIVE_LIST_LENGTH */
export const LIVE_WINDOW = 6;

export interface Rendition {
  name: string;
  /** Bits per second, for BANDWIDTH. */
  bandwidth: number;
  /** "WxH", for RESOLUTION (omitted when unknown). */
  resolution?: string;
}

interface MediaSegment {
  seq: number;
  uri: string;
  duration: number;
  data: Uint8Array;
}

export class LivePresentation {
  private readonly renditions: Rendition[] = [];
  private readonly media = new Map<string, MediaSegment[]>();

  readonly manifestID: string;
  private readonly window: number;

  constructor(manifestID: string, window = LIVE_WINDOW) {
    this.manifestID = manifestID;
    this.window = window;
  }

  /** Adds a segment of a rendition (creating the rendition on first use); returns its URI. */
  add(rendition: Rendition, seq: number, durationSeconds: number, data: Uint8Array): string {
    let list = this.media.get(rendition.name);
    if (!list) {
      list = [];
      this.media.set(rendition.name, list);
      this.renditions.push(rendition);
    }
    const uri = `/stream/${this.manifestID}/${rendition.name}/${seq}.ts`;
    const existing = list.findIndex((s) => s.seq === seq);
    if (existing >= 0) list.splice(existing, 1);
    list.push({ seq, uri, duration: durationSeconds, data });
    list.sort((a, b) => a.seq - b.seq);
    while (list.length > this.window) list.shift();
    return uri;
  }

  get renditionNames(): string[] {
    return this.renditions.map((r) => r.name);
  }

  masterPlaylist(): string {
    const lines = ["#EXTM3U", "#EXT-X-VERSION:3"];
    for (const r of this.renditions) {
      lines.push(
        `#EXT-X-STREAM-INF:PROGRAM-ID=0,BANDWIDTH=${r.bandwidth}${r.resolution ? `,RESOLUTION=${r.resolution}` : ""}`,
        `${this.manifestID}/${r.name}.m3u8`,
      );
    }
    return `${lines.join("\n")}\n`;
  }

  mediaPlaylist(rendition: string): string | undefined {
    const list = this.media.get(rendition);
    if (!list) return undefined;
    const target = Math.max(1, ...list.map((s) => Math.ceil(s.duration)));
    const lines = [
      "#EXTM3U",
      "#EXT-X-VERSION:3",
      `#EXT-X-MEDIA-SEQUENCE:${list[0]?.seq ?? 0}`,
      `#EXT-X-TARGETDURATION:${target}`,
    ];
    for (const s of list) lines.push(`#EXTINF:${s.duration.toFixed(3)},`, s.uri);
    return `${lines.join("\n")}\n`;
  }

  /** The bytes behind a URI of a current playlist. */
  segment(rendition: string, seq: number): Uint8Array | undefined {
    return this.media.get(rendition)?.find((s) => s.seq === seq)?.data;
  }
}
