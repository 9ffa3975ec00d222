// The runner doctor's findings as the Orchestrator's status shows them (pure): GPU memory above
// 85 % names the video/AI split the spec advises when a runner shares a node with the video pod.
import type { Finding } from "../../schema/finding.ts";
import type { PodFacts } from "../node-status/facts.ts";

export function runnerFindings(
  findings: readonly Finding[],
  runnerPods: readonly PodFacts[],
  videoNode: string | undefined,
): Finding[] {
  return findings.map((f) => {
    if (f.id !== "GpuMemoryHigh") return f;
    const sharing = runnerPods
      .filter((p) => videoNode && p.spec?.nodeName === videoNode)
      .map((p) => p.metadata?.name);
    const split = sharing.length
      ? ` Video and AI share node ${videoNode} (runner ${sharing.join(", ")} beside the orchestrator's video pod): move the runners to dedicated AI nodes (runner.gpuProduct, e.g. an A100) or the video to its own node.`
      : " The runner has its GPU to itself: lower the model's capacity or unload warm models, or give it a GPU with more memory (runner.gpuMemoryMiB).";
    return { ...f, message: `AI runner: ${f.message}${split}`.slice(0, 4096) };
  });
}
