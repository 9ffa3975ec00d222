export type { GpuNode, GpuPodNeeds, GpuSlot, GpuUse, NodeFree } from "./capacity.ts";
export { gpuSlotFor, gpusRequested, nodeTakes } from "./capacity.ts";
export type { GpuRequest, PodPlacement } from "./placement.ts";
export {
  GPU_RESOURCE,
  GPU_TOLERATION,
  gpuNodeRequirements,
  labelsMatch,
  nvidiaDevices,
  placementFor,
} from "./placement.ts";
export { CONSUMER_NVENC_CAP, productInfo } from "./products.ts";
export { DEFAULT_TRANSCODING_OPTIONS, renditionsIn } from "./renditions.ts";
export type { NodeGpus, SessionLimit } from "./session-limit.ts";
export { CPU_SESSIONS, capacityOn, nodeGpusFromLabels, sessionLimitFor } from "./session-limit.ts";
