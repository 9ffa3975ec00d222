import { describe, expect, it } from "vitest";
import { type AiOffer, aiCoverage, gatewayAiAsks, noAiCapableOrchestrator } from "./gateway-offers.ts";

const SD = "stabilityai/sd-turbo";
const video: AiOffer = { orchestrator: "video", models: [] };
const ai = (ready: boolean): AiOffer => ({
  orchestrator: "ai",
  models: [{ pipeline: "text-to-image", modelId: SD, ready }],
});
const capSd = { maxPricePerCapability: [{ pipeline: "text-to-image", modelId: SD }] };

describe("NoAICapableOrchestrator", () => {
  it.each<[string, Parameters<typeof gatewayAiAsks>[0], AiOffer[], RegExp | undefined]>([
    ["no AI asked: nothing to say", {}, [video], undefined],
    [
      "a capped model, only video orchestrators",
      capSd,
      [video],
      /none of the 1 orchestrator\(s\).*serves text-to-image stabilityai\/sd-turbo from spec.maxPricePerCapability/,
    ],
    ["a capped model an AI orchestrator serves", capSd, [video, ai(true)], undefined],
    ["the AI orchestrator is still loading it", capSd, [video, ai(false)], /\(cold: ai still loading it\)/],
    [
      "a pipeline asked for, any model",
      { ai: { pipelines: [{ pipeline: "text-to-image" }] } },
      [ai(true)],
      undefined,
    ],
    [
      "a pipeline nobody serves",
      { ai: { pipelines: [{ pipeline: "llm" }] } },
      [ai(true)],
      /llm \(any model\) from spec.ai.pipelines/,
    ],
    [
      "the cap's model differs from the served one",
      { maxPricePerCapability: [{ pipeline: "text-to-image", modelId: "ByteDance/SDXL-Lightning" }] },
      [ai(true)],
      /ByteDance\/SDXL-Lightning/,
    ],
  ])("%s", (_, spec, offers, message) => {
    const f = noAiCapableOrchestrator(aiCoverage(gatewayAiAsks(spec), offers), offers.length);
    if (!message) expect(f).toBeUndefined();
    else
      expect(f).toEqual({
        id: "NoAICapableOrchestrator",
        severity: "warning",
        message: expect.stringMatching(message),
      });
  });

  it("asks once per pipeline/model, caps first", () => {
    expect(
      gatewayAiAsks({
        maxPricePerCapability: [{ pipeline: "text-to-image", modelId: SD }],
        ai: { pipelines: [{ pipeline: "text-to-image", modelId: SD }, { pipeline: "llm" }] },
      }),
    ).toEqual([
      { pipeline: "text-to-image", modelId: SD, source: "maxPricePerCapability" },
      { pipeline: "llm", source: "ai.pipelines" },
    ]);
  });
});
