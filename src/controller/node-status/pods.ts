// What a node's pods say, for any resource's status (pure): where they were scheduled, which are
// not Ready and why, whether the simulator serves them, and findings that keep their `since`.
import type { Finding } from "../../schema/finding.ts";
import { type DoctorReport, simulatedPods } from "../doctor/index.ts";
import type { Verdict } from "../runtime/index.ts";
import type { NodeFacts, PodFacts } from "./facts.ts";

export const SIMULATED_ANNOTATION = "livepeer.org/simulated";

export const podReady = (p: PodFacts) =>
  p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

/** Scheduled: every pod placed (naming its node and GPU), or why one is not. */
export function podsScheduled(pods: readonly PodFacts[], nodes: readonly NodeFacts[]): Verdict {
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
  const where = placed.map((p) => {
    const product = nodes.find((n) => n.metadata.name === p.spec?.nodeName)?.metadata.labels?.[
      "nvidia.com/gpu.product"
    ];
    return `${p.metadata?.name} on ${p.spec?.nodeName}${product ? ` (${product})` : ""}`;
  });
  return { status: "True", reason: "Scheduled", message: where.join(", ") };
}

/** "1 of 2 pod(s) not Ready: gw-0 ImagePullBackOff", or "" when all are. */
export function notReadyMessage(pods: readonly PodFacts[]): string {
  const notReady = pods.filter((p) => !podReady(p));
  if (!notReady.length) return "";
  return `${notReady.length} of ${pods.length} pod(s) not Ready: ${notReady
    .map((p) => {
      const waiting = p.status?.containerStatuses?.map((c) => c.state?.waiting?.reason).find(Boolean);
      return `${p.metadata?.name} ${waiting ?? p.status?.phase ?? "Pending"}`;
    })
    .join(", ")}`;
}

/**
 * Simulated: True when the simulator serves any pod (never hidden), by annotation or its answers.
 * While nothing has been read (a controller that just started, a node that stopped answering) the
 * last known answer stands (`previous`, the condition as stored): what a node is does not change
 * because the controller restarted, and its lastTransitionTime must not either.
 */
export function simulatedVerdict(
  pods: readonly PodFacts[],
  report: DoctorReport | undefined,
  previous?: { type?: string; status?: string; reason?: string; message?: string },
): Verdict {
  const annotated = pods
    .filter((p) => p.metadata?.annotations?.[SIMULATED_ANNOTATION] === "true")
    .map((p) => p.metadata?.name ?? "");
  const answered = simulatedPods(report?.readings ?? []);
  const sim = [...new Set([...annotated, ...answered])].sort();
  if (sim.length) {
    const how = [
      answered.length ? "its answers say Simulated: true" : "",
      annotated.length ? `annotated ${SIMULATED_ANNOTATION}=true` : "",
    ].filter(Boolean);
    return {
      status: "True",
      reason: "NodeSimulator",
      message: `pod(s) ${sim.join(", ")} served by the node simulator, not go-livepeer (${how.join(", ")})`,
    };
  }
  const read = report?.readings.some((r) => r.answered.includes("/status")) ?? false;
  if (!read) {
    if ((previous?.status === "True" || previous?.status === "False") && previous.reason && previous.message)
      return { status: previous.status, reason: previous.reason, message: previous.message };
    return {
      status: "Unknown",
      reason: "NodeNotRead",
      message: "no pod is annotated as simulated and no node answer has been read yet",
    };
  }
  return { status: "False", reason: "RealNode", message: "the node's answers carry no simulator marker" };
}

/** At most 64 findings (errors first, as given); `since` is kept while a finding persists. */
export function withSince(
  found: readonly (Omit<Finding, "since"> & { since?: string })[],
  previous: readonly Finding[] | undefined,
  now: string,
): Finding[] {
  return found
    .slice(0, 64)
    .map((f) => ({ ...f, since: previous?.find((x) => x.id === f.id)?.since ?? f.since ?? now }));
}
