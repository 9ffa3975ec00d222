// GPU memory a few well-known models need to load and serve one request (MiB, fp16, one
// 1024x1024 image or one short prompt), from their model cards and Livepeer's AI orchestrator
// guide. Used when the spec does not say (runner.gpuMemoryMiB); unknown models get any GPU.
const KNOWN_MODEL_MIB: Readonly<Record<string, number>> = {
  "stabilityai/sd-turbo": 6_144,
  "stabilityai/sdxl-turbo": 12_288,
  "ByteDance/SDXL-Lightning": 12_288,
  "SG161222/RealVisXL_V4.0_Lightning": 12_288,
  "black-forest-labs/FLUX.1-schnell": 24_576,
  "black-forest-labs/FLUX.1-dev": 24_576,
  "stabilityai/stable-video-diffusion-img2vid-xt-1-1": 24_576,
  "stabilityai/stable-diffusion-x4-upscaler": 12_288,
  "openai/whisper-large-v3": 10_240,
  "facebook/sam2-hiera-large": 8_192,
  "meta-llama/Meta-Llama-3.1-8B-Instruct": 20_480,
  "parler-tts/parler-tts-large-v1": 8_192,
};

export interface GpuMemoryNeed {
  mib: number;
  source: "spec" | "known model";
}

/** The least GPU memory the model's runner needs, when the spec or the table knows it. */
export function gpuMemoryNeed(modelId: string, specMiB: number | undefined): GpuMemoryNeed | undefined {
  if (specMiB !== undefined) return { mib: specMiB, source: "spec" };
  const known = KNOWN_MODEL_MIB[modelId];
  return known === undefined ? undefined : { mib: known, source: "known model" };
}
