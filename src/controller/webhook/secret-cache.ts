// Secrets as the webhook controller caches them: which keys exist, never their values. The
// controller only needs to know that spec.sharedSecretRef resolves; the delivery side reads the
// value from the API when it signs. last-applied-configuration is dropped too, since
// `kubectl apply` puts the whole Secret, values included, in that annotation.
import type { KubeObject, ObjectMeta } from "../../kube/index.ts";

export interface SecretKeys extends KubeObject {
  metadata: ObjectMeta;
  type?: string;
  /** Names of the keys in data and stringData, sorted. */
  dataKeys: string[];
}

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

export function secretKeysOnly(secret: KubeObject): SecretKeys {
  const data = (secret.data ?? {}) as Record<string, unknown>;
  const stringData = (secret.stringData ?? {}) as Record<string, unknown>;
  const metadata: ObjectMeta = { ...secret.metadata };
  if (metadata.annotations?.[LAST_APPLIED] !== undefined) {
    const { [LAST_APPLIED]: _values, ...rest } = metadata.annotations;
    metadata.annotations = rest;
  }
  const out: SecretKeys = {
    metadata,
    dataKeys: [...new Set([...Object.keys(data), ...Object.keys(stringData)])].sort(),
  };
  if (secret.apiVersion) out.apiVersion = secret.apiVersion;
  if (secret.kind) out.kind = secret.kind;
  if (typeof secret.type === "string") out.type = secret.type;
  return out;
}
