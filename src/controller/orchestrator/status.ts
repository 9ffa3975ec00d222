// The Orchestrator's status from what the reconciler saw (pure): conditions, findings and facts.
import type { Finding } from "../../schema/finding.ts";
import type { OrchestratorStatus } from "../../schema/orchestrator.ts";
import { type Condition, ensureConditions, setCondition } from "../runtime/index.ts";
import type { Plan } from "./plan.ts";
import type { NodeFacts, Orchestrator, PodFacts } from "./resource.ts";

export const SIMULATED_ANNOTATION = "livepeer.org/simulated";

export interface Seen {
  orch: Orchestrator;
  plan: Plan;
  pods: PodFacts[];
  nodes: NodeFacts[];
}

type Verdict = { status: "True" | "False" | "Unknown"; reason: string; message: string };

const podReady = (p: PodFacts) =>
  p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

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
  if (pods.length === 0)
    return { status: "Unknown", reason: "PodPending", message: "waiting for the node pod to be created" };
  const unschedulable = pods
    .map((p) => ({
      p,
      c: p.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False"),
    }))
    .find((x) => x.c);
  if (unschedulable?.c) {
    return {
      status: "False",
      reason: "Unschedulable",
      message: `pod ${unschedulable.p.metadata?.name}: ${unschedulable.c.message ?? "the scheduler found no node"}`,
    };
  }
  const placed = pods.filter((p) => p.spec?.nodeName);
  if (placed.length < pods.length)
    return { status: "Unknown", reason: "PodPending", message: "waiting for the scheduler" };
  const where = placed.map((p) => `${p.metadata?.name} on ${p.spec?.nodeName}${gpuOf(placeFacts(p, seen))}`);
  return { status: "True", reason: "Scheduled", message: where.join(", ") };
}

function placeFacts(p: PodFacts, seen: Seen): NodeFacts | undefined {
  return seen.nodes.find((n) => n.metadata.name === p.spec?.nodeName);
}

function gpuOf(node: NodeFacts | undefined): string {
  const product = node?.metadata.labels?.["nvidia.com/gpu.product"];
  return product ? ` (${product})` : "";
}

export function ready({ pods, plan }: Seen): Verdict {
  const errors = plan.problems.filter((p) => p.severity === "error");
  if (errors.length) {
    return {
      status: "False",
      reason: "InvalidNodeConfiguration",
      message: `the node would refuse its flags: ${errors.map((e) => `${e.message} - ${e.fix}`).join("; ")}`,
    };
  }
  if (pods.length === 0) return { status: "False", reason: "PodPending", message: "no node pod yet" };
  const notReady = pods.filter((p) => !podReady(p));
  if (notReady.length) {
    const why = notReady.map((p) => {
      const waiting = p.status?.containerStatuses?.map((c) => c.state?.waiting?.reason).find(Boolean);
      return `${p.metadata?.name} ${waiting ?? p.status?.phase ?? "Pending"}`;
    });
    return {
      status: "False",
      reason: "PodsNotReady",
      message: `${notReady.length} of ${pods.length} pod(s) not Ready: ${why.join(", ")}`,
    };
  }
  return {
    status: "True",
    reason: "PodsReady",
    message: `all ${pods.length} pod(s) Ready (node endpoints and log findings are not checked yet)`,
  };
}

export function simulated({ pods }: Seen): Verdict {
  const sim = pods.filter((p) => p.metadata?.annotations?.[SIMULATED_ANNOTATION] === "true");
  if (sim.length) {
    return {
      status: "True",
      reason: "NodeSimulator",
      message: `${sim.length} pod(s) served by the node simulator, not go-livepeer`,
    };
  }
  return { status: "False", reason: "RealNode", message: "no pod is backed by the node simulator" };
}

export function findingsOf({ plan }: Seen, previous: Finding[] | undefined, now: string): Finding[] {
  const found: Omit<Finding, "since">[] = [];
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
  // `since` is kept while a finding persists.
  return found.map((f) => ({ ...f, since: previous?.find((x) => x.id === f.id)?.since ?? now }));
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
>;

export function computeStatus(seen: Seen, now: Date): OwnedStatus {
  const generation = seen.orch.metadata?.generation;
  const ctx = { generation, now };
  let conditions: Condition[] = ensureConditions(
    seen.orch.status?.conditions as Condition[] | undefined,
    ["Ready", "Scheduled", "Simulated"],
    ctx,
  );
  for (const [type, verdict] of [
    ["Scheduled", scheduled(seen)],
    ["Ready", ready(seen)],
    ["Simulated", simulated(seen)],
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
    conditions: conditions as OwnedStatus["conditions"],
    findings: findingsOf(seen, seen.orch.status?.findings, now.toISOString()),
    maxSessions: seen.plan.sessionLimit.maxSessions,
    maxSessionsReason: seen.plan.sessionLimit.reason,
    ...(node ? { node } : {}),
    ...(product ? { gpuProduct: product } : {}),
    serviceAddr: seen.plan.serviceAddr,
  };
}
