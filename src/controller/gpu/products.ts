// What the operator knows about GPU products, keyed by the `nvidia.com/gpu.product` label that
// GPU Feature Discovery sets. Policy reads this table; nothing else hard-codes a product.

/** Where a consumer driver's NVENC session cap applies (the spec says per GPU; some drivers cap per machine). */
export type CapScope = "gpu" | "machine";

export interface GpuProductInfo {
  /** Has a hardware video encoder (A100/H100-class cards do not). */
  encoder: boolean;
  /** Consumer cards: concurrent NVENC sessions the driver allows. */
  nvencCap?: number;
  capScope?: CapScope;
  /** Cards without a driver cap: measured streams per GPU (community benchmarks). */
  streamsPerGpu?: number;
  source: string;
}

/** Consumer (GeForce) NVENC cap of current Linux drivers: 8 since early 2024 (3 before 2023, 5 in 2023). */
export const CONSUMER_NVENC_CAP = 8;

/** Streams per GPU assumed for a product the table does not know: deliberately low. */
export const UNKNOWN_PRODUCT_STREAMS = 4;

interface Rule {
  match: RegExp;
  info: GpuProductInfo;
}

const rules: Rule[] = [
  {
    match: /(A100|H100|H200|H800|A800|A30)\b/i,
    info: { encoder: false, source: "no NVENC on this card family" },
  },
  {
    match: /GeForce|TITAN|RTX-\d{4}$/i,
    info: {
      encoder: true,
      nvencCap: CONSUMER_NVENC_CAP,
      capScope: "gpu",
      source: `consumer driver NVENC cap ${CONSUMER_NVENC_CAP}`,
    },
  },
  {
    match: /Tesla-T4|\bT4\b/i,
    info: { encoder: true, streamsPerGpu: 14, source: "community benchmark: T4 ~14 streams" },
  },
  {
    match: /\bL4\b/i,
    info: { encoder: true, streamsPerGpu: 16, source: "documented default for L4 (2 NVENC)" },
  },
  {
    match: /\bA10G?\b|A40|L40|RTX-A\d{4}|Quadro/i,
    info: { encoder: true, streamsPerGpu: 12, source: "documented default for professional cards" },
  },
];

/** Looks a product up; `-SHARED` (time-slicing) suffixes are ignored here and accounted for by the replica count. */
export function productInfo(product: string): GpuProductInfo {
  const base = product.replace(/-SHARED$/, "");
  for (const rule of rules) if (rule.match.test(base)) return rule.info;
  return {
    encoder: true,
    streamsPerGpu: UNKNOWN_PRODUCT_STREAMS,
    source: `unknown product: conservative default ${UNKNOWN_PRODUCT_STREAMS}`,
  };
}

/** Products never given video work: the affinity excludes them by label. */
export const ENCODERLESS_PRODUCTS = [
  "NVIDIA-A100-SXM4-40GB",
  "NVIDIA-A100-SXM4-80GB",
  "NVIDIA-A100-PCIE-40GB",
  "NVIDIA-A100-PCIE-80GB",
  "NVIDIA-A100-80GB-PCIe",
  "NVIDIA-H100-80GB-HBM3",
  "NVIDIA-H100-PCIe",
  "NVIDIA-H100-NVL",
  "NVIDIA-H200",
  "NVIDIA-A30",
];
