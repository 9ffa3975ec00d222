// The RemoteSigner's status from what the reconciler saw (pure): conditions, findings and facts.
// Ready means signing: its pods Ready and their nodes answering, the auth hook wired, no error
// finding. ChainHealthy and Funded are the chain's word on the signer's account (the key pays for
// every Gateway and app that uses it), Funded refined by the funding guard when spec.funding is set.
import { nodeVersionSupport } from "../../node/config/index.ts";
import { type Condition, REMOTE_SIGNER_CONDITION_TYPES } from "../../schema/condition.ts";
import type { Finding } from "../../schema/finding.ts";
import type { RemoteSignerStatus, StoredRemoteSigner } from "../../schema/remote-signer.ts";
import { type DoctorReport, type NodeTarget, nodeReachableVerdict } from "../doctor/index.ts";
import type { GatewayDutyStatus } from "../duties/gateway-duties.ts";
import { nodeImageOf } from "../node-pod/index.ts";
import type { ChainStatus } from "../node-status/chain-status.ts";
import type { NodeFacts, PodFacts } from "../node-status/facts.ts";
import { type KeystoreState, keystoreVerdict } from "../node-status/keystore.ts";
import { podsScheduled, simulatedVerdict, withSince } from "../node-status/pods.ts";
import { nodeReady, warningsNote } from "../node-status/ready.ts";
import { conditionTime, ensureConditions, setCondition, type Verdict } from "../runtime/index.ts";
import { signerServiceUrl } from "./names.ts";
import type { SignerPlan } from "./plan.ts";

export interface SignerSeen {
  signer: StoredRemoteSigner;
  plan: SignerPlan;
  pods: PodFacts[];
  nodes: NodeFacts[];
  doctor?: { targets: NodeTarget[]; report: DoctorReport };
  keystore?: KeystoreState;
  chain?: ChainStatus;
  duties?: GatewayDutyStatus;
  hookTokenDigest?: string;
  /** The account the node signs with (spec.ethAcctAddr, as its flags say). */
  address?: string;
}

export type SignerOwnedStatus = Pick<
  RemoteSignerStatus,
  | "observedGeneration"
  | "conditions"
  | "findings"
  | "replicas"
  | "readyReplicas"
  | "address"
  | "serviceUrl"
  | "hookTokenDigest"
  | "orchestrators"
  | "deposit"
  | "reserve"
  | "balance"
  | "funding"
>;

const podReady = (p: PodFacts) =>
  p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");

export function computeSignerStatus(seen: SignerSeen, now: Date): SignerOwnedStatus {
  const { signer, plan } = seen;
  const generation = signer.metadata?.generation;
  const ctx = { generation, now };
  const findings = findingsOf(seen, conditionTime(now));
  let conditions: Condition[] = ensureConditions(
    signer.status?.conditions,
    [...REMOTE_SIGNER_CONDITION_TYPES],
    ctx,
  );
  for (const [type, verdict] of [
    ["Scheduled", podsScheduled(seen.pods, seen.nodes)],
    ["NodeReachable", nodeReachable(seen)],
    ["Ready", ready(seen, findings)],
    [
      "Simulated",
      simulatedVerdict(
        seen.pods,
        seen.doctor?.report,
        signer.status?.conditions?.find((c) => c.type === "Simulated"),
      ),
    ],
    ["NodeVersionSupported", nodeVersionSupport(nodeImageOf(plan.node.statefulSet))],
    ...(seen.chain?.conditions ?? []),
    ...(seen.duties?.conditions ?? []),
  ] as const) {
    conditions = setCondition(conditions, { type, ...verdict }, ctx);
  }
  const { deposit, reserve, balance } = seen.chain?.facts ?? {};
  const name = signer.metadata?.name ?? "";
  const namespace = signer.metadata?.namespace ?? "default";
  return {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions,
    findings,
    replicas: seen.pods.length,
    readyReplicas: seen.pods.filter(podReady).length,
    ...(seen.address ? { address: seen.address } : {}),
    serviceUrl: signerServiceUrl(name, namespace, signer.spec.port),
    ...(seen.hookTokenDigest ? { hookTokenDigest: seen.hookTokenDigest } : {}),
    ...(plan.pool ? { orchestrators: plan.pool.given } : {}),
    ...(deposit !== undefined ? { deposit } : {}),
    ...(reserve !== undefined ? { reserve } : {}),
    ...(balance !== undefined ? { balance } : {}),
    ...(seen.duties?.funding && Object.keys(seen.duties.funding).length
      ? { funding: seen.duties.funding }
      : {}),
  };
}

/** The part of the status this controller owns, as it is now (to compare with computeSignerStatus). */
export function ownedSignerStatus(signer: StoredRemoteSigner): SignerOwnedStatus {
  const s = signer.status ?? {};
  const keep = <K extends keyof SignerOwnedStatus>(k: K) => (s[k] !== undefined ? { [k]: s[k] } : {});
  return {
    ...keep("observedGeneration"),
    conditions: s.conditions ?? [],
    findings: s.findings ?? [],
    ...keep("replicas"),
    ...keep("readyReplicas"),
    ...keep("address"),
    ...keep("serviceUrl"),
    ...keep("hookTokenDigest"),
    ...keep("orchestrators"),
    ...keep("deposit"),
    ...keep("reserve"),
    ...keep("balance"),
    ...keep("funding"),
  };
}

function nodeReachable({ doctor, signer }: SignerSeen): Verdict {
  return nodeReachableVerdict(
    doctor,
    signer.metadata?.namespace ?? "default",
    signer.status?.conditions?.find((c) => c.type === "NodeReachable"),
  );
}

function ready(seen: SignerSeen, findings: readonly Finding[]): Verdict {
  const { plan, signer } = seen;
  const replicas = signer.spec.replicas;
  const readyPods = seen.pods.filter(podReady).length;
  return nodeReady({
    holds: plan.holds,
    problems: plan.problems,
    keystore: seen.keystore && keystoreVerdict(seen.keystore, signer.metadata?.namespace ?? "default"),
    findings,
    pods: seen.pods,
    reachable: nodeReachable(seen),
    serving: (warnings) =>
      `${readyPods} of ${replicas} signer pod(s) Ready and answering${seen.address ? `, signing as ${seen.address}` : ""}${warningsNote(warnings)}`,
  });
}

function findingsOf(seen: SignerSeen, now: string): Finding[] {
  const found: (Omit<Finding, "since"> & { since?: string })[] = [];
  for (const p of seen.plan.problems.filter((x) => x.severity === "warning")) {
    found.push({ id: "NodeFlagWarning", severity: "warning", message: `${p.message} - ${p.fix}` });
  }
  if (seen.keystore?.state === "trailing-newline") {
    const f = seen.keystore.finding;
    found.push({ id: f.id, severity: f.severity, message: `${f.message}. ${f.action}` });
  }
  for (const f of [
    ...(seen.chain?.findings ?? []),
    ...(seen.duties?.findings ?? []),
    ...(seen.doctor?.report.findings ?? []),
  ])
    if (!found.some((x) => x.id === f.id)) found.push(f);
  found.sort((a, b) => Number(b.severity === "error") - Number(a.severity === "error"));
  return withSince(found, seen.signer.status?.findings, now);
}
