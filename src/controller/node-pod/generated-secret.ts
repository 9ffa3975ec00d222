// Secrets the operator generates for a node (the split setup's orchestrator secret, which its
// transcoders present): built by a pure function from the value, which the reconciler draws once
// and never rotates (a new one would lock out every running transcoder).
import { randomBytes } from "node:crypto";
import type { V1Secret } from "@kubernetes/client-node";
import { MANAGED_BY } from "./names.ts";

export interface GeneratedSecretInput {
  name: string;
  namespace: string | undefined;
  /** Key -> value (stringData: the API server encodes it). */
  values: Record<string, string>;
  /** What others may read without the values (a token's digest, say). */
  annotations?: Record<string, string>;
}

export function generatedSecret(i: GeneratedSecretInput): V1Secret {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: i.name,
      namespace: i.namespace,
      labels: { [MANAGED_BY.label]: MANAGED_BY.value },
      ...(i.annotations ? { annotations: i.annotations } : {}),
    },
    type: "Opaque",
    stringData: i.values,
  };
}

/** 256 random bits, hex: what a generated secret holds. */
export const newSecretValue = (): string => randomBytes(32).toString("hex");
