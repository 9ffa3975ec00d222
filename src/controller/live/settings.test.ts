import { describe, expect, it } from "vitest";
import type { FlagValues } from "../../node/config/index.ts";
import { GATEWAY_PRICE_CAP, ORCHESTRATOR_PRICE, priceParts, SESSION_LIMIT } from "./node-settings.ts";
import { liveChanges, liveFlagNames, recordedLive } from "./settings.ts";

const changesOf = (flags: FlagValues, recorded: Record<string, string> | undefined) =>
  liveChanges([SESSION_LIMIT, ORCHESTRATOR_PRICE], flags, recorded).map((c) => [
    c.setting.what,
    c.from,
    c.to,
  ]);

describe("live changes of an orchestrator's session limit and price", () => {
  it.each<[string, FlagValues, Record<string, string> | undefined, [string, string, string][]]>([
    [
      "a new integer limit",
      { maxSessions: "10" },
      { "livepeer.org/max-sessions": "8" },
      [["session limit", "8", "10"]],
    ],
    ["unchanged", { maxSessions: "8" }, { "livepeer.org/max-sessions": "8" }, []],
    [
      "nothing recorded yet (first rollout, or a ConfigMap from before the annotation)",
      { maxSessions: "8" },
      undefined,
      [],
    ],
    [
      "split setup: auto is the transcoders' sum, never set live",
      { maxSessions: "auto" },
      { "livepeer.org/max-sessions": "8" },
      [],
    ],
    [
      "0 (no GPU fits: an invalid flag, reported instead)",
      { maxSessions: "0" },
      { "livepeer.org/max-sessions": "8" },
      [],
    ],
    [
      "recorded auto, now an integer (split setup removed: the template changes anyway)",
      { maxSessions: "8" },
      { "livepeer.org/max-sessions": "auto" },
      [["session limit", "auto", "8"]],
    ],
    [
      "a new price, pixels included",
      { maxSessions: "8", pricePerUnit: "1200", pixelsPerUnit: 3 },
      { "livepeer.org/max-sessions": "8", "livepeer.org/price": "1000/1" },
      [["price", "1000/1", "1200/3"]],
    ],
    [
      "both at once",
      { maxSessions: "4", pricePerUnit: "5" },
      { "livepeer.org/max-sessions": "8", "livepeer.org/price": "1000/1" },
      [
        ["session limit", "8", "4"],
        ["price", "1000/1", "5/1"],
      ],
    ],
    [
      "a price removed: the template changes (no live call takes 'no price')",
      { maxSessions: "8" },
      { "livepeer.org/price": "1000/1" },
      [],
    ],
  ])("%s", (_n, flags, recorded, want) => expect(changesOf(flags, recorded)).toEqual(want));
});

describe("what the ConfigMap records", () => {
  it("each live setting's value, and nothing for a value a node cannot take live", () => {
    expect(
      recordedLive([SESSION_LIMIT, ORCHESTRATOR_PRICE], { maxSessions: "auto", pricePerUnit: "0.5USD" }),
    ).toEqual({
      "livepeer.org/price": "0.5USD/1",
    });
    expect(recordedLive([GATEWAY_PRICE_CAP, SESSION_LIMIT], { maxSessions: "10" })).toEqual({
      "livepeer.org/max-price": "0/1",
      "livepeer.org/max-sessions": "10",
    });
  });

  it("the flags a role leaves out of its pod template's hash", () => {
    expect(liveFlagNames([GATEWAY_PRICE_CAP, SESSION_LIMIT])).toEqual([
      "maxPricePerUnit",
      "pixelsPerUnit",
      "maxSessions",
    ]);
  });
});

describe("prices as the CLI endpoints take them", () => {
  it.each([
    ["1000", { amount: "1000" }],
    ["0.5USD", { amount: "0.5", currency: "USD" }],
    ["2eth", { amount: "2", currency: "eth" }],
  ])("%s", (price, want) => expect(priceParts(price)).toEqual(want));
});
