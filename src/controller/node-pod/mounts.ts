// Where a node pod finds its files, and the Secrets it may mount: one table, so the flags that
// name a path and the volumes that put a file there agree.
import type { V1Volume, V1VolumeMount } from "@kubernetes/client-node";

export const MOUNTS = {
  config: "/etc/livepeer",
  configFile: "/etc/livepeer/livepeer.conf",
  keystore: "/var/run/secrets/livepeer/keystore",
  orchSecret: "/var/run/secrets/livepeer/orch-secret",
  /** aiModels.json: a Secret, since it carries the runners' tokens. */
  aiModels: "/var/run/secrets/livepeer/ai-models",
  /** -liveRunnerConfig (static live runners): a Secret, beside the other generated files. */
  liveRunners: "/var/run/secrets/livepeer/live-runners",
  data: "/data",
  /** The pod's own annotations the node's liveness probe reads (downwardAPI, see in-place.ts). */
  podInfo: "/etc/livepeer-pod",
} as const;

/** A Secret a role may mount: the keystore (on chain), the split setup's shared secret, the AI models file. */
export type SecretMount = "keystore" | "orchSecret" | "aiModels" | "liveRunners";

/** In mount order; read-only, owner-readable only. */
const SECRET_VOLUMES: Record<SecretMount, { volume: string; mountPath: string; items?: string[] }> = {
  // Only the two files the node reads, whatever else the user's Secret holds.
  keystore: { volume: "keystore", mountPath: MOUNTS.keystore, items: ["key.json", "password"] },
  orchSecret: { volume: "orch-secret", mountPath: MOUNTS.orchSecret },
  // The node reads the file; the runners' tokens beside it in the Secret are theirs.
  aiModels: { volume: "ai-models", mountPath: MOUNTS.aiModels, items: ["aiModels.json"] },
  liveRunners: { volume: "live-runners", mountPath: MOUNTS.liveRunners, items: ["liveRunners.json"] },
};

export function secretVolume(
  mount: SecretMount,
  secretName: string,
): { volume: V1Volume; mount: V1VolumeMount } {
  const s = SECRET_VOLUMES[mount];
  return {
    volume: {
      name: s.volume,
      secret: {
        secretName,
        defaultMode: 0o400,
        ...(s.items ? { items: s.items.map((key) => ({ key, path: key })) } : {}),
      },
    },
    mount: { name: s.volume, mountPath: s.mountPath, readOnly: true },
  };
}
