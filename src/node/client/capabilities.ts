// go-livepeer's capability numbers (core/capabilities.go) as they appear in the JSON of
// GetOrchestrator (gRPC) and /getNetworkCapabilities, and which of them are AI pipelines.
export const AI_CAPABILITIES: Readonly<Record<string, number>> = {
  "text-to-image": 27,
  "image-to-image": 28,
  "image-to-video": 29,
  upscale: 30,
  "audio-to-text": 31,
  "segment-anything-2": 32,
  llm: 33,
  "image-to-text": 34,
  "live-video-to-video": 35,
  "text-to-speech": 36,
};

/** Capabilities every video orchestrator advertises (H.264, MPEG-TS, MP4, ... , segment slicing). */
export const VIDEO_CAPABILITIES: readonly number[] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 26];

const AI_IDS = new Set(Object.values(AI_CAPABILITIES));

export function isAiCapability(id: number): boolean {
  return AI_IDS.has(id);
}

export function pipelineCapability(pipeline: string): number | undefined {
  return AI_CAPABILITIES[pipeline];
}

/** The node's capability bit set (an array of 64-bit words) -> capability numbers. */
export function capabilitiesFromBitstring(words: readonly (number | string | bigint)[]): number[] {
  const out: number[] = [];
  words.forEach((word, index) => {
    let bits = BigInt(word);
    for (let bit = 0; bits > 0n; bit++, bits >>= 1n) if (bits & 1n) out.push(index * 64 + bit);
  });
  return out;
}

/** Capability numbers -> the node's bit set. */
export function bitstringFromCapabilities(ids: readonly number[]): number[] {
  const words: bigint[] = [];
  for (const id of ids) {
    const index = Math.floor(id / 64);
    while (words.length <= index) words.push(0n);
    words[index] = words[index]! | (1n << BigInt(id % 64));
  }
  // JSON numbers: exact while the highest capability stays below bit 53 of a word.
  return words.map((w) => Number(w));
}
