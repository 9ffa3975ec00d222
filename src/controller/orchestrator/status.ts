// The Orchestrator's status from what the reconciler saw (pure): conditions, findings and facts.

import { nodeVersionSupport } from "../../node/config/index.ts";
import { type Condition, ORCHESTRATOR_CONDITION_TYPES } from "../../schema/condition.ts";
import type { Finding } from "../../schema/finding.ts";
import type { StoredGateway } from "../../schema/gateway.ts";
import type { OrchestratorStatus, StoredOrchestrator } from "../../schema/orchestrator.ts";
import { runnerFindings } from "../ai/findings.ts";
import { aiReady, aiStatusOf } from "../ai/status.ts";
import { type DoctorReport, type NodeTarget, nodeReachableVerdict } from "../doctor/index.ts";
import type { OrchestratorDutyStatus } from "../duties/orchestrator-duties.ts";
import { liveAiReady, liveStatusOf } from "../live-ai/status.ts";
import { nodeImageOf } from "../node-pod/index.ts";
import type { ChainStatus } from "../node-status/chain-status.ts";
import type { NodeFacts, PodFacts } from "../node-status/facts.ts";
import { type KeystoreState, keystoreVerdict } from "../node-status/keystore.ts";
import type { PodRolloutPlan } from "../node-status/pod-rollout.ts";
import { podsScheduled, simulatedVerdict, withSince } from "../node-status/pods.ts";
import { nodeReady, warningsNote } from "../node-status/ready.ts";
import { conditionTime, ensureConditions, setCondition, type Verdict } from "../runtime/index.ts";
import type { Plan } from "./plan.ts";
import { knownPrice, quotesOf } from "./price-status.ts";

export interface Seen {
  orch: StoredOrchestrator;
  plan: Plan;
  pods: PodFacts[];
  nodes: NodeFacts[];
  /** What the node doctor saw of the node pods (absent: not looked at). */
  doctor?: { targets: NodeTarget[]; report: DoctorReport };
  keystore?: KeystoreState;
  /** What the chain says of the node (absent: not asked). */
  chain?: ChainStatus;
  /** The AI runner pods and what the runner doctor saw of them (spec.ai). */
  ai?: { runnerPods: PodFacts[]; report: DoctorReport };
  /** The live runner pods (spec.ai.live); their readings are in `ai.report`, the node's in `doctor`. */
  live?: { runnerPods: PodFacts[] };
  /** Reward assurance and declared on-chain settings (absent: not kept). */
  duties?: OrchestratorDutyStatus;
  /** The Gateways of its namespace (what each says this orchestrator quoted it). */
  gateways?: readonly StoredGateway[];
  /** What the rollout of a changed rendering does or waits for (absent: not planned). */
  rollout?: PodRolloutPlan;
}

export function scheduled(seen: Seen): Verdict {
  const { pods, plan, orch } = seen;
  const gpus = orch.spec.gpu?.count ?? 0;
  if (gpus > 0 && plan.candidates.length === 0 && !(orch.spec.transcoders?.replicas ?? 0)) {
    const want = orch.spec.gpu?.product
      ? `${gpus} x ${orch.spec.gpu.product}`
      : `${gpus} GPU(s) with a video encoder`;
    return {
      status: "False",
      reason: "NoSuitableNode",
      message: `no node offers ${want}: add such a node or change spec.gpu`,
    };
  }
  return podsScheduled(pods, seen.nodes);
}

export function ready(seen: Seen, findings: readonly Finding[] = [], ai?: Verdict): Verdict {
  const reachable = nodeReachable(seen);
  // A dual orchestrator serves video while a model loads or a runner fails: only an AI-only one
  // waits for its runners, and only its runners' errors stop it.
  const aiOnly = seen.orch.spec.ai?.only === true;
  const nodeIds = new Set((seen.doctor?.report.findings ?? []).map((f) => f.id));
  const runnerOnly = new Set(
    (seen.ai?.report.findings ?? []).map((f) => f.id).filter((id) => !nodeIds.has(id)),
  );
  return nodeReady({
    blockers: [aiOnly && ai?.status !== "True" ? ai : undefined],
    holds: seen.plan.holds,
    problems: seen.plan.problems,
    keystore: seen.keystore && keystoreVerdict(seen.keystore, seen.orch.metadata?.namespace ?? "default"),
    findings: aiOnly ? findings : findings.filter((f) => !runnerOnly.has(f.id)),
    pods: seen.pods,
    reachable,
    serving: (warnings) =>
      `all ${seen.pods.length} pod(s) Ready, the node answers (${reachable.message.replace(/^answering: /, "")})${warningsNote(warnings)}`,
  });
}

/** NodeReachable: the Ready node pods answer their endpoints (the last answer kept until read). */
export function nodeReachable({ doctor, orch }: Seen): Verdict {
  return nodeReachableVerdict(
    doctor,
    orch.metadata?.namespace ?? "default",
    orch.status?.conditions?.find((c) => c.type === "NodeReachable"),
  );
}

export function simulated({ pods, doctor, orch }: Seen): Verdict {
  return simulatedVerdict(
    pods,
    doctor?.report,
    orch.status?.conditions?.find((c) => c.type === "Simulated"),
  );
}

export function findingsOf(seen: Seen, previous: Finding[] | undefined, now: string): Finding[] {
  const { plan } = seen;
  const found: (Omit<Finding, "since"> & { since?: string })[] = [];
  if (plan.sessionLimit.overrideAboveCapacity) {
    found.push({
      id: "MaxSessionsAboveEncoderCapacity",
      severity: "warning",
      message: `${plan.sessionLimit.reason}: streams beyond the encoder's capacity will fail or fall behind real time; lower spec.maxSessions or add GPUs`,
    });
  }
  for (const p of plan.problems.filter((x) => x.severity === "warning")) {
    found.push({ id: "NodeFlagWarning", severity: "warning", message: `${p.message} - ${p.fix}` });
  }
  if (seen.keystore?.state === "trailing-newline") {
    const f = seen.keystore.finding;
    found.push({ id: f.id, severity: f.severity, message: `${f.message}. ${f.action}` });
  }
  // What the chain says wins over the same id from a log line (GatewayUnfunded): it is current.
  for (const f of [
    ...(seen.chain?.findings ?? []),
    ...(seen.duties?.findings ?? []),
    ...(seen.doctor?.report.findings ?? []),
  ])
    if (!found.some((x) => x.id === f.id)) found.push(f);
  if (seen.ai) {
    const videoNode = seen.pods.find(
      (p) => p.metadata?.labels?.["app.kubernetes.io/component"] === "orchestrator",
    )?.spec?.nodeName;
    for (const f of runnerFindings(seen.ai.report.findings, seen.ai.runnerPods, videoNode))
      if (!found.some((x) => x.id === f.id)) found.push(f);
  }
  return withSince(found, previous, now);
}

export type OwnedStatus = Pick<
  OrchestratorStatus,
  | "observedGeneration"
  | "conditions"
  | "findings"
  | "maxSessions"
  | "maxSessionsReason"
  | "node"
  | "gpuProduct"
  | "serviceAddr"
  | "serviceURI"
  | "balance"
  | "activeSet"
  | "lastRewardRound"
  | "pricePerUnit"
  | "pixelsPerUnit"
  | "priceSource"
  | "quotes"
  | "ai"
  | "reward"
  | "onchain"
  | "rollout"
>;

export function computeStatus(seen: Seen, now: Date): OwnedStatus {
  const generation = seen.orch.metadata?.generation;
  const ctx = { generation, now };
  let conditions: Condition[] = ensureConditions(
    seen.orch.status?.conditions,
    [...ORCHESTRATOR_CONDITION_TYPES],
    ctx,
  );
  const findings = findingsOf(seen, seen.orch.status?.findings, conditionTime(now));
  const ai = aiStatusOf({
    models: seen.plan.ai?.models ?? [],
    runnerPods: seen.ai?.runnerPods ?? [],
    readings: seen.ai?.report.readings ?? [],
  });
  const aiVerdict = aiReady(ai);
  if (!aiVerdict) conditions = conditions.filter((c) => c.type !== "AIReady");
  const live = liveStatusOf({
    plan: seen.plan.live,
    runnerPods: seen.live?.runnerPods ?? [],
    runnerReadings: seen.ai?.report.readings ?? [],
    node: seen.doctor?.report.readings.find((r) => r.live)?.live,
  });
  const liveVerdict = liveAiReady(live);
  if (!liveVerdict) conditions = conditions.filter((c) => c.type !== "LiveAIReady");
  for (const [type, verdict] of [
    ["Scheduled", scheduled(seen)],
    ["NodeReachable", nodeReachable(seen)],
    ["Ready", ready(seen, findings, aiVerdict)],
    ...(aiVerdict ? [["AIReady", aiVerdict] as const] : []),
    ...(liveVerdict ? [["LiveAIReady", liveVerdict] as const] : []),
    ["Simulated", simulated(seen)],
    ["NodeVersionSupported", nodeVersionSupport(nodeImageOf(seen.plan.statefulSets?.[0]))],
    ...(seen.chain?.conditions ?? []),
    ...(seen.duties?.conditions ?? []),
    ...(seen.rollout ? [["RolloutPending", seen.rollout.verdict] as const] : []),
  ] as const) {
    conditions = setCondition(conditions, { type, ...verdict }, ctx);
  }
  const first =
    seen.pods.find((p) => p.metadata?.labels?.["app.kubernetes.io/component"] === "orchestrator") ??
    seen.pods[0];
  const node = first?.spec?.nodeName;
  const product = seen.nodes.find((n) => n.metadata.name === node)?.metadata.labels?.[
    "nvidia.com/gpu.product"
  ];
  return {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions,
    findings,
    maxSessions: seen.plan.sessionLimit.maxSessions,
    maxSessionsReason: seen.plan.sessionLimit.reason,
    ...(node ? { node } : {}),
    ...(product ? { gpuProduct: product } : {}),
    serviceAddr: seen.plan.serviceAddr,
    ...seen.chain?.facts,
    ...knownPrice(seen),
    ...quotesOf(seen),
    ...(ai || live ? { ai: { models: ai?.models ?? [], ...(live ? { live } : {}) } } : {}),
    ...(seen.duties?.reward && Object.keys(seen.duties.reward).length ? { reward: seen.duties.reward } : {}),
    ...(seen.duties?.onchain ? { onchain: seen.duties.onchain } : {}),
    ...(seen.rollout ? { rollout: seen.rollout.status } : {}),
  };
}
