// The runner image go-livepeer itself runs for a live app (ai/worker/docker.go's
// livePipelineToImage: livepeer/ai-runner:live-app-<app>): the operator runs the same one unless
// the spec names another.
export function liveRunnerImageFor(id: string, specImage?: string): string {
  return specImage ?? `livepeer/ai-runner:live-app-${id}`;
}
