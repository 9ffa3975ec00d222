// What the readings of a resource's node pods mean (pure): the NodeReachable condition, whether
// the node said it is the simulator, and the findings an endpoint reading shows.
import {
  CATALOG_BY_ID,
  type Finding,
  gpuMemoryHigh,
  sessionLimitReached,
  videoOnlyOrchestrator,
} from "../../node/diagnosis/index.ts";
import type { Finding as StatusFinding } from "../../schema/finding.ts";
import type { Verdict } from "../runtime/index.ts";
import type { LogOccurrence } from "./log-findings.ts";
import type { NodeReading } from "./node-reading.ts";
import type { NodeTarget } from "./target.ts";

const REASONS: Record<string, string> = {
  timeout: "EndpointTimeout",
  aborted: "EndpointTimeout",
  "connection-refused": "ConnectionRefused",
  unreachable: "EndpointUnreachable",
  "http-status": "EndpointError",
  "bad-json": "BadEndpointAnswer",
  "bad-metrics": "BadEndpointAnswer",
  "missing-field": "BadEndpointAnswer",
  "invalid-field": "BadEndpointAnswer",
};

const NEXT_STEP: Record<string, string> = {
  EndpointTimeout: "the node is up but does not answer in time: check its log and CPU",
  ConnectionRefused: "check the node's log for why it stopped or did not bind the port",
  EndpointUnreachable: "check the pod network between the controller and the pod",
  EndpointError: "the node answers with an error: check its log",
  BadEndpointAnswer: "the node answers something else than a Livepeer node would: check the image",
};

/** NodeReachable: every Ready node pod answers its endpoints. */
export function reachability(
  targets: readonly NodeTarget[],
  readings: readonly NodeReading[],
  namespace: string,
): Verdict {
  const ready = targets.filter((t) => t.ready);
  if (ready.length === 0) {
    return {
      status: "Unknown",
      reason: "NoReadyPod",
      message: "no node pod is Ready yet: its endpoints are read once one is",
    };
  }
  const byPod = new Map(readings.map((r) => [r.pod, r]));
  const failing = ready.flatMap((t) => {
    const r = byPod.get(t.pod);
    return r?.failed ? [{ pod: t.pod, failed: r.failed }] : [];
  });
  if (failing.length > 0) {
    const reason = REASONS[failing[0]!.failed.reason] ?? "EndpointUnreachable";
    const what = failing.map((f) => `pod ${f.pod}: ${f.failed.message}`).join("; ");
    return {
      status: "False",
      reason,
      message: `${what}. Next: ${NEXT_STEP[reason]} (kubectl logs -n ${namespace} ${failing[0]!.pod})`,
    };
  }
  const unread = ready.filter((t) => !byPod.has(t.pod));
  if (unread.length > 0) {
    return {
      status: "Unknown",
      reason: "Checking",
      message: `reading the endpoints of ${unread.map((t) => `pod ${t.pod}`).join(", ")}`,
    };
  }
  const answered = ready.map((t) => `${t.pod} (${byPod.get(t.pod)!.answered.join(", ")})`);
  return { status: "True", reason: "EndpointsAnswering", message: `answering: ${answered.join(", ")}` };
}

/** What a resource's status said before this reconcile (its own condition of that type). */
export type PreviousCondition = { status?: string; reason?: string; message?: string } | undefined;

/**
 * NodeReachable for a resource, from its doctor's look (undefined before the first one). A
 * verdict that is Unknown only because nothing was read yet (the controller just started, or a
 * Ready pod has not been read since) keeps the previous True or False as it stood: an operator
 * restart or upgrade is not a change in the node, and its lastTransitionTime must not move.
 */
export function nodeReachableVerdict(
  doctor: { targets: readonly NodeTarget[]; report: { readings: readonly NodeReading[] } } | undefined,
  namespace: string,
  previous: PreviousCondition,
): Verdict {
  const verdict: Verdict = doctor
    ? reachability(doctor.targets, doctor.report.readings, namespace)
    : { status: "Unknown", reason: "NotChecked", message: "the node's endpoints have not been read" };
  const unread = verdict.reason === "NotChecked" || verdict.reason === "Checking";
  if (unread && (previous?.status === "True" || previous?.status === "False") && previous.reason) {
    return { status: previous.status, reason: previous.reason, message: previous.message ?? "" };
  }
  return verdict;
}

/** Pods whose answers carried the simulator's marker. */
export function simulatedPods(readings: readonly NodeReading[]): string[] {
  return readings.filter((r) => r.simulated).map((r) => r.pod);
}

/** Findings one reading shows (checks of the catalog's metric and endpoint entries). */
export function endpointFindings(target: NodeTarget, reading: NodeReading): Finding[] {
  const found: (Finding | undefined)[] = [];
  if (reading.metrics) {
    found.push(sessionLimitReached(reading.metrics.currentSessions, reading.metrics.maxSessions));
  }
  if (reading.gpus) found.push(gpuMemoryHigh(reading.gpus));
  if (reading.capabilities && target.role === "orchestrator") {
    found.push(
      videoOnlyOrchestrator({
        address: `pod ${target.pod}`,
        capabilities: reading.capabilities,
        aiExpected: target.aiExpected,
      }),
    );
  }
  return found.filter((f): f is Finding => f !== undefined);
}

/** One status finding per catalog id from the log occurrences in force, across pods. */
export function logStatusFindings(occurrences: readonly LogOccurrence[]): StatusFinding[] {
  const byId = new Map<string, LogOccurrence[]>();
  for (const o of occurrences) byId.set(o.id, [...(byId.get(o.id) ?? []), o]);
  return [...byId.entries()].map(([id, list]) => {
    const entry = CATALOG_BY_ID.get(id);
    const first = list.reduce((a, b) => (b.firstAt < a.firstAt ? b : a));
    const pods = [...new Set(list.map((o) => o.pod).filter(Boolean))].sort();
    const who = `pod${pods.length > 1 ? "s" : ""} ${pods.join(", ")}`;
    const carried = list.find((o) => o.message !== undefined)?.message;
    const message =
      pods.length === 0 && carried !== undefined
        ? carried
        : `${who} logged ${JSON.stringify(first.line)}: ${entry?.meaning ?? ""} ${entry?.action ?? ""}`.trim();
    return {
      id,
      severity: entry?.severity ?? "warning",
      message,
      since: first.firstAt.toISOString().replace(/\.\d+Z$/, "Z"),
    };
  });
}
