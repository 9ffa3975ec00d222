import { describe, expect, it } from "vitest";
import { aiPriceCapTooLow, type CapabilityCap, type ModelPrice } from "./gateway-prices.ts";

const SD = "stabilityai/sd-turbo";
/** modelId null: a cap for every model of the pipeline. */
const cap = (maxPricePerUnit: string, modelId: string | null = SD): CapabilityCap => ({
  pipeline: "text-to-image",
  ...(modelId ? { modelId } : {}),
  maxPricePerUnit,
  pixelsPerUnit: 1,
});
const price = (orchestrator: string, pricePerUnit: string, modelId = SD): ModelPrice => ({
  orchestrator,
  pipeline: "text-to-image",
  modelId,
  pricePerUnit,
  pixelsPerUnit: 1,
});

describe("AIPriceCapTooLow", () => {
  it.each<[string, CapabilityCap[], ModelPrice[], RegExp | undefined]>([
    [
      "every server of the capped model asks more",
      [cap("1000")],
      [price("a", "5000"), price("b", "2000")],
      /text-to-image stabilityai\/sd-turbo: cap 1000 per 1, but a asks .*b asks/,
    ],
    ["one is within the cap", [cap("3000")], [price("a", "5000"), price("b", "2000")], undefined],
    ["a cap of 0 accepts any price", [cap("0")], [price("a", "5000")], undefined],
    ["different units cannot be compared", [cap("0.01USD")], [price("a", "5000")], undefined],
    [
      "nobody serves the model: NoAICapableOrchestrator's business",
      [cap("1")],
      [price("a", "5000", "a/other")],
      undefined,
    ],
    [
      "a cap for every model of the pipeline",
      [cap("10", null)],
      [price("a", "5000", "a/other")],
      /text-to-image: cap 10/,
    ],
    [
      "the -autoAdjustPrice overhead alone takes it above",
      [cap("1000")],
      [price("a", "1000")],
      /ticket overhead/,
    ],
  ])("%s", (_, caps, prices, message) => {
    const f = aiPriceCapTooLow(caps, prices);
    if (!message) expect(f).toBeUndefined();
    else
      expect(f).toEqual({
        id: "AIPriceCapTooLow",
        severity: "warning",
        message: expect.stringMatching(message),
      });
  });
});
