// One model's runner pods (pure: spec in, objects out): a Deployment of `capacity` ai-runner pods
// on GPU nodes, and the ClusterIP Service the node dials.
//
// A Deployment, not a StatefulSet: runners of one model are interchangeable (same image, same
// read-only weights, no per-pod state or identity), the node reaches them through one Service,
// and a scale change should add or remove any pod, not the highest ordinal. Rolling updates never
// surge (maxSurge 0): a surge pod would need one more GPU than the model was given.
import type { V1Deployment, V1EnvVar, V1Service, V1Volume } from "@kubernetes/client-node";
import type { AiModelSpec } from "../../schema/ai.ts";
import { AI_RUNNER_PORT } from "../../schema/ai.ts";
import type { PodTemplateOverrides } from "../../schema/pod-template.ts";
import { placementFor, runnerPodScheduling } from "../gpu/placement.ts";
import { gpuMemoryNeed } from "./model-needs.ts";
import { aiSecretName, RUNNER_CONTAINER, runnerLabels, tokenKey } from "./names.ts";
import { runnerImageFor } from "./runner-image.ts";

/** Where the runner looks for weights (go-livepeer mounts -aiModelsDir there). */
export const WEIGHTS_MOUNT = "/models";
const PROBE_PERIOD_S = 5;

export interface RunnerInput {
  name: string;
  namespace: string;
  /** The Orchestrator's name (instance label). */
  orchestrator: string;
  model: AiModelSpec;
  /** The pool fields of the Orchestrator's pod template the runners share (nodeSelector, tolerations, runtime class). */
  podTemplate?: PodTemplateOverrides;
}

export interface Runner {
  deployment: V1Deployment;
  service: V1Service;
}

/** Each runner serves one request at a time: capacity requests need capacity pods. */
export const runnerReplicas = (model: AiModelSpec) => model.capacity ?? 1;

export function buildRunner(i: RunnerInput): Runner {
  const { model } = i;
  const runner = model.runner ?? { gpus: 1, coldStartSeconds: 180 };
  const labels = runnerLabels(i.orchestrator, i.name);
  const placement = placementFor({
    count: runner.gpus,
    product: runner.gpuProduct,
    // AI needs no video encoder: A100/H100 are fine.
    needsEncoder: false,
    runtimeClassName: i.podTemplate?.runtimeClassName,
  });
  const memory = runner.gpus > 0 ? gpuMemoryNeed(model.model_id, runner.gpuMemoryMiB) : undefined;
  const terms =
    placement.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (memory && terms?.[0]) {
    // GPU Feature Discovery's label is the per-GPU memory in MiB; Gt takes one integer.
    terms[0].matchExpressions = [
      ...(terms[0].matchExpressions ?? []),
      { key: "nvidia.com/gpu.memory", operator: "Gt", values: [String(memory.mib - 1)] },
    ];
  }
  const env: V1EnvVar[] = [
    { name: "PIPELINE", value: model.pipeline },
    { name: "MODEL_ID", value: model.model_id },
    // The node sends it as a bearer token (aiModels.json token); a runner may refuse other callers.
    {
      name: "AUTH_TOKEN",
      valueFrom: { secretKeyRef: { name: aiSecretName(i.orchestrator), key: tokenKey(i.name) } },
    },
    ...Object.entries(model.optimization_flags ?? {}).map(([name, value]) => ({
      name,
      value: String(value),
    })),
  ];
  const weights: V1Volume = runner.weights?.persistentVolumeClaim
    ? {
        name: "weights",
        persistentVolumeClaim: {
          claimName: runner.weights.persistentVolumeClaim,
          readOnly: runner.weights.readOnly,
        },
      }
    : runner.weights?.hostPath
      ? { name: "weights", hostPath: { path: runner.weights.hostPath, type: "Directory" } }
      : // No volume named: the runner downloads the weights at every start (slow, but it works).
        { name: "weights", emptyDir: {} };
  const o = i.podTemplate ?? {};
  const deployment: V1Deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: i.name,
      namespace: i.namespace,
      labels,
      annotations: { "livepeer.org/ai-pipeline": model.pipeline, "livepeer.org/ai-model-id": model.model_id },
    },
    spec: {
      replicas: runnerReplicas(model),
      selector: { matchLabels: labels },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } },
      template: {
        metadata: {
          labels,
          annotations: {
            "livepeer.org/ai-pipeline": model.pipeline,
            "livepeer.org/ai-model-id": model.model_id,
          },
        },
        spec: {
          containers: [
            {
              name: RUNNER_CONTAINER,
              image: runnerImageFor(model.pipeline, runner.image),
              env,
              ports: [{ name: "http", containerPort: AI_RUNNER_PORT, protocol: "TCP" }],
              volumeMounts: [
                { name: "weights", mountPath: WEIGHTS_MOUNT, readOnly: runner.weights?.readOnly ?? false },
              ],
              ...(Object.keys(placement.limits).length ? { resources: { limits: placement.limits } } : {}),
              // Loading a model takes 30 to 120 s: until /health answers, no restart and no traffic.
              startupProbe: {
                httpGet: { path: "/health", port: AI_RUNNER_PORT },
                periodSeconds: PROBE_PERIOD_S,
                failureThreshold: Math.ceil(runner.coldStartSeconds / PROBE_PERIOD_S),
              },
              readinessProbe: {
                httpGet: { path: "/health", port: AI_RUNNER_PORT },
                periodSeconds: PROBE_PERIOD_S,
                failureThreshold: 3,
              },
              // A runner busy with a long inference may answer /health late: liveness only asks
              // whether the process listens.
              livenessProbe: { tcpSocket: { port: AI_RUNNER_PORT }, periodSeconds: 10, failureThreshold: 6 },
            },
          ],
          volumes: [weights],
          ...runnerPodScheduling(placement, o),
        },
      },
    },
  };
  const service: V1Service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: i.name, namespace: i.namespace, labels },
    spec: {
      type: "ClusterIP",
      selector: labels,
      ports: [{ name: "http", port: AI_RUNNER_PORT, targetPort: AI_RUNNER_PORT, protocol: "TCP" }],
    },
  };
  return { deployment, service };
}
