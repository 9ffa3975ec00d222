// What the status says of an Orchestrator's AI side (pure): per model, the runners it maps to and
// whether they serve, and the AIReady condition. A runner serves once its pod is Ready AND its
// /health says OK or IDLE (read by the runner doctor): a pod can be Ready while its model loads.
import { runnerServes } from "../../node/client/index.ts";
import type { AiModelStatus, AiStatus } from "../../schema/ai.ts";
import type { NodeReading } from "../doctor/index.ts";
import type { PodFacts } from "../node-status/facts.ts";
import { podReady } from "../node-status/pods.ts";
import type { Verdict } from "../runtime/index.ts";
import type { ModelRunner } from "./models-file.ts";
import { RUNNER_LABEL } from "./names.ts";
import { runnerReplicas } from "./runner.ts";

export interface AiSeen {
  models: readonly ModelRunner[];
  /** The Orchestrator's runner pods. */
  runnerPods: readonly PodFacts[];
  /** The runner doctor's latest readings (Ready pods only). */
  readings: readonly NodeReading[];
}

/** One runner pod's state, in words; `serves` when it takes requests. */
function runnerState(pod: PodFacts, reading: NodeReading | undefined): { serves: boolean; words: string } {
  const name = pod.metadata?.name ?? "";
  const unscheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False");
  if (unscheduled)
    return { serves: false, words: `${name} not scheduled: ${unscheduled.message ?? "no node fits"}` };
  if (!podReady(pod)) {
    const waiting = pod.status?.containerStatuses?.map((c) => c.state?.waiting?.reason).find(Boolean);
    return { serves: false, words: `${name} starting (${waiting ?? "loading the model: cold start"})` };
  }
  if (!reading) return { serves: false, words: `${name} Ready, /health not read yet` };
  if (reading.failed)
    return { serves: false, words: `${name} does not answer /health: ${reading.failed.message}` };
  if (runnerServes(reading.health)) return { serves: true, words: `${name} ${reading.health}` };
  if (reading.health === "LOADING") return { serves: false, words: `${name} loading the model (cold start)` };
  return { serves: false, words: `${name} reports ${reading.health ?? "nothing"}` };
}

export function aiModelStatus(m: ModelRunner, seen: AiSeen): AiModelStatus {
  const base = { pipeline: m.model.pipeline, modelId: m.model.model_id };
  if (!m.runner) {
    return {
      ...base,
      runner: m.url,
      ready: true,
      runners: 0,
      capacity: m.model.capacity ?? 1,
      reason: `a runner you run at ${m.url}: not checked by the operator`,
    };
  }
  const want = runnerReplicas(m.model);
  const pods = seen.runnerPods
    .filter((p) => p.metadata?.labels?.[RUNNER_LABEL] === m.runner && !p.metadata?.deletionTimestamp)
    .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
  const states = pods.map((p) =>
    runnerState(
      p,
      seen.readings.find((r) => r.pod === p.metadata?.name),
    ),
  );
  const serving = states.filter((s) => s.serves).length;
  const waiting = states.filter((s) => !s.serves).map((s) => s.words);
  const ready = serving >= want && pods.length > 0;
  const reason = ready
    ? `${serving} of ${want} runner(s) serve (Deployment ${m.runner})`
    : pods.length === 0
      ? `no runner pod yet (Deployment ${m.runner}, ${want} wanted)`
      : `${serving} of ${want} runner(s) serve: ${waiting.join("; ")}`;
  return {
    ...base,
    runner: m.runner,
    ready,
    runners: serving,
    capacity: want,
    reason: reason.slice(0, 1024),
  };
}

export function aiStatusOf(seen: AiSeen): AiStatus | undefined {
  if (seen.models.length === 0) return undefined;
  return { models: seen.models.map((m) => aiModelStatus(m, seen)) };
}

/** AIReady: every model's runners serve; False names the ones that do not, and why. */
export function aiReady(status: AiStatus | undefined): Verdict | undefined {
  if (!status) return undefined;
  const cold = status.models.filter((m) => !m.ready);
  if (cold.length === 0) {
    return {
      status: "True",
      reason: "RunnersServing",
      message: `${status.models.length} model(s) served: ${status.models
        .map((m) => `${m.pipeline} ${m.modelId} (capacity ${m.capacity})`)
        .join(", ")}`,
    };
  }
  return {
    status: "False",
    reason: "RunnersNotReady",
    message: `${cold.length} of ${status.models.length} model(s) not served yet: ${cold
      .map((m) => `${m.pipeline} ${m.modelId}: ${m.reason}`)
      .join("; ")}`.slice(0, 32_000),
  };
}
