// What a user may change in the pod the operator builds: bounded and typed, so a typo is an error
// and not a silently ignored field.
import { z } from "zod";
import { withRules } from "./cross-field-rule.ts";
import { objectName, QuantitySchema, stringMap } from "./kubernetes-fields.ts";

export const TolerationSchema = z
  .strictObject({
    key: z
      .string()
      .max(317)
      .optional()
      .describe(
        "Taint key to tolerate, for example nvidia.com/gpu. Empty with operator Exists: every taint.",
      ),
    operator: z
      .enum(["Exists", "Equal"])
      .optional()
      .describe("Exists (any value) or Equal (value must match). Default Equal."),
    value: z.string().max(63).optional().describe("Taint value to match when operator is Equal."),
    effect: z
      .enum(["NoSchedule", "PreferNoSchedule", "NoExecute"])
      .optional()
      .describe("Taint effect to match: NoSchedule, PreferNoSchedule or NoExecute. Empty: every effect."),
    tolerationSeconds: z
      .int()
      .optional()
      .describe("For NoExecute: seconds the pod stays bound after the taint appears. Absent: forever."),
  })
  .describe("A toleration added to the pod (the operator already tolerates nvidia.com/gpu for GPU pods).");

const ResourceMap = (what: string) =>
  z
    .record(z.string().min(1).max(317), QuantitySchema)
    .describe(
      `${what} by resource name, for example {cpu: "2", memory: 4Gi}. GPUs come from spec.gpu.count, not from here.`,
    );

export const ResourcesSchema = z
  .strictObject({
    requests: ResourceMap("Resources the scheduler reserves for the node container,").optional(),
    limits: ResourceMap("Most the node container may use,").optional(),
  })
  .describe("CPU and memory of the node container.");

export const EnvVarSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(256)
      .regex(/^[-._a-zA-Z][-._a-zA-Z0-9]*$/)
      .describe("Variable name, for example LP_VERBOSITY (the node reads LP_<FLAG> for any flag)."),
    value: z.string().max(32768).describe("Variable value."),
  })
  .describe("An environment variable of the node container.");

const PodTemplateBase = z
  .strictObject({
    labels: stringMap("Labels added to the pod (the operator's own labels win on conflict).", 63).optional(),
    annotations: stringMap("Annotations added to the pod.", 65536).optional(),
    nodeSelector: stringMap(
      "Node labels the pod requires, added to the operator's GPU requirements, for example {topology.kubernetes.io/zone: eu-west-1a}.",
      63,
    ).optional(),
    tolerations: z.array(TolerationSchema).max(32).optional().describe("Tolerations added to the pod's own."),
    resources: ResourcesSchema.optional(),
    runtimeClassName: objectName("RuntimeClass")
      .optional()
      .describe(
        "RuntimeClass of the pod, for example nvidia where NVIDIA's runtime is not containerd's default.",
      ),
    priorityClassName: objectName("PriorityClass").optional().describe("PriorityClass of the pod."),
    serviceAccountName: objectName("ServiceAccount")
      .optional()
      .describe("ServiceAccount the pod runs as. Absent: the namespace's default."),
    env: z
      .array(EnvVarSchema)
      .max(64)
      .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] })
      .optional()
      .describe("Extra environment variables of the node container."),
  })
  .describe(
    "Overrides for the pod the operator builds: labels, annotations, node selection, tolerations, CPU/memory, runtime class, priority, service account and environment.",
  );

export const PodTemplateOverridesSchema = withRules(PodTemplateBase, [
  {
    rule: "!has(self.resources) || !has(self.resources.limits) || !('nvidia.com/gpu' in self.resources.limits)",
    fieldPath: ".resources.limits",
    reason: "FieldValueForbidden",
    message: "GPUs are set with gpu.count, not podTemplate.resources.limits: remove nvidia.com/gpu here",
    messageExpression:
      '"podTemplate.resources.limits sets nvidia.com/gpu: GPUs are set with gpu.count (the operator adds the limit, the GPU toleration and -nvidia): remove nvidia.com/gpu here and set gpu.count"',
    holds: (p) => p.resources?.limits?.["nvidia.com/gpu"] === undefined,
  },
]);

export type PodTemplateOverrides = z.infer<typeof PodTemplateOverridesSchema>;
