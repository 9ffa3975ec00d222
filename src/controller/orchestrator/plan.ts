// Everything an Orchestrator should have, computed from what was observed (pure: tests compare
// built objects without a cluster). The reconciler applies the plan; status reads it. The pods
// and their config come from the node-pod builder (roles in roles.ts); what is decided here is the
// Orchestrator's own: the session limit its GPUs carry, the address gateways use, and what holds
// the rollout back.
import type { V1ConfigMap, V1Service, V1StatefulSet } from "@kubernetes/client-node";
import { type FlagProblem, type FlagValues, formatProblem } from "../../node/config/index.ts";
import type { StoredOrchestrator as Orchestrator, OrchestratorSpec } from "../../schema/orchestrator.ts";
import { type AiPlan, aiSecretName, planAi } from "../ai/index.ts";
import type { DevnetResolution } from "../devnet/deployment-config-map.ts";
import { gpuNodeRequirements, labelsMatch } from "../gpu/placement.ts";
import { renditionsIn } from "../gpu/renditions.ts";
import {
  type NodeGpus,
  nodeGpusFromLabels,
  type SessionLimit,
  sessionLimitFor,
} from "../gpu/session-limit.ts";
import { type LiveChange, liveChanges } from "../live/settings.ts";
import { liveRunnersSecretName } from "../live-ai/names.ts";
import { type LiveAiPlan, planLiveAi } from "../live-ai/plan.ts";
import { buildNodePod, type NodePod } from "../node-pod/index.ts";
import type { NodeFacts, PodFacts } from "../node-status/facts.ts";
import { devnetHold, type Hold } from "../node-status/holds.ts";
import { keystoreSecretOf } from "../node-status/keystore.ts";
import { childNames, ORCH_SECRET_KEY, PORTS } from "./names.ts";
import { orchestratorLive, orchestratorRole, TRANSCODER } from "./roles.ts";
import { SERVICE_ADDR_ANNOTATION, type ServiceAddress, serviceAddressFor } from "./service-address.ts";

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
  recorded?: Record<string, string>;
  /** The AI runners' tokens the AI Secret holds, by runner (drawn once, never rotated). */
  aiTokens?: Readonly<Record<string, string>>;
  /** Draws a token for a new runner. */
  newToken?: () => string;
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
  /** New settings (session limit, price) for running orchestrator pods, set live rather than by a restart. */
  liveChanges: LiveChange[];
  /** The orchestrator's flags, which the live changes take their values from. */
  orchestratorFlags: FlagValues;
  /** Flag problems: errors stop the rollout (the last good pods keep running). */
  problems: FlagProblem[];
  candidates: NodeGpus[];
  /** The AI side: runner Deployments and Services, the aiModels.json Secret. */
  ai: AiPlan;
  /** Live AI: each app's runner StatefulSet and Service, the registration. */
  live: LiveAiPlan;
}

export function planOrchestrator(input: PlanInput): Plan {
  const { orch } = input;
  const { spec } = orch;
  const name = orch.metadata?.name ?? "";
  const namespace = orch.metadata?.namespace ?? "default";
  const names = childNames(name);
  const split = (spec.transcoders?.replicas ?? 0) > 0;
  const clusterAddress = `${names.statefulSet}-0.${names.podsService}.${namespace}.svc.cluster.local:${PORTS.service}`;
  const live = planLiveAi({
    orch,
    nodes: input.nodes,
    orchestratorUrl: `https://${clusterAddress}`,
    orchSecret: { name: names.orchSecret, key: ORCH_SECRET_KEY },
  });
  // Dynamic runners register with the orchestrator secret; a live-only node (no -transcoder, no
  // -aiWorker) needs one to start at all.
  const liveOrchSecret =
    live.registration === "dynamic" ||
    (live.registration === "static" && spec.ai?.only === true && !spec.ai.models?.length);
  const limits = withLiveCapacity(sessionLimits(spec, input.nodes), live);
  const address = serviceAddress(input, `${names.statefulSet}-0`, clusterAddress);
  const devnet: DevnetResolution = input.devnet ?? { state: "unused" };
  const maxSessions = split ? ("auto" as const) : limits.sessionLimit.maxSessions;
  const ai = planAi({
    orch,
    tokens: input.aiTokens ?? {},
    newToken: input.newToken ?? (() => ""),
  });
  const pod = {
    namespace,
    instance: name,
    image: spec.image ?? input.defaultImage,
    podTemplate: spec.podTemplate,
    secrets: {
      keystore: keystoreSecretOf(orch),
      orchSecret: split ? names.orchSecret : undefined,
      aiModels: ai.secret ? aiSecretName(name) : undefined,
    },
  };
  const orchestratorSecrets = {
    ...pod.secrets,
    orchSecret: split || liveOrchSecret ? names.orchSecret : undefined,
    liveRunners: live.secret ? liveRunnersSecretName(name) : undefined,
  };
  const nodes: NodePod[] = [
    buildNodePod(orchestratorRole(spec.network), {
      ...pod,
      secrets: orchestratorSecrets,
      name,
      replicas: 1,
      extraArgs: spec.extraArgs,
      // In a split setup the transcoders have the GPUs.
      gpu: split ? undefined : spec.gpu,
      storage: spec.storage,
      service: {
        type: spec.service?.type ?? "ClusterIP",
        ports: { service: spec.service?.port ?? PORTS.service },
      },
      facts: {
        spec,
        ...(devnet.state === "resolved" ? { devnet } : {}),
        // Held back until known (see holds): this placeholder never reaches the cluster.
        serviceAddr: address.address ?? clusterAddress,
        // The headless Service publishes the pod before it is Ready, so the in-cluster address
        // answers the node's own startup check; an external address may not hairpin back.
        selfCheckReachable: address.source === "cluster",
        maxSessions,
        split,
        ...(live.registration
          ? {
              live: {
                registration: live.registration,
                liveRunnerAddr: `https://${clusterAddress}`,
                orchSecret: liveOrchSecret,
              },
            }
          : {}),
      },
      // aiModels.json is in the AI Secret (it carries tokens); its token-free text rolls the pod,
      // as the live runners' registration does (the node reads -liveRunnerConfig at start).
      ...(ai.podInput || live.podInput ? { podInputs: [ai.podInput, live.podInput].filter(Boolean) } : {}),
      configAnnotations: {
        ...(address.address ? { [SERVICE_ADDR_ANNOTATION]: address.address } : {}),
      },
    }),
  ];
  if (split && spec.transcoders && limits.perTranscoder) {
    nodes.push(
      buildNodePod(TRANSCODER, {
        ...pod,
        name: names.transcoders,
        replicas: spec.transcoders.replicas,
        gpu: spec.transcoders.gpu,
        governingService: names.podsService,
        facts: { orchAddr: clusterAddress, maxSessions: limits.perTranscoder.maxSessions },
      }),
    );
  }

  return {
    configMaps: nodes.map((n) => n.configMap),
    services: nodes.flatMap((n) => n.services),
    statefulSets: nodes.map((n) => n.statefulSet),
    ...(split || liveOrchSecret ? { orchSecretName: names.orchSecret } : {}),
    sessionLimit: limits.sessionLimit,
    ...(address.address !== undefined ? { serviceAddr: address.address } : {}),
    holds: rolloutHolds(devnet, address),
    liveChanges: liveChanges(orchestratorLive(spec.network), nodes[0]!.flags, input.recorded),
    orchestratorFlags: nodes[0]!.flags,
    problems: nodes.flatMap((n) => n.problems),
    candidates: limits.candidates,
    ai,
    live,
  };
}

/**
 * Live sessions are the live runners' (go-livepeer's registry counts them, one per runner), not
 * -maxSessions' (transcoding): the reason says both, and the GPUs the runners take were left out
 * of the one-per-GPU count (live-ai/capacity.ts).
 */
function withLiveCapacity<T extends { sessionLimit: SessionLimit }>(limits: T, live: LiveAiPlan): T {
  if (!live.registration) return limits;
  const gpus = live.apps.reduce((sum, a) => sum + a.count.gpus, 0);
  return {
    ...limits,
    sessionLimit: {
      ...limits.sessionLimit,
      reason: `${limits.sessionLimit.reason}; live AI: ${live.capacity} session(s) on ${live.capacity} runner pod(s) with ${gpus} GPU(s) of their own, counted by the node's live runner registry, not -maxSessions`,
    },
  };
}

/**
 * The session limit, from the GPUs that transcode (the orchestrator's, or in a split setup each
 * transcoder's: the orchestrator's `auto` limit is their sum) and the nodes they may land on.
 */
function sessionLimits(spec: OrchestratorSpec, nodes: NodeFacts[]) {
  const replicas = spec.transcoders?.replicas ?? 0;
  const gpu = replicas > 0 ? spec.transcoders?.gpu : spec.gpu;
  const gpus = gpu?.count ?? 0;
  const required = gpuNodeRequirements({ count: gpus, product: gpu?.product, needsEncoder: true });
  const candidates = gpus > 0 ? candidateNodes(nodes, required, spec.podTemplate?.nodeSelector) : [];
  const limit = {
    gpus,
    candidates,
    renditions: renditionsIn(spec.transcodingOptions),
    sessionsPerGpu: gpu?.sessionsPerGpu,
  };
  if (replicas === 0)
    return { sessionLimit: sessionLimitFor({ ...limit, override: spec.maxSessions }), candidates };
  const perTranscoder = sessionLimitFor(limit);
  const sessionLimit: SessionLimit = {
    ...perTranscoder,
    reason: `auto: the sum of ${replicas} transcoder(s), each ${perTranscoder.reason}`,
    maxSessions: perTranscoder.maxSessions * replicas,
  };
  return { sessionLimit, candidates, perTranscoder };
}

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

/** The address gateways use; a pod being replaced still names the node its address came from. */
function serviceAddress(input: PlanInput, firstPod: string, clusterAddress: string): ServiceAddress {
  const { spec, status } = input.orch;
  const podNode = input.pods?.find((p) => p.metadata?.name === firstPod && p.spec?.nodeName)?.spec?.nodeName;
  return serviceAddressFor({
    ...(spec.serviceAddr ? { specServiceAddr: spec.serviceAddr } : {}),
    type: spec.service?.type ?? "ClusterIP",
    ...(input.service ? { service: input.service } : {}),
    port: spec.service?.port ?? PORTS.service,
    portName: "service",
    ...(podNode ? { podNode } : {}),
    nodes: input.nodes,
    advertised: [input.recorded?.[SERVICE_ADDR_ANNOTATION], status?.serviceAddr].filter(
      (a): a is string => !!a,
    ),
    clusterAddress,
  });
}

/** A devnet deployment that cannot be read; a service address the cluster has not reported. */
function rolloutHolds(devnet: DevnetResolution, address: ServiceAddress): Hold[] {
  const holds: Hold[] = [];
  const devnetHeld = devnetHold(devnet);
  if (devnetHeld) holds.push(devnetHeld);
  if (address.pending) {
    holds.push({
      reason: "ServiceAddressPending",
      message: address.pending,
      blocksRollout: address.holdRollout,
    });
  }
  return holds;
}

export const describeProblems = (problems: FlagProblem[]) => problems.map(formatProblem).join("; ");
