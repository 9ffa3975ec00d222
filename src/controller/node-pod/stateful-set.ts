// A node's StatefulSet: spec in, object out (applied by the reconciler).
import type {
  V1Container,
  V1EnvVar,
  V1PersistentVolumeClaim,
  V1StatefulSet,
  V1Volume,
  V1VolumeMount,
} from "@kubernetes/client-node";
import type { z } from "zod";
import type { PodTemplateOverrides } from "../../schema/pod-template.ts";
import type { StorageSpecSchema } from "../../schema/workload.ts";
import type { PodPlacement } from "../gpu/placement.ts";
import {
  livenessScript,
  POD_HASH,
  POD_INFO,
  RESTARTS_AT_REQUEST,
  RUNNING,
  STARTED_ENV,
  WANTED,
} from "./in-place.ts";
import { MOUNTS, type SecretMount, secretVolume } from "./mounts.ts";

export type StorageSpec = z.infer<typeof StorageSpecSchema>;

export interface NodeStatefulSetInput {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  serviceName: string;
  replicas: number;
  image: string;
  /** Flags only the command line can carry (the rest is in the config file). */
  args: string[];
  env?: V1EnvVar[];
  configMap: string;
  /**
   * Hash of what the pod reads at start from outside the ConfigMap (the Secret-mounted files): a
   * change is a new revision, a new pod. The ConfigMap's own changes restart the node in place.
   */
  podHash: string;
  ports: { name: string; containerPort: number }[];
  /** Port whose `/status` answers once the node is up (the CLI port). */
  statusPort: number;
  placement: PodPlacement;
  /** Secrets to mount, in this order. */
  secrets: [SecretMount, string][];
  storage?: StorageSpec;
  overrides?: PodTemplateOverrides;
}

/** The in-place restart's pod annotations are the controller's alone (in-place.ts). */
const withoutOurs = (a: Record<string, string> | undefined) =>
  Object.fromEntries(
    Object.entries(a ?? {}).filter(([k]) => ![WANTED, RUNNING, RESTARTS_AT_REQUEST].includes(k)),
  );

export function buildNodeStatefulSet(input: NodeStatefulSetInput): V1StatefulSet {
  // Both without subPath: the kubelet refreshes them in the running pod (see in-place.ts).
  const volumes: V1Volume[] = [
    { name: "config", configMap: { name: input.configMap } },
    {
      name: POD_INFO.volume,
      downwardAPI: {
        items: [{ path: POD_INFO.wantedFile, fieldRef: { fieldPath: `metadata.annotations['${WANTED}']` } }],
      },
    },
  ];
  const mounts: V1VolumeMount[] = [
    { name: "config", mountPath: MOUNTS.config, readOnly: true },
    { name: POD_INFO.volume, mountPath: POD_INFO.mountPath, readOnly: true },
    { name: "data", mountPath: MOUNTS.data },
  ];
  for (const [mount, secretName] of input.secrets) {
    const s = secretVolume(mount, secretName);
    volumes.push(s.volume);
    mounts.push(s.mount);
  }
  let claims: V1PersistentVolumeClaim[] | undefined;
  if (input.storage) {
    claims = [
      {
        metadata: { name: "data", labels: input.labels },
        spec: {
          accessModes: ["ReadWriteOnce"],
          resources: { requests: { storage: input.storage.size } },
          ...(input.storage.storageClassName ? { storageClassName: input.storage.storageClassName } : {}),
        },
      },
    ];
  } else {
    volumes.push({ name: "data", emptyDir: {} });
  }
  const o = input.overrides ?? {};
  const limits = { ...o.resources?.limits, ...input.placement.limits };
  // The restart request as it was when the container started (the kubelet evaluates it then).
  const started: V1EnvVar = {
    name: STARTED_ENV,
    valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${WANTED}']` } },
  };
  const container: V1Container = {
    name: "livepeer",
    image: input.image,
    args: input.args,
    env: [...(input.env ?? []), started],
    ports: input.ports.map((p) => ({ ...p, protocol: "TCP" })),
    volumeMounts: mounts,
    resources: {
      ...(o.resources?.requests ? { requests: o.resources.requests } : {}),
      ...(Object.keys(limits).length ? { limits } : {}),
    },
    // The CLI port's /status answers once the node has started; the service port speaks TLS+gRPC.
    readinessProbe: {
      httpGet: { path: "/status", port: input.statusPort },
      periodSeconds: 5,
      failureThreshold: 3,
    },
    // The former tcpSocket check of the status port, and the in-place restart (in-place.ts).
    livenessProbe: {
      exec: { command: ["/bin/sh", "-c", livenessScript(input.statusPort)] },
      initialDelaySeconds: 30,
      periodSeconds: 10,
      timeoutSeconds: 5,
      failureThreshold: 6,
    },
  };
  const tolerations = [...input.placement.tolerations, ...(o.tolerations ?? [])];
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: input.name, namespace: input.namespace, labels: input.labels },
    spec: {
      replicas: input.replicas,
      serviceName: input.serviceName,
      selector: { matchLabels: input.labels },
      podManagementPolicy: "Parallel",
      // The operator replaces pods itself, one at a time and each once its sessions have ended
      // (spec.rollout, node-status/pod-rollout.ts): the StatefulSet must not roll them mid-stream.
      updateStrategy: { type: "OnDelete" },
      ...(claims
        ? {
            volumeClaimTemplates: claims,
            persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
          }
        : {}),
      template: {
        metadata: {
          labels: { ...o.labels, ...input.labels },
          annotations: { ...withoutOurs(o.annotations), [POD_HASH]: input.podHash },
        },
        spec: {
          containers: [container],
          volumes,
          ...(input.placement.affinity ? { affinity: input.placement.affinity } : {}),
          ...(tolerations.length ? { tolerations } : {}),
          ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
          ...(o.runtimeClassName || input.placement.runtimeClassName
            ? { runtimeClassName: o.runtimeClassName ?? input.placement.runtimeClassName }
            : {}),
          ...(o.serviceAccountName ? { serviceAccountName: o.serviceAccountName } : {}),
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          terminationGracePeriodSeconds: 30,
        },
      },
    },
  };
}
