// How many renditions one stream encodes: each is one NVENC session while the stream runs.

/** The node's default `-transcodingOptions` (two renditions). */
export const DEFAULT_TRANSCODING_OPTIONS = "P240p30fps16x9,P360p30fps16x9";

/**
 * Renditions in a `-transcodingOptions` value: a comma list of preset names counts its entries;
 * a path to a JSON profile file cannot be read here, so it counts as the node's default.
 */
export function renditionsIn(transcodingOptions: string | undefined): number {
  const value = (transcodingOptions ?? "").trim();
  if (!value || value.endsWith(".json") || value.startsWith("/"))
    return renditionsIn(DEFAULT_TRANSCODING_OPTIONS);
  return value.split(",").filter((p) => p.trim()).length;
}
