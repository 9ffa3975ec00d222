// What every node resource (Orchestrator, Gateway) says about its pod: image, arguments, Service,
// data volume and pod overrides.
import { z } from "zod";
import type { TransitionRule } from "./cross-field-rule.ts";
import { objectName, QuantitySchema } from "./kubernetes-fields.ts";
import { PodTemplateOverridesSchema } from "./pod-template.ts";

export const SERVICE_TYPES = ["ClusterIP", "NodePort", "LoadBalancer"] as const;

export function serviceSpecSchema(defaultPort: number, portMeaning: string) {
  return z
    .strictObject({
      type: z
        .enum(SERVICE_TYPES)
        .default("ClusterIP")
        .describe(
          "Service type: ClusterIP (default, in-cluster only), NodePort or LoadBalancer (reachable from outside).",
        ),
      port: z
        .int()
        .min(1)
        .max(65535)
        .default(defaultPort)
        .describe(`Service port for ${portMeaning}. Default ${defaultPort}.`),
    })
    .describe("The Service in front of the node.");
}

export const StorageSpecSchema = z
  .strictObject({
    size: QuantitySchema.describe(
      "Size of the data directory volume (PersistentVolumeClaim), for example 10Gi.",
    ),
    storageClassName: objectName("StorageClass")
      .optional()
      .describe("StorageClass of the volume. Absent: the cluster's default."),
  })
  .describe(
    "A persistent data directory (-dataDir) on a PersistentVolumeClaim. Absent: an emptyDir, lost when the pod goes.",
  );

export const workloadFields = {
  image: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe(
      "Container image of the node, for example livepeer/go-livepeer:0.8.9. Absent: the operator's default go-livepeer image.",
    ),
  extraArgs: z
    .array(z.string().max(1024))
    .max(64)
    .optional()
    .describe(
      'Extra node flags added to the command line, which overrides the config file the operator renders, for example ["-v", "6"].',
    ),
  podTemplate: PodTemplateOverridesSchema.optional(),
  storage: StorageSpecSchema.optional(),
};

type StorageSpec = z.infer<typeof StorageSpecSchema>;
const sameStorage = (a: StorageSpec | undefined, b: StorageSpec | undefined) =>
  a?.size === b?.size && a?.storageClassName === b?.storageClassName;

/**
 * spec.storage is fixed once the resource exists: it becomes the StatefulSet's
 * volumeClaimTemplates, which Kubernetes refuses to change (the controller's apply would fail on
 * every reconcile). Refused at admission instead, naming the value to keep.
 */
export const storageImmutable: TransitionRule<{ storage?: StorageSpec | undefined }> = {
  rule: "has(self.storage) == has(oldSelf.storage) && (!has(self.storage) || self.storage == oldSelf.storage)",
  fieldPath: ".storage",
  reason: "FieldValueForbidden",
  message:
    "storage cannot change once the resource exists (it is the StatefulSet's volume claim template, which Kubernetes keeps fixed): set it back, or delete and re-create the resource to change it (the old PersistentVolumeClaim stays until you delete it)",
  messageExpression:
    '"storage cannot change once the resource exists (it is the StatefulSet\'s volume claim template, which Kubernetes keeps fixed): set it back to " + (has(oldSelf.storage) ? "size " + oldSelf.storage.size + (has(oldSelf.storage.storageClassName) ? " on storageClassName " + oldSelf.storage.storageClassName : "") : "none (remove storage)") + ", or delete and re-create the resource to change it (the old PersistentVolumeClaim stays until you delete it)"',
  holdsAcross: (old, next) => sameStorage(old.storage, next.storage),
};
