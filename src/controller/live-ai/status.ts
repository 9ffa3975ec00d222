// What the status says of an Orchestrator's live apps (pure): per app the runners wanted, the ones
// the node registered, the healthy ones it offers and the ones in session, with the reason each
// other runner is not there yet; and the LiveAIReady condition. What the node says comes from its
// GET /discovery (ready runners only, each named by its route: the pod under label routing, the
// runner id the runner proposed under dynamic registration); what the runner says from its own
// /health (the runner doctor); the rest from the pods.
import type { LiveRunnerSeen } from "../../node/client/index.ts";
import { runnerServes } from "../../node/client/index.ts";
import type { LiveAppStatus } from "../../schema/live-ai.ts";
import type { NodeReading } from "../doctor/index.ts";
import type { PodFacts } from "../node-status/facts.ts";
import { podReady } from "../node-status/pods.ts";
import type { Verdict } from "../runtime/index.ts";
import { liveAppName, liveRunnerPod } from "./names.ts";
import type { LiveAiPlan, LivePlannedApp } from "./plan.ts";

export interface LiveSeen {
  /** Absent: not planned (no spec.ai.live). */
  plan: LiveAiPlan | undefined;
  /** The Orchestrator's live runner pods. */
  runnerPods: readonly PodFacts[];
  /** The runner doctor's latest readings of them (Ready pods only). */
  runnerReadings: readonly NodeReading[];
  /** What the orchestrator's GET /discovery said (absent: not read yet). */
  node?: NodeReading["live"] | undefined;
}

const IMAGE_PULL = /ErrImagePull|ImagePullBackOff|InvalidImageName|ErrImageNeverPull/;

/** Why one runner is not healthy in the node's registry, in words, with the category first. */
function runnerWhy(
  pod: PodFacts | undefined,
  podName: string,
  reading: NodeReading | undefined,
  registration: "static" | "dynamic",
  /** Whether the node offers it; undefined while the node's registry is not known (not read, or not served). */
  offered: boolean | undefined,
): string | undefined {
  if (!pod) return `${podName}: not created yet`;
  const unscheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False");
  if (unscheduled)
    return `${podName}: capacity full, not scheduled (${unscheduled.message ?? "no node has a free GPU"})`;
  const waiting = pod.status?.containerStatuses?.map((c) => c.state?.waiting).find((w) => w?.reason);
  if (waiting?.reason && IMAGE_PULL.test(waiting.reason))
    return `${podName}: image pull failing (${waiting.reason}${waiting.message ? `: ${waiting.message}` : ""})`;
  if (waiting?.reason === "CrashLoopBackOff")
    return `${podName}: health failing, the runner keeps exiting (CrashLoopBackOff)`;
  if (!podReady(pod))
    return `${podName}: warm-up, loading the pipeline (${waiting?.reason ?? "startup probe pending"})`;
  if (reading?.failed)
    return `${podName}: health failing, /health does not answer (${reading.failed.message})`;
  if (reading?.health === "LOADING") return `${podName}: warm-up, /health says LOADING`;
  if (reading?.health !== undefined && !runnerServes(reading.health))
    return `${podName}: health failing, /health says ${reading.health}`;
  // Unknown to the node yet: the app's reason names the node's side once, no runner is blamed.
  if (offered !== false) return undefined;
  return registration === "static"
    ? `${podName}: registered but not offered by the node (its health check of ${podName} fails)`
    : `${podName}: not registered or heartbeat stale (the node offers no runner ${podName})`;
}

export function liveAppStatus(a: LivePlannedApp, seen: LiveSeen & { plan: LiveAiPlan }): LiveAppStatus {
  const registration = seen.plan.registration ?? "static";
  const app = liveAppName(a.app.id);
  const discovered: LiveRunnerSeen[] | undefined =
    seen.node && "runners" in seen.node ? seen.node.runners.filter((r) => r.app === app) : undefined;
  const names = Array.from({ length: a.runners }, (_, i) => liveRunnerPod(a.set, i));
  const pods = new Map(
    seen.runnerPods.filter((p) => !p.metadata?.deletionTimestamp).map((p) => [p.metadata?.name ?? "", p]),
  );
  const offered = (name: string) => discovered?.find((r) => r.route === name);
  const reasons: string[] = [];
  let healthy = 0;
  let inSession = 0;
  for (const name of names) {
    const seenByNode = offered(name);
    const why = runnerWhy(
      pods.get(name),
      name,
      seen.runnerReadings.find((r) => r.pod === name),
      registration,
      discovered ? !!seenByNode : undefined,
    );
    if (discovered && seenByNode && !why) {
      healthy++;
      if (seenByNode.used > 0) inSession++;
    } else if (why) reasons.push(why);
  }
  const nodeWords =
    seen.node === undefined
      ? "the node's GET /discovery not read yet"
      : "notServed" in seen.node
        ? "the node answers 404 on /discovery: it runs without live runners (an older image, or the pod predates spec.ai.live)"
        : "failed" in seen.node
          ? `the node's GET /discovery failed: ${seen.node.failed}`
          : undefined;
  // Static: the node registers every runner in its file; dynamic: those it offers (a runner that
  // stopped heartbeating is dropped from the registry).
  const registered = registration === "static" ? (nodeWords && !discovered ? 0 : a.runners) : healthy;
  const price = `${a.app.price.usd} USD/${a.app.price.unit}`;
  const ready = a.runners > 0 && healthy === a.runners;
  let reason: string;
  if (a.runners === 0) reason = `no runners: ${a.count.reason}`;
  else if (ready)
    reason =
      inSession === a.runners
        ? `capacity full: all ${a.runners} runner(s) in session (${a.count.reason})`
        : `${healthy} of ${a.runners} runner(s) healthy, ${inSession} in session (${a.count.reason})`;
  else
    reason = `${healthy} of ${a.runners} runner(s) healthy: ${[...(nodeWords ? [nodeWords] : []), ...reasons].join("; ")}`;
  return {
    id: a.app.id,
    app,
    desired: a.runners,
    registered,
    healthy,
    inSession,
    capacity: healthy,
    price,
    ready,
    reason: reason.slice(0, 2048),
  };
}

export function liveStatusOf(seen: LiveSeen): LiveAppStatus[] | undefined {
  const plan = seen.plan;
  if (!plan?.registration) return undefined;
  return plan.apps.map((a) => liveAppStatus(a, { ...seen, plan }));
}

/** LiveAIReady: every app's runners are healthy in the node's registry; False names the others and why. */
export function liveAiReady(apps: readonly LiveAppStatus[] | undefined): Verdict | undefined {
  if (!apps) return undefined;
  const short = apps.filter((a) => !a.ready);
  if (short.length === 0) {
    return {
      status: "True",
      reason: "RunnersHealthy",
      message: `${apps.length} live app(s) offered: ${apps.map((a) => `${a.app} (${a.healthy} runner(s), ${a.price})`).join(", ")}`,
    };
  }
  const none = short.every((a) => a.desired === 0);
  return {
    status: "False",
    reason: none ? "NoRunners" : "RunnersNotHealthy",
    message: `${short.length} of ${apps.length} live app(s) not fully offered: ${short
      .map((a) => `${a.app}: ${a.reason}`)
      .join("; ")}`.slice(0, 32_000),
  };
}
