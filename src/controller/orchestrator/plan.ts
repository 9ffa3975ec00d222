// Everything an Orchestrator should have, computed from what was observed (pure: tests compare
// built objects without a cluster). The reconciler applies the plan; status reads it.
import { createHash } from "node:crypto";
import type { V1ConfigMap, V1Service, V1StatefulSet } from "@kubernetes/client-node";
import { type FlagProblem, formatProblem, renderConfigFile, validateFlags } from "../../node/config/index.ts";
import type { StoredOrchestrator as Orchestrator } from "../../schema/orchestrator.ts";
import type { DevnetResolution } from "../devnet/deployment-config-map.ts";
import { gpuNodeRequirements, labelsMatch, placementFor } from "../gpu/placement.ts";
import { renditionsIn } from "../gpu/renditions.ts";
import {
  type NodeGpus,
  nodeGpusFromLabels,
  type SessionLimit,
  sessionLimitFor,
} from "../gpu/session-limit.ts";
import { childLabels, childNames, MOUNTS, PORTS } from "./names.ts";
import { orchestratorFlags, transcoderFlags } from "./node-flags.ts";
import type { NodeFacts, PodFacts } from "./resource.ts";
import { type Hold, rolloutHolds } from "./rollout-holds.ts";
import { SERVICE_ADDR_ANNOTATION, serviceAddressFor } from "./service-address.ts";
import { buildServices } from "./services.ts";
import {
  restartingFlags,
  SESSION_LIMIT_ANNOTATION,
  type SessionLimitChange,
  sessionLimitChange,
} from "./session-limit-live.ts";
import { buildNodeStatefulSet } from "./stateful-set.ts";

export interface PlanInput {
  orch: Orchestrator;
  nodes: NodeFacts[];
  /** The public Service as the API server reports it (for a LoadBalancer's address). */
  service?: V1Service;
  defaultImage: string;
  /** This Orchestrator's pods (a NodePort address comes from the node running the first one). */
  pods?: PodFacts[];
  /** The chain settings spec.devnet supplies (absent: spec.devnet is not used). */
  devnet?: DevnetResolution;
  /** What the node's ConfigMap records (its annotations) before this reconcile. */
  recorded?: { maxSessions?: string; serviceAddr?: string };
}

export interface Plan {
  configMaps: V1ConfigMap[];
  services: V1Service[];
  statefulSets: V1StatefulSet[];
  /** Generated once, never rotated by the controller: split setups share it with transcoders. */
  orchSecretName?: string;
  sessionLimit: SessionLimit;
  /** Absent while the address is not known and the node must not start without it. */
  serviceAddr?: string;
  /** Why the node is not serving as asked yet; some keep the rollout back. */
  holds: Hold[];
  /** A new session limit for running orchestrator pods, set live rather than by a restart. */
  sessionLimitChange?: SessionLimitChange;
  /** Flag problems: errors stop the rollout (the last good pods keep running). */
  problems: FlagProblem[];
  candidates: NodeGpus[];
}

const hash = (...parts: string[]) =>
  createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 16);

/** Nodes a pod with these requirements may land on (pool selectors from podTemplate included). */
function candidateNodes(
  nodes: NodeFacts[],
  reqs: ReturnType<typeof gpuNodeRequirements>,
  selector?: Record<string, string>,
) {
  return nodes
    .filter((n) => labelsMatch(n.metadata.labels ?? {}, reqs))
    .filter((n) => Object.entries(selector ?? {}).every(([k, v]) => n.metadata.labels?.[k] === v))
    .map((n) => nodeGpusFromLabels(n.metadata.name ?? "", n.metadata.labels ?? {}))
    .filter((n): n is NodeGpus => !!n);
}

export function planOrchestrator(input: PlanInput): Plan {
  const { orch } = input;
  const spec = orch.spec;
  const name = orch.metadata?.name ?? "";
  const namespace = orch.metadata?.namespace ?? "default";
  const names = childNames(name);
  const split = (spec.transcoders?.replicas ?? 0) > 0;
  const overrides = spec.podTemplate;
  const renditions = renditionsIn(spec.transcodingOptions);

  // Where the transcoding happens decides which GPUs size the limit.
  const gpu = split ? spec.transcoders?.gpu : spec.gpu;
  const gpuCount = gpu?.count ?? 0;
  const request = {
    count: gpuCount,
    product: gpu?.product,
    needsEncoder: true,
    runtimeClassName: overrides?.runtimeClassName,
  };
  const candidates =
    gpuCount > 0 ? candidateNodes(input.nodes, gpuNodeRequirements(request), overrides?.nodeSelector) : [];
  const sessionLimit = sessionLimitFor({
    gpus: gpuCount,
    candidates,
    renditions,
    sessionsPerGpu: gpu?.sessionsPerGpu,
    override: split ? undefined : spec.maxSessions,
  });

  // A pod being replaced still names the node its address came from.
  const podNode = input.pods?.find((p) => p.metadata?.name === `${names.statefulSet}-0` && p.spec?.nodeName)
    ?.spec?.nodeName;
  const clusterAddress = `${names.statefulSet}-0.${names.podsService}.${namespace}.svc.cluster.local:${PORTS.service}`;
  const address = serviceAddressFor({
    ...(spec.serviceAddr ? { specServiceAddr: spec.serviceAddr } : {}),
    type: spec.service?.type ?? "ClusterIP",
    ...(input.service ? { service: input.service } : {}),
    port: spec.service?.port ?? PORTS.service,
    portName: "service",
    ...(podNode ? { podNode } : {}),
    nodes: input.nodes,
    advertised: [input.recorded?.serviceAddr, orch.status?.serviceAddr].filter((a): a is string => !!a),
    clusterAddress,
  });
  const devnet: DevnetResolution = input.devnet ?? { state: "unused" };
  const maxSessions = split ? ("auto" as const) : sessionLimit.maxSessions;
  const holds = rolloutHolds(devnet, address);
  // The headless Service publishes the pod before it is Ready, so the in-cluster address answers
  // the node's own startup check; an external address may not hairpin back into the cluster.
  const selfCheckReachable = address.source === "cluster";

  const flags = orchestratorFlags({
    spec,
    ...(devnet.state === "resolved" ? { devnet } : {}),
    // Held back until known (see holds): this placeholder never reaches the cluster.
    serviceAddr: address.address ?? clusterAddress,
    selfCheckReachable,
    maxSessions,
    ...(split
      ? {}
      : { nvidiaDevices: placementFor({ ...request, count: spec.gpu?.count ?? 0 }).nvidiaDevices }),
    split,
  });
  const problems = validateFlags(flags);
  const configText = renderConfigFile(flags, {
    header: [`Rendered by livepeer-operator for Orchestrator ${namespace}/${name}; edits are overwritten.`],
  });
  const configData: Record<string, string> = { "livepeer.conf": configText };
  // The pod template's hash covers every flag but the live ones: a new session limit alone does
  // not restart the node (it is set on the running node; see session-limit-live.ts).
  const restartText = renderConfigFile(restartingFlags(flags));
  if (spec.ai?.models?.length) configData["aiModels.json"] = `${JSON.stringify(spec.ai.models, null, 2)}\n`;

  const orchLabels = childLabels(name, "orchestrator");
  const configMaps: V1ConfigMap[] = [
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: names.config,
        namespace,
        labels: orchLabels,
        annotations: {
          [SESSION_LIMIT_ANNOTATION]: String(maxSessions),
          ...(address.address ? { [SERVICE_ADDR_ANNOTATION]: address.address } : {}),
        },
      },
      data: configData,
    },
  ];
  const args = ["-config", MOUNTS.configFile, ...(spec.extraArgs ?? [])];
  const image = spec.image ?? input.defaultImage;
  const orchPlacement = placementFor({ ...request, count: split ? 0 : (spec.gpu?.count ?? 0) });
  const statefulSets: V1StatefulSet[] = [
    buildNodeStatefulSet({
      name: names.statefulSet,
      namespace,
      labels: orchLabels,
      serviceName: names.podsService,
      replicas: 1,
      image,
      args,
      configMap: names.config,
      configHash: hash(restartText, configData["aiModels.json"] ?? "", image, args.join(" ")),
      ports: [
        { name: "service", containerPort: PORTS.service },
        { name: "cli", containerPort: PORTS.cli },
      ],
      statusPort: PORTS.cli,
      placement: orchPlacement,
      ...(spec.keystoreSecret && spec.network !== "offchain" ? { keystoreSecret: spec.keystoreSecret } : {}),
      ...(split ? { orchSecret: names.orchSecret } : {}),
      ...(spec.storage ? { storage: spec.storage } : {}),
      ...(overrides ? { overrides } : {}),
    }),
  ];

  if (split && spec.transcoders) {
    const tLabels = childLabels(name, "transcoder");
    const tPlacement = placementFor(request);
    // Each transcoder reports its own capacity; the orchestrator's `auto` limit is their sum.
    const perTranscoder = sessionLimitFor({
      gpus: gpuCount,
      candidates,
      renditions,
      sessionsPerGpu: gpu?.sessionsPerGpu,
    });
    const tFlags = transcoderFlags({
      orchAddr: `${names.statefulSet}-0.${names.podsService}.${namespace}.svc.cluster.local:${PORTS.service}`,
      maxSessions: perTranscoder.maxSessions,
      ...(tPlacement.nvidiaDevices ? { nvidiaDevices: tPlacement.nvidiaDevices } : {}),
    });
    problems.push(...validateFlags(tFlags));
    const tConfig = renderConfigFile(tFlags, {
      header: [`Transcoder of Orchestrator ${namespace}/${name}.`],
    });
    configMaps.push({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: names.transcoderConfig, namespace, labels: tLabels },
      data: { "livepeer.conf": tConfig },
    });
    statefulSets.push(
      buildNodeStatefulSet({
        name: names.transcoders,
        namespace,
        labels: tLabels,
        serviceName: names.podsService,
        replicas: spec.transcoders.replicas,
        image,
        args: ["-config", MOUNTS.configFile],
        configMap: names.transcoderConfig,
        configHash: hash(tConfig, image),
        ports: [{ name: "cli", containerPort: PORTS.transcoderCli }],
        statusPort: PORTS.transcoderCli,
        placement: tPlacement,
        orchSecret: names.orchSecret,
        ...(overrides ? { overrides } : {}),
      }),
    );
    sessionLimit.reason = `auto: the sum of ${spec.transcoders.replicas} transcoder(s), each ${perTranscoder.reason}`;
    sessionLimit.maxSessions = perTranscoder.maxSessions * spec.transcoders.replicas;
  }

  const services = buildServices({
    namespace,
    selector: orchLabels,
    labels: orchLabels,
    names,
    type: spec.service?.type ?? "ClusterIP",
    port: spec.service?.port ?? PORTS.service,
    servicePort: PORTS.service,
    cliPort: PORTS.cli,
  });

  return {
    configMaps,
    services,
    statefulSets,
    ...(split ? { orchSecretName: names.orchSecret } : {}),
    sessionLimit,
    ...(address.address !== undefined ? { serviceAddr: address.address } : {}),
    holds,
    ...withChange(sessionLimitChange(maxSessions, input.recorded?.maxSessions)),
    problems,
    candidates,
  };
}

const withChange = (change: SessionLimitChange | undefined) => (change ? { sessionLimitChange: change } : {});

export const describeProblems = (problems: FlagProblem[]) => problems.map(formatProblem).join("; ");
