import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseCapabilityPrices } from "./capability-prices.ts";

const defaults = { maxPricePerUnit: "0", pixelsPerUnit: "1" };

describe("parseCapabilityPrices reads -maxPricePerCapability as the node does", () => {
  it.each([
    [
      "a model's cap with its own pixels per unit",
      '{"capabilities_prices":[{"pipeline":"text-to-image","model_id":"stabilityai/sd-turbo","price_per_unit":1000,"pixels_per_unit":3}]}',
      defaults,
      [
        {
          pipeline: "text-to-image",
          modelID: "stabilityai/sd-turbo",
          maxPricePerUnit: "1000",
          pixelsPerUnit: "3",
          currency: "wei",
        },
      ],
    ],
    [
      "no model_id: every model of the pipeline (default), -pixelsPerUnit when absent",
      '{"capabilities_prices":[{"pipeline":"llm","price_per_unit":"0.5","currency":"USD"}]}',
      { maxPricePerUnit: "0", pixelsPerUnit: "7" },
      [{ pipeline: "llm", modelID: "default", maxPricePerUnit: "0.5", pixelsPerUnit: "7", currency: "USD" }],
    ],
    [
      "no price: -maxPricePerUnit stands in",
      '{"capabilities_prices":[{"pipeline":"upscale","model_id":"a/b"}]}',
      { maxPricePerUnit: "300", pixelsPerUnit: "1" },
      [{ pipeline: "upscale", modelID: "a/b", maxPricePerUnit: "300", pixelsPerUnit: "1", currency: "wei" }],
    ],
  ])("%s", (_name, flag, d, caps) => {
    expect(parseCapabilityPrices(flag, d)).toEqual({ caps, skipped: [] });
  });

  it("skips an entry without a price when -maxPricePerUnit is not set either (any price), saying so", () => {
    const r = parseCapabilityPrices(
      '{"capabilities_prices":[{"pipeline":"text-to-image","model_id":"a/b"}]}',
      defaults,
    );
    expect(r).toEqual({
      caps: [],
      skipped: [expect.stringMatching(/capability=text-to-image model_id=a\/b .*accept ANY price/)],
    });
  });

  it("reads a file when the value names one", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "caps-"));
    try {
      const file = path.join(dir, "prices.json");
      writeFileSync(
        file,
        '{"capabilities_prices":[{"pipeline":"text-to-image","model_id":"a/b","price_per_unit":5}]}',
      );
      expect(parseCapabilityPrices(file, defaults)).toMatchObject({
        caps: [{ modelID: "a/b", maxPricePerUnit: "5" }],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reports JSON it cannot read with the node's words", () => {
    expect(parseCapabilityPrices("{nope", defaults)).toEqual({
      error: expect.stringMatching(/^model prices could not be parsed: /),
    });
    expect(
      parseCapabilityPrices('{"capabilities_prices":[{"pipeline":"x","price_per_unit":"1USD"}]}', defaults),
    ).toEqual({
      error: 'model prices could not be parsed: invalid price value "1USD"',
    });
  });
});
