// The session limit (`-maxSessions`) an orchestrator's GPUs can actually carry, with the
// arithmetic spelled out for `status.maxSessionsReason`.
import { productInfo } from "./products.ts";

/** The GPU facts of one node, read from its GPU Feature Discovery labels. */
export interface NodeGpus {
  node: string;
  product: string;
  /** Physical GPUs (`nvidia.com/gpu.count`). */
  count: number;
  /** Schedulable GPUs (`nvidia.com/gpu.replicas`); > count when time-sliced. */
  replicas: number;
  /** `nvidia.com/gpu.engines.encoder` when the node reports it. */
  encoders?: number;
}

export interface SessionCapacity {
  /** Streams one allocated GPU carries (0 = no encoder). */
  streamsPerGpu: number;
  sessions: number;
  reason: string;
}

export function nodeGpusFromLabels(node: string, labels: Record<string, string>): NodeGpus | undefined {
  const product = labels["nvidia.com/gpu.product"];
  if (!product) return undefined;
  const count = Number(labels["nvidia.com/gpu.count"] ?? "1") || 1;
  const replicas = Number(labels["nvidia.com/gpu.replicas"] ?? String(count)) || count;
  const enc = labels["nvidia.com/gpu.engines.encoder"];
  return { node, product, count, replicas, ...(enc !== undefined ? { encoders: Number(enc) } : {}) };
}

/**
 * Sessions `gpus` allocated GPUs of this node carry at `renditions` renditions per stream.
 * A consumer card carries floor(NVENC cap / renditions) streams; with a machine-wide cap that
 * is the whole machine's share. A time-sliced GPU shares its encoder among its replicas.
 */
export function capacityOn(
  node: NodeGpus,
  gpus: number,
  renditions: number,
  sessionsPerGpu?: number,
): SessionCapacity {
  const info = productInfo(node.product);
  const label = `${gpus} x ${node.product}`;
  if (!info.encoder || node.encoders === 0) {
    return { streamsPerGpu: 0, sessions: 0, reason: `${label}: no hardware video encoder -> 0` };
  }
  const sharing = Math.max(1, Math.floor(node.replicas / node.count));
  let perPhysical: number;
  let how: string;
  if (sessionsPerGpu !== undefined) {
    perPhysical = sessionsPerGpu;
    how = `spec.gpu.sessionsPerGpu ${sessionsPerGpu}`;
  } else if (info.nvencCap !== undefined) {
    perPhysical = Math.floor(info.nvencCap / renditions);
    how = `NVENC cap ${info.nvencCap} / ${renditions} renditions = ${perPhysical} streams`;
  } else {
    perPhysical = info.streamsPerGpu ?? 1;
    how = `${info.source}`;
  }
  let perGpu = perPhysical;
  if (sharing > 1) {
    perGpu = Math.max(1, Math.floor(perPhysical / sharing));
    how += `, time-sliced ${sharing} ways = ${perGpu}`;
  }
  let sessions = gpus * perGpu;
  if (info.nvencCap !== undefined && info.capScope === "machine" && sessionsPerGpu === undefined) {
    sessions = Math.min(sessions, perPhysical);
    how += ` (cap is machine-wide)`;
  }
  return { streamsPerGpu: perGpu, sessions, reason: `${label}: ${how} each -> ${sessions}` };
}

/** CPU transcoding: Livepeer's guidance is about 5 concurrent streams. */
export const CPU_SESSIONS = 5;

export interface SessionLimit {
  maxSessions: number;
  reason: string;
  /** What the GPUs can encode, when an override is above it. */
  encoderCapacity?: number;
  overrideAboveCapacity: boolean;
}

/**
 * The limit for an orchestrator: the override when given, else the most conservative capacity
 * across the nodes its pod may land on (so the node never accepts more streams than the GPUs
 * it gets can encode).
 */
export function sessionLimitFor(input: {
  gpus: number;
  candidates: NodeGpus[];
  renditions: number;
  sessionsPerGpu?: number;
  override?: number;
}): SessionLimit {
  let computed: SessionCapacity | undefined;
  if (input.gpus <= 0) {
    computed = {
      streamsPerGpu: 0,
      sessions: CPU_SESSIONS,
      reason: `CPU transcoding: ${CPU_SESSIONS} streams (Livepeer guidance)`,
    };
  } else {
    for (const node of input.candidates) {
      const c = capacityOn(node, input.gpus, input.renditions, input.sessionsPerGpu);
      if (c.sessions > 0 && (!computed || c.sessions < computed.sessions)) computed = c;
    }
  }
  if (input.override !== undefined) {
    const above = computed !== undefined && input.override > computed.sessions;
    return {
      maxSessions: input.override,
      reason: above
        ? `spec.maxSessions ${input.override} overrides; above what the GPUs can encode (${computed!.reason})`
        : `spec.maxSessions ${input.override}`,
      ...(computed ? { encoderCapacity: computed.sessions } : {}),
      overrideAboveCapacity: above,
    };
  }
  if (!computed) {
    return {
      maxSessions: 1,
      reason: "no candidate node with a video encoder: 1 until the pod is placed",
      overrideAboveCapacity: false,
    };
  }
  const pinned = input.candidates.length > 1 ? ` (lowest of ${input.candidates.length} candidate nodes)` : "";
  return {
    maxSessions: computed.sessions,
    reason: `${computed.reason}${pinned}`,
    overrideAboveCapacity: false,
  };
}
