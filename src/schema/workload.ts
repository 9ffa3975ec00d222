// What every node resource (Orchestrator, Gateway) says about its pod: image, arguments, Service,
// data volume and pod overrides.
import { z } from "zod";
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
