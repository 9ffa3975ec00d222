// The Gateway's status from what the reconciler saw (pure): conditions, findings and facts. Ready
// means serving: pods Ready, the node answering, orchestrators to send work to, a price cap that
// reaches at least one of them, and no error finding. Warnings never flip it.

import { formatSelector } from "../../kube/label-selector.ts";
import { nodeVersionSupport } from "../../node/config/index.ts";
import { type Condition, GATEWAY_CONDITION_TYPES } from "../../schema/condition.ts";
import type { Finding } from "../../schema/finding.ts";
import type { GatewayStatus, StoredGateway } from "../../schema/gateway.ts";
import { type DoctorReport, type NodeTarget, nodeReachableVerdict } from "../doctor/index.ts";
import type { GatewayDutyStatus } from "../duties/gateway-duties.ts";
import { nodeImageOf } from "../node-pod/index.ts";
import type { ChainStatus } from "../node-status/chain-status.ts";
import type { NodeFacts, PodFacts } from "../node-status/facts.ts";
import { type KeystoreState, keystoreVerdict } from "../node-status/keystore.ts";
import type { PodRolloutPlan } from "../node-status/pod-rollout.ts";
import { podsScheduled, simulatedVerdict, withSince } from "../node-status/pods.ts";
import { nodeReady, warningsNote } from "../node-status/ready.ts";
import { conditionTime, ensureConditions, setCondition, type Verdict } from "../runtime/index.ts";
import type { GatewayPlan, SignerSeen } from "./plan.ts";

export interface GatewaySeen {
  gateway: StoredGateway;
  plan: GatewayPlan;
  pods: PodFacts[];
  nodes: NodeFacts[];
  doctor?: { targets: NodeTarget[]; report: DoctorReport };
  keystore?: KeystoreState;
  /** What the chain says of the node (absent: not asked). */
  chain?: ChainStatus;
  /** The funding guard (absent: not kept); its Funded verdict, when it has one, wins over the chain's. */
  duties?: GatewayDutyStatus;
  hookTokenDigest?: string;
  /** spec.remoteSigner: the signer as observed (absent: not found). */
  signer?: SignerSeen;
  /** What the rollout of a changed rendering does or waits for (absent: not planned). */
  rollout?: PodRolloutPlan;
}

export type GatewayOwnedStatus = Pick<
  GatewayStatus,
  | "observedGeneration"
  | "conditions"
  | "findings"
  | "orchestrators"
  | "orchestratorCount"
  | "hookTokenDigest"
  | "maxSessions"
  | "node"
  | "deposit"
  | "reserve"
  | "balance"
  | "funding"
  | "remoteSigner"
  | "rollout"
>;

export function computeGatewayStatus(seen: GatewaySeen, now: Date): GatewayOwnedStatus {
  const { gateway, plan } = seen;
  const generation = gateway.metadata?.generation;
  const ctx = { generation, now };
  const findings = findingsOf(seen, conditionTime(now));
  let conditions: Condition[] = ensureConditions(
    // A Gateway that no longer names a signer drops what was said of it.
    gateway.spec.remoteSigner
      ? gateway.status?.conditions
      : gateway.status?.conditions?.filter((c) => c.type !== "RemoteSignerReady"),
    [...GATEWAY_CONDITION_TYPES],
    ctx,
  );
  for (const [type, verdict] of [
    ["Scheduled", podsScheduled(seen.pods, seen.nodes)],
    ["NodeReachable", nodeReachable(seen)],
    ["PriceCompatible", priceVerdict(plan)],
    ["Ready", ready(seen, findings)],
    [
      "Simulated",
      simulatedVerdict(
        seen.pods,
        seen.doctor?.report,
        gateway.status?.conditions?.find((c) => c.type === "Simulated"),
      ),
    ],
    ["NodeVersionSupported", nodeVersionSupport(nodeImageOf(plan.node.statefulSet))],
    ...(seen.chain?.conditions ?? []),
    ...(seen.duties?.conditions ?? []),
    // Keyless: the signer's word, said last (Funded reads through, whatever the node's own chain says).
    ...signerConditions(seen),
    ...(seen.rollout ? [["RolloutPending", seen.rollout.verdict] as const] : []),
  ] as const) {
    conditions = setCondition(conditions, { type, ...verdict }, ctx);
  }
  const node = seen.pods[0]?.spec?.nodeName;
  const signerRef = gateway.spec.remoteSigner;
  const given = plan.pool?.given;
  return {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions,
    findings,
    ...(given ? { orchestrators: given, orchestratorCount: given.length } : {}),
    ...(seen.hookTokenDigest ? { hookTokenDigest: seen.hookTokenDigest } : {}),
    ...(gateway.spec.maxSessions !== undefined ? { maxSessions: gateway.spec.maxSessions } : {}),
    ...(node ? { node } : {}),
    ...seen.chain?.facts,
    ...(seen.duties?.funding && Object.keys(seen.duties.funding).length
      ? { funding: seen.duties.funding }
      : {}),
    ...(signerRef
      ? {
          remoteSigner: {
            name: signerRef.name,
            ...(seen.signer?.address ? { address: seen.signer.address } : {}),
            ready: seen.signer?.ready ?? false,
            funded: seen.signer?.funded ?? false,
          },
        }
      : {}),
    ...(seen.rollout ? { rollout: seen.rollout.status } : {}),
  };
}

/** RemoteSignerReady and Funded of a keyless gateway, from its signer's status. */
export function signerConditions({
  gateway,
  signer,
}: Pick<GatewaySeen, "gateway" | "signer">): ["RemoteSignerReady" | "Funded", Verdict][] {
  const ref = gateway.spec.remoteSigner;
  if (!ref) return [];
  const ns = gateway.metadata?.namespace ?? "default";
  if (!signer?.found) {
    const v: Verdict = {
      status: "False",
      reason: "RemoteSignerNotFound",
      message: `RemoteSigner ${ref.name} does not exist in namespace ${ns}: create it or change spec.remoteSigner.name`,
    };
    return [
      ["RemoteSignerReady", v],
      ["Funded", v],
    ];
  }
  const ready: Verdict = signer.ready
    ? {
        status: "True",
        reason: "RemoteSignerReady",
        message: `RemoteSigner ${ref.name}${signer.address ? ` (${signer.address})` : ""} signs and pays for this gateway`,
      }
    : {
        status: "False",
        reason: "RemoteSignerNotReady",
        message: `RemoteSigner ${ref.name} is not Ready${signer.reason ? ` (${signer.reason})` : ""}: kubectl describe remotesigner ${ref.name} -n ${ns}`,
      };
  const funded: Verdict = signer.funded
    ? {
        status: "True",
        reason: "SignerFunded",
        message: `RemoteSigner ${ref.name} is Funded: it pays for this gateway`,
      }
    : {
        status: "False",
        reason: "SignerNotFunded",
        message: `RemoteSigner ${ref.name} is not Funded: its deposit or reserve cannot pay orchestrators (kubectl get remotesigner ${ref.name} -n ${ns} -o wide)`,
      };
  return [
    ["RemoteSignerReady", ready],
    ["Funded", funded],
  ];
}

/** The part of the status this controller owns, as it is now (to compare with computeGatewayStatus). */
export function ownedGatewayStatus(gateway: StoredGateway): GatewayOwnedStatus {
  const s = gateway.status ?? {};
  return {
    ...(s.observedGeneration !== undefined ? { observedGeneration: s.observedGeneration } : {}),
    conditions: s.conditions ?? [],
    findings: s.findings ?? [],
    ...(s.orchestrators ? { orchestrators: s.orchestrators } : {}),
    ...(s.orchestratorCount !== undefined ? { orchestratorCount: s.orchestratorCount } : {}),
    ...(s.hookTokenDigest ? { hookTokenDigest: s.hookTokenDigest } : {}),
    ...(s.maxSessions !== undefined ? { maxSessions: s.maxSessions } : {}),
    ...(s.node ? { node: s.node } : {}),
    ...(s.deposit !== undefined ? { deposit: s.deposit } : {}),
    ...(s.reserve !== undefined ? { reserve: s.reserve } : {}),
    ...(s.balance !== undefined ? { balance: s.balance } : {}),
    ...(s.funding !== undefined ? { funding: s.funding } : {}),
    ...(s.remoteSigner !== undefined ? { remoteSigner: s.remoteSigner } : {}),
    ...(s.rollout !== undefined ? { rollout: s.rollout } : {}),
  };
}

function nodeReachable({ doctor, gateway }: GatewaySeen): Verdict {
  return nodeReachableVerdict(
    doctor,
    gateway.metadata?.namespace ?? "default",
    gateway.status?.conditions?.find((c) => c.type === "NodeReachable"),
  );
}

function priceVerdict(plan: GatewayPlan): Verdict {
  const { status, reason, message } = plan.price;
  return { status, reason, message };
}

/** Why the gateway has no orchestrator to send work to (selector mode), or undefined. */
function noOrchestrators({ plan, gateway }: GatewaySeen): Verdict | undefined {
  const pool = plan.pool;
  if (!pool || pool.given.length > 0) return undefined;
  const ns = gateway.metadata?.namespace ?? "default";
  const selector = formatSelector(gateway.spec.orchestrators.selector ?? {}) || "{} (every Orchestrator)";
  if (pool.selected === 0) {
    return {
      status: "False",
      reason: "NoOrchestratorsSelected",
      message: `spec.orchestrators.selector ${selector} matches no Orchestrator in namespace ${ns}: label one (kubectl label orchestrator <name> -n ${ns} <key>=<value>) or change the selector`,
    };
  }
  return {
    status: "False",
    reason: "NoOrchestratorsReady",
    message: `none of the ${pool.selected} Orchestrator(s) spec.orchestrators.selector ${selector} picks can take work: ${pool.leftOut
      .map((l) => `${l.name} ${l.reason}`)
      .join(", ")}`,
  };
}

function ready(seen: GatewaySeen, findings: readonly Finding[]): Verdict {
  const { plan } = seen;
  const count = plan.pool ? `, ${plan.pool.given.length} orchestrator(s) given` : "";
  return nodeReady({
    holds: plan.holds,
    problems: plan.problems,
    keystore: seen.keystore && keystoreVerdict(seen.keystore, seen.gateway.metadata?.namespace ?? "default"),
    // A gateway with nobody to pay, or a cap nobody accepts, takes streams and transcodes none.
    blockers: [noOrchestrators(seen), plan.price.severity === "error" ? priceVerdict(plan) : undefined],
    findings,
    pods: seen.pods,
    reachable: nodeReachable(seen),
    serving: (warnings) => `the gateway's pod is Ready and its node answers${count}${warningsNote(warnings)}`,
  });
}

function findingsOf(seen: GatewaySeen, now: string): Finding[] {
  const found: (Omit<Finding, "since"> & { since?: string })[] = [];
  for (const p of seen.plan.problems.filter((x) => x.severity === "warning")) {
    found.push({ id: "NodeFlagWarning", severity: "warning", message: `${p.message} - ${p.fix}` });
  }
  found.push(...(seen.plan.aiFindings ?? []));
  if (seen.plan.price.severity === "warning") {
    found.push({ id: "PriceCapBelowSome", severity: "warning", message: seen.plan.price.message });
  }
  if (seen.gateway.spec.streamEvents?.enabled && !seen.plan.streamEvents) {
    found.push({
      id: "StreamEventsUnavailable",
      severity: "warning",
      message:
        "spec.streamEvents.enabled, but the controller was started without --node-hooks-url (the Helm chart sets it when api.enabled is true): the node gets no -authWebhookUrl and no stream events are sent; enable the API",
    });
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
  // Errors first: they decide Ready, and at most 64 fit.
  found.sort((a, b) => Number(b.severity === "error") - Number(a.severity === "error"));
  return withSince(found, seen.gateway.status?.findings, now);
}
