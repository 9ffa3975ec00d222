// One live app's runner pods (pure: spec in, objects out): a StatefulSet of ai-runner pods on GPU
// nodes and its headless Service. A StatefulSet, not a Deployment: the node registers each runner
// by its own URL (static: runner_url and health_url in -liveRunnerConfig; dynamic: the runner
// says it in its heartbeat), so each pod needs a stable DNS name; pods start in parallel (no
// runner waits for another). Each runner serves one session at a time.
import type { V1EnvVar, V1Service, V1StatefulSet } from "@kubernetes/client-node";
import type { LiveAppSpec } from "../../schema/live-ai.ts";
import { LIVE_PIPELINE } from "../../schema/live-ai.ts";
import type { PodTemplateOverrides } from "../../schema/pod-template.ts";
import { placementFor, runnerPodScheduling } from "../gpu/placement.ts";
import { liveRunnerImageFor } from "./image.ts";
import {
  LIVE_APP_LABEL,
  LIVE_RUNNER_CONTAINER,
  LIVE_RUNNER_PORT,
  liveAppName,
  liveRunnerLabels,
} from "./names.ts";

const PROBE_PERIOD_S = 5;

/** Dynamic registration: where the runner heartbeats and the Secret holding the bootstrap secret. */
export interface DynamicRegistration {
  /** -liveRunnerAddr: the node's in-cluster URL. */
  orchestratorUrl: string;
  secretName: string;
  secretKey: string;
}

export interface LiveRunnersInput {
  name: string;
  namespace: string;
  orchestrator: string;
  app: LiveAppSpec;
  runners: number;
  /** Absent: static registration (the node polls each runner's /health). */
  dynamic?: DynamicRegistration;
  podTemplate?: PodTemplateOverrides;
}

export interface LiveRunners {
  statefulSet: V1StatefulSet;
  service: V1Service;
}

export function buildLiveRunners(i: LiveRunnersInput): LiveRunners {
  const { app } = i;
  const labels = liveRunnerLabels(i.orchestrator, app.id);
  const placement = placementFor({
    count: app.gpus,
    product: app.gpuProduct,
    // Live video AI decodes and encodes in software in the runner: A100/H100 are fine.
    needsEncoder: false,
    runtimeClassName: i.podTemplate?.runtimeClassName,
  });
  const env: V1EnvVar[] = [
    { name: "PIPELINE", value: LIVE_PIPELINE },
    { name: "MODEL_ID", value: app.id },
    { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    ...(i.dynamic
      ? [
          // What a runner SDK registers with (POST /runners/heartbeat): its own URL, app, capacity, price.
          { name: "ORCH_URL", value: i.dynamic.orchestratorUrl },
          {
            name: "ORCH_SECRET",
            valueFrom: { secretKeyRef: { name: i.dynamic.secretName, key: i.dynamic.secretKey } },
          },
          { name: "RUNNER_ID", value: "$(POD_NAME)" },
          {
            name: "RUNNER_URL",
            value: `http://$(POD_NAME).${i.name}.${i.namespace}.svc.cluster.local:${LIVE_RUNNER_PORT}`,
          },
          // The app is PIPELINE/MODEL_ID; one session at a time; the USD price the runner reports.
          { name: "CAPACITY", value: "1" },
          { name: "PRICE", value: app.price.usd },
          { name: "PRICE_UNIT", value: app.price.unit },
        ]
      : []),
  ];
  const o = i.podTemplate ?? {};
  const annotations = { [LIVE_APP_LABEL]: liveAppName(app.id) };
  const statefulSet: V1StatefulSet = {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: i.name, namespace: i.namespace, labels, annotations },
    spec: {
      replicas: i.runners,
      serviceName: i.name,
      podManagementPolicy: "Parallel",
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations },
        spec: {
          containers: [
            {
              name: LIVE_RUNNER_CONTAINER,
              image: liveRunnerImageFor(app.id, app.image),
              env,
              ports: [{ name: "http", containerPort: LIVE_RUNNER_PORT, protocol: "TCP" }],
              ...(Object.keys(placement.limits).length ? { resources: { limits: placement.limits } } : {}),
              // Warm-up: the pipeline loads before /health answers; no restart meanwhile.
              startupProbe: {
                httpGet: { path: "/health", port: LIVE_RUNNER_PORT },
                periodSeconds: PROBE_PERIOD_S,
                failureThreshold: Math.max(1, Math.ceil(app.warmUpSeconds / PROBE_PERIOD_S)),
              },
              readinessProbe: {
                httpGet: { path: "/health", port: LIVE_RUNNER_PORT },
                periodSeconds: PROBE_PERIOD_S,
                failureThreshold: 3,
              },
              livenessProbe: {
                tcpSocket: { port: LIVE_RUNNER_PORT },
                periodSeconds: 10,
                failureThreshold: 6,
              },
            },
          ],
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
      clusterIP: "None",
      // The node health-checks a warming runner by its DNS name: publish it before it is Ready.
      publishNotReadyAddresses: true,
      selector: labels,
      ports: [{ name: "http", port: LIVE_RUNNER_PORT, targetPort: LIVE_RUNNER_PORT, protocol: "TCP" }],
    },
  };
  return { statefulSet, service };
}
