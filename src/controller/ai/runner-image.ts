// The runner image go-livepeer itself picks for a pipeline (ai/worker/docker.go): the operator
// runs the same one unless the spec names another.
const DEFAULT_IMAGE = "livepeer/ai-runner:latest";
const PIPELINE_IMAGES: Readonly<Record<string, string>> = {
  "segment-anything-2": "livepeer/ai-runner:segment-anything-2",
  "text-to-speech": "livepeer/ai-runner:text-to-speech",
  "audio-to-text": "livepeer/ai-runner:audio-to-text",
  llm: "livepeer/ai-runner:llm",
};

export function runnerImageFor(pipeline: string, specImage?: string): string {
  return specImage ?? PIPELINE_IMAGES[pipeline] ?? DEFAULT_IMAGE;
}
