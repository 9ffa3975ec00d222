// How many GPUs a node pod gets and which model; the session limit is derived from it.
import { z } from "zod";

export const GPU_PRODUCT_PATTERN = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

export const GpuSpecSchema = z
  .strictObject({
    count: z
      .int()
      .min(0, { error: "gpu.count must be 0 or more: 0 (or leaving it out) runs on CPU only" })
      .max(64)
      .optional()
      .describe(
        "Number of NVIDIA GPUs the pod requests (nvidia.com/gpu in limits); the node gets -nvidia 0,...,count-1. 0 or absent: CPU only (about 5 streams). Example: 2.",
      ),
    product: z
      .string()
      .max(63)
      .regex(GPU_PRODUCT_PATTERN, {
        error: (iss) =>
          `gpu.product ${JSON.stringify(iss.input)} is not a GPU Feature Discovery product label value: copy it from kubectl get nodes -L nvidia.com/gpu.product, for example NVIDIA-GeForce-RTX-3090`,
      })
      .optional()
      .describe(
        "Pin one GPU model by its GPU Feature Discovery label nvidia.com/gpu.product, for example NVIDIA-GeForce-RTX-3090 or Tesla-T4. Absent: any GPU node with a video encoder, and the session limit assumes the most conservative of them.",
      ),
    sessionsPerGpu: z
      .int()
      .min(1, { error: "gpu.sessionsPerGpu must be 1 or more" })
      .max(1024)
      .optional()
      .describe(
        "Streams each GPU transcodes at once, overriding the operator's table (consumer cards: NVENC session cap / renditions per stream; T4 about 14). Integer >= 1. Example: 4.",
      ),
  })
  .describe(
    "GPUs for the node pod. Pods request nvidia.com/gpu, tolerate the nvidia.com/gpu taint and never land on GPUs without a video encoder (A100, H100).",
  );

export type GpuSpec = z.infer<typeof GpuSpecSchema>;
