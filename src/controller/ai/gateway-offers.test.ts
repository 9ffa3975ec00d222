import { describe, expect, it } from "vitest";
import {
  type AiOffer,
  aiCoverage,
  gatewayAiAsks,
  noAiCapableOrchestrator,
  noLiveCapableOrchestrator,
} from "./gateway-offers.ts";

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

describe("noLiveCapableOrchestrator: live apps a gateway declares that no given orchestrator offers", () => {
  const offers = [
    { orchestrator: "a", apps: [{ app: "live-video-to-video/sd", healthy: 2, desired: 2 }] },
    { orchestrator: "b", apps: [{ app: "live-video-to-video/comfyui", healthy: 0, desired: 1 }] },
  ];
  it.each([
    ["offered with a healthy runner", ["sd"], undefined],
    [
      "declared by an orchestrator whose runners are not healthy",
      ["comfyui"],
      /live-video-to-video\/comfyui \(declared by b, no healthy runner yet\)/,
    ],
    [
      "offered by none",
      ["scope"],
      /none of the 2 orchestrator\(s\) this gateway is given offers live-video-to-video\/scope:/,
    ],
  ])("%s", (_, apps, message) => {
    const f = noLiveCapableOrchestrator(apps, offers, 2);
    if (!message) expect(f).toBeUndefined();
    else {
      expect(f).toMatchObject({ id: "NoLiveCapableOrchestrator", severity: "warning" });
      expect(f!.message).toMatch(message);
    }
  });
});
