// The rendition presets -transcodingOptions names (LPMS ffmpeg.VideoProfileLookup): what a gateway
// asks orchestrators for, and what its master playlist advertises.

export interface VideoPreset {
  name: string;
  width: number;
  height: number;
  /** Bits per second. */
  bitrate: number;
  fps: number;
}

const preset = (name: string, resolution: string, kbps: number, fps: number): VideoPreset => {
  const [width, height] = resolution.split("x").map(Number) as [number, number];
  return { name, width, height, bitrate: kbps * 1000, fps };
};

export const VIDEO_PRESETS: ReadonlyMap<string, VideoPreset> = new Map(
  [
    preset("P720p60fps16x9", "1280x720", 6000, 60),
    preset("P720p30fps16x9", "1280x720", 4000, 30),
    preset("P720p25fps16x9", "1280x720", 3500, 25),
    preset("P720p30fps4x3", "960x720", 3500, 30),
    preset("P576p30fps16x9", "1024x576", 1500, 30),
    preset("P576p25fps16x9", "1024x576", 1500, 25),
    preset("P360p30fps16x9", "640x360", 1200, 30),
    preset("P360p25fps16x9", "640x360", 1000, 25),
    preset("P360p30fps4x3", "480x360", 1000, 30),
    preset("P240p30fps16x9", "426x240", 600, 30),
    preset("P240p25fps16x9", "426x240", 600, 25),
    preset("P240p30fps4x3", "320x240", 600, 30),
    preset("P144p30fps16x9", "256x144", 400, 30),
    preset("P144p25fps16x9", "256x144", 400, 25),
  ].map((p) => [p.name, p]),
);

/** -transcodingOptions as the node reads a preset list: unknown names are dropped. */
export function presetsFrom(list: string): VideoPreset[] {
  return list
    .split(",")
    .map((n) => VIDEO_PRESETS.get(n.trim()))
    .filter((p): p is VideoPreset => p !== undefined);
}
