import { describe, expect, it } from "vitest";
import { formatSelector, type LabelSelector, requirementMatches, selectorMatches } from "./label-selector.ts";

const labels = { pool: "main", tier: "gold", "gpu.count": "4" };

describe("label requirements", () => {
  it.each([
    ["In, value listed", { key: "pool", operator: "In", values: ["main", "x"] }, true],
    ["In, value not listed", { key: "pool", operator: "In", values: ["x"] }, false],
    ["In, label absent", { key: "zone", operator: "In", values: ["a"] }, false],
    ["NotIn, value listed", { key: "pool", operator: "NotIn", values: ["main"] }, false],
    ["NotIn, label absent", { key: "zone", operator: "NotIn", values: ["a"] }, true],
    ["Exists", { key: "tier", operator: "Exists" }, true],
    ["Exists, absent", { key: "zone", operator: "Exists" }, false],
    ["DoesNotExist", { key: "zone", operator: "DoesNotExist" }, true],
    ["DoesNotExist, present", { key: "tier", operator: "DoesNotExist" }, false],
    ["Gt", { key: "gpu.count", operator: "Gt", values: ["3"] }, true],
    ["Gt, equal", { key: "gpu.count", operator: "Gt", values: ["4"] }, false],
    ["Lt", { key: "gpu.count", operator: "Lt", values: ["5"] }, true],
    ["Gt on a non-integer label", { key: "pool", operator: "Gt", values: ["1"] }, false],
    ["unknown operator", { key: "pool", operator: "Like", values: ["main"] }, false],
  ])("%s", (_, req, expected) => {
    expect(requirementMatches(labels, req)).toBe(expected);
  });
});

describe("label selectors", () => {
  it.each<[string, LabelSelector, boolean]>([
    ["{} selects everything", {}, true],
    ["matchLabels all equal", { matchLabels: { pool: "main", tier: "gold" } }, true],
    ["one matchLabel differs", { matchLabels: { pool: "main", tier: "silver" } }, false],
    [
      "labels and expressions together",
      { matchLabels: { pool: "main" }, matchExpressions: [{ key: "zone", operator: "DoesNotExist" }] },
      true,
    ],
    [
      "an expression fails",
      {
        matchLabels: { pool: "main" },
        matchExpressions: [{ key: "tier", operator: "NotIn", values: ["gold"] }],
      },
      false,
    ],
  ])("%s", (_, selector, expected) => {
    expect(selectorMatches(selector, labels)).toBe(expected);
  });

  it("an object without labels matches only selectors that allow that", () => {
    expect(selectorMatches({}, undefined)).toBe(true);
    expect(selectorMatches({ matchLabels: { pool: "main" } }, undefined)).toBe(false);
  });

  it("prints the selector as kubectl does", () => {
    expect(
      formatSelector({
        matchLabels: { pool: "main" },
        matchExpressions: [
          { key: "tier", operator: "In", values: ["a", "b"] },
          { key: "legacy", operator: "DoesNotExist" },
          { key: "gpu", operator: "Exists" },
        ],
      }),
    ).toBe("pool=main,tier in (a,b),!legacy,gpu");
  });
});
