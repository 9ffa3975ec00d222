import { describe, expect, it } from "vitest";
import type { Finding } from "../../schema/finding.ts";
import type { PodFacts } from "../node-status/facts.ts";
import { runnerFindings } from "./findings.ts";

const high: Finding = {
  id: "GpuMemoryHigh",
  severity: "warning",
  message:
    "GPU memory above 85%: GPU 0 91% (pod r-0). Separate video and AI onto dedicated nodes, or lower AI capacity on this one.",
  since: "2026-11-24T16:00:00Z",
};
const oom: Finding = {
  id: "GpuOutOfMemory",
  severity: "error",
  message: "pod r-0 logged ...",
  since: high.since,
};
const runner = (node: string): PodFacts => ({ metadata: { name: "r-0" }, spec: { nodeName: node } });

describe("runner findings in the Orchestrator's status", () => {
  it.each([
    [
      "a runner beside the video pod: names the split",
      "gpu-a",
      "gpu-a",
      /Video and AI share node gpu-a \(runner r-0 beside the orchestrator's video pod\): move the runners to dedicated AI nodes/,
    ],
    [
      "a runner on its own node: lower capacity or a bigger GPU",
      "gpu-b",
      "gpu-a",
      /has its GPU to itself: lower the model's capacity/,
    ],
    ["an AI-only orchestrator (no video pod node)", "gpu-b", undefined, /has its GPU to itself/],
  ])("GPU memory above 85 %%, %s", (_, runnerNode, videoNode, message) => {
    const [f] = runnerFindings([high], [runner(runnerNode)], videoNode);
    expect(f?.message).toMatch(/^AI runner: GPU memory above 85%/);
    expect(f?.message).toMatch(message);
    expect(f?.severity).toBe("warning");
  });

  it("other findings pass unchanged", () => {
    expect(runnerFindings([oom], [runner("gpu-a")], "gpu-a")).toEqual([oom]);
  });
});
