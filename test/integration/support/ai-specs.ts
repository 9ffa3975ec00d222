// The AI models the AI integration files run: sd-turbo's text-to-image on the encoder-less A100
// of the fake fleet, served by one runner pod with its weights on the node.
export const SD_TURBO = "stabilityai/sd-turbo";
export const A100 = "NVIDIA-A100-SXM4-40GB";

/** An AI-only Orchestrator spec: one warm text-to-image model on one A100. */
export const aiOnlyOnA100 = () => ({
  ai: {
    only: true,
    models: [
      {
        pipeline: "text-to-image",
        model_id: SD_TURBO,
        warm: true,
        capacity: 1,
        runner: { gpus: 1, gpuProduct: A100, weights: { hostPath: "/var/lib/livepeer/models" } },
      },
    ],
  },
});
