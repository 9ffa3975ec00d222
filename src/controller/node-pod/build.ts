// The one node-pod builder: given a role, the spec's pod fields and the facts its flags need, the
// node's flags, its config-file ConfigMap, StatefulSet and Services (pure: tests compare built
// objects without a cluster). Only `-config` and spec.extraArgs are on the command line: the
// command line overrides the config file, so everything the operator decides is in the file.
import { createHash } from "node:crypto";
import type { V1ConfigMap, V1EnvVar, V1Service, V1StatefulSet } from "@kubernetes/client-node";
import {
  type FlagProblem,
  type FlagValues,
  flagsMissingInRelease,
  renderConfigFile,
  validateFlags,
} from "../../node/config/index.ts";
import type { PodTemplateOverrides } from "../../schema/pod-template.ts";
import { placementFor } from "../gpu/placement.ts";
import { liveFlagNames, recordedLive } from "../live/settings.ts";
import { CONFIG_HASH_ANNOTATION, CONFIG_HASH_KEY } from "./in-place.ts";
import { MOUNTS, type SecretMount } from "./mounts.ts";
import { nodeChildNames, nodeLabels } from "./names.ts";
import type { NodePodRole } from "./role.ts";
import { buildNodeServices, type PublicService } from "./services.ts";
import { buildNodeStatefulSet, type StorageSpec } from "./stateful-set.ts";

export interface NodePodInput<Facts> {
  /** The children are named after it (see nodeChildNames). */
  name: string;
  namespace: string;
  /** Name of the resource the node belongs to: `app.kubernetes.io/instance` of children and pods. */
  instance: string;
  replicas: number;
  image: string;
  /** spec.extraArgs: on the command line after `-config`, so they override the file. */
  extraArgs?: readonly string[];
  /** What the role's flags function reads. */
  facts: Facts;
  /**
   * Flags that must not be in the ConfigMap, as the node's LP_<FLAG> variables from a Secret (a
   * gateway's hook URLs carry its token).
   */
  env?: V1EnvVar[];
  /** GPUs per pod the spec asks for (absent or 0: none). */
  gpu?: { count?: number; product?: string };
  /** Secret names by mount: the pod mounts those its role lists. */
  secrets?: Partial<Record<SecretMount, string>>;
  storage?: StorageSpec;
  podTemplate?: PodTemplateOverrides;
  /** The Service publishing the role's public ports (default: ClusterIP on the container ports). */
  service?: PublicService;
  /** Files mounted beside the config file, by name (aiModels.json). */
  files?: Record<string, string>;
  /** Annotations of the ConfigMap: what it holds, read back by the next reconcile. */
  configAnnotations?: Record<string, string>;
  /** Another node's headless Service the pods join (transcoders join their orchestrator's). */
  governingService?: string;
  /**
   * What the pod reads at start from outside the ConfigMap (a mounted Secret's file, without its
   * secrets): a change is a new pod (a Secret volume's refresh is not tied to the ConfigMap's).
   */
  podInputs?: readonly string[];
}

export interface NodePod {
  flags: FlagValues;
  /** Errors stop the rollout (the last good pods keep running); warnings are findings. */
  problems: FlagProblem[];
  configMap: V1ConfigMap;
  /** Hash of what the node reads from the ConfigMap: a change restarts it in place (in-place.ts). */
  configHash: string;
  statefulSet: V1StatefulSet;
  services: V1Service[];
}

const CONFIG_FILE = "livepeer.conf";

const podHash = (parts: readonly string[]) =>
  createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 16);

const without = (flags: FlagValues, names: readonly string[]): FlagValues =>
  Object.fromEntries(Object.entries(flags).filter(([name]) => !names.includes(name)));

/** The image a node's StatefulSet runs (its node container, the first). */
export function nodeImageOf(statefulSet: V1StatefulSet | undefined): string {
  return statefulSet?.spec?.template.spec?.containers[0]?.image ?? "";
}

export function buildNodePod<Facts>(role: NodePodRole<Facts>, input: NodePodInput<Facts>): NodePod {
  const { namespace } = input;
  const names = nodeChildNames(input.name);
  const labels = nodeLabels(input.instance, role.component);
  const placement = placementFor({
    count: role.gpu === "none" ? 0 : (input.gpu?.count ?? 0),
    product: input.gpu?.product,
    needsEncoder: role.gpu === "video-encoder",
    runtimeClassName: input.podTemplate?.runtimeClassName,
  });
  const flags = role.flags(
    input.facts,
    placement.nvidiaDevices ? { nvidiaDevices: placement.nvidiaDevices } : {},
  );
  const config = renderConfigFile(flags, { header: [role.configHeader(`${namespace}/${input.instance}`)] });
  const files = input.files ?? {};
  const args = ["-config", MOUNTS.configFile, ...(input.extraArgs ?? [])];
  // The ConfigMap's part restarts the node in place; the rest is in the template (a new pod).
  const configHash = podHash(
    role.configInputs({
      config,
      restartConfig: renderConfigFile(without(flags, liveFlagNames(role.live))),
      files,
    }),
  );
  const podInputsHash = podHash([input.image, args.join(" "), ...(input.podInputs ?? [])]);
  const configMap: V1ConfigMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: names.config,
      namespace,
      labels,
      ...annotationsOf({
        ...input.configAnnotations,
        ...recordedLive(role.live, flags, files),
        [CONFIG_HASH_ANNOTATION]: configHash,
      }),
    },
    data: { [CONFIG_FILE]: config, ...files, [CONFIG_HASH_KEY]: configHash },
  };
  const statefulSet = buildNodeStatefulSet({
    name: names.statefulSet,
    namespace,
    labels,
    serviceName: input.governingService ?? names.podsService,
    replicas: input.replicas,
    image: input.image,
    args,
    ...(input.env?.length ? { env: input.env } : {}),
    configMap: names.config,
    podHash: podInputsHash,
    ports: role.ports.map(({ name, containerPort }) => ({ name, containerPort })),
    statusPort: statusPortOf(role),
    placement,
    secrets: role.secrets.flatMap((mount) => {
      const secret = input.secrets?.[mount];
      return secret ? [[mount, secret] as [SecretMount, string]] : [];
    }),
    ...(input.storage ? { storage: input.storage } : {}),
    ...(input.podTemplate ? { overrides: input.podTemplate } : {}),
  });
  const services = buildNodeServices({
    namespace,
    labels,
    names,
    ports: role.ports,
    service: input.service ?? { type: "ClusterIP" },
  });
  // The image's go-livepeer release must have every flag it is given (it exits on an unknown one).
  const problems = [...validateFlags(flags), ...flagsMissingInRelease(flags, input.image, args)];
  return { flags, problems, configMap, configHash, statefulSet, services };
}

const annotationsOf = (a: Record<string, string>) => (Object.keys(a).length ? { annotations: a } : {});

function statusPortOf(role: NodePodRole<unknown>): number {
  const port = role.ports.find((p) => p.name === role.statusPort);
  if (!port) throw new Error(`role ${role.component}: statusPort ${role.statusPort} is not one of its ports`);
  return port.containerPort;
}
