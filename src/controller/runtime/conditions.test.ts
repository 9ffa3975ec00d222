import { describe, expect, it } from "vitest";
import type { Condition } from "../../schema/condition.ts";
import {
  type ConditionUpdate,
  conditionTime,
  ensureConditions,
  setCondition,
  statusChanged,
  validateReason,
} from "./conditions.ts";

const t0 = new Date("2026-01-01T00:00:00.000Z");
const t1 = new Date("2026-01-01T00:05:00.250Z");
const ready = (
  status: Condition["status"],
  reason: string,
  at = "2026-01-01T00:00:00Z",
  gen = 1,
): Condition => ({
  type: "Ready",
  status,
  reason,
  message: "m",
  observedGeneration: gen,
  lastTransitionTime: at,
});

describe("setCondition", () => {
  const cases: Array<[string, Condition[] | undefined, ConditionUpdate, number, Condition[]]> = [
    [
      "adds a condition on the first visit",
      undefined,
      { type: "Ready", status: "False", reason: "SecretNotFound", message: "m" },
      1,
      [ready("False", "SecretNotFound", "2026-01-01T00:05:00Z")],
    ],
    [
      "keeps lastTransitionTime when only the reason changes",
      [ready("False", "SecretNotFound")],
      { type: "Ready", status: "False", reason: "SecretKeyMissing", message: "m" },
      1,
      [ready("False", "SecretKeyMissing")],
    ],
    [
      "moves lastTransitionTime when the status changes",
      [ready("False", "SecretKeyMissing")],
      { type: "Ready", status: "True", reason: "Configured", message: "m" },
      1,
      [ready("True", "Configured", "2026-01-01T00:05:00Z")],
    ],
    [
      "records the generation it describes",
      [ready("True", "Configured")],
      { type: "Ready", status: "True", reason: "Configured", message: "m" },
      7,
      [ready("True", "Configured", "2026-01-01T00:00:00Z", 7)],
    ],
    [
      "leaves other condition types alone and keeps their order",
      [{ ...ready("True", "Scheduled"), type: "Scheduled" }, ready("Unknown", "Reconciling")],
      { type: "Ready", status: "True", reason: "Configured", message: "m" },
      1,
      [
        { ...ready("True", "Scheduled"), type: "Scheduled" },
        ready("True", "Configured", "2026-01-01T00:05:00Z"),
      ],
    ],
    [
      "unread (nothing asked yet since a restart) keeps a True known for this generation",
      [ready("True", "Configured", "2026-01-01T00:00:00Z", 3)],
      { type: "Ready", status: "Unknown", reason: "Checking", message: "not read yet", unread: true },
      3,
      [ready("True", "Configured", "2026-01-01T00:00:00Z", 3)],
    ],
    [
      "unread after a spec change: the True described the older spec, Unknown it is",
      [ready("True", "Configured", "2026-01-01T00:00:00Z", 2)],
      { type: "Ready", status: "Unknown", reason: "Checking", message: "m", unread: true },
      3,
      [ready("Unknown", "Checking", "2026-01-01T00:05:00Z", 3)],
    ],
    [
      "unread keeps a known False as it stands",
      [ready("False", "SecretNotFound")],
      { type: "Ready", status: "Unknown", reason: "Checking", message: "not read yet", unread: true },
      1,
      [ready("False", "SecretNotFound")],
    ],
    [
      "unread over Unknown is written (nothing known to keep)",
      [ready("Unknown", "Reconciling")],
      { type: "Ready", status: "Unknown", reason: "Checking", message: "m", unread: true },
      1,
      [ready("Unknown", "Checking")],
    ],
    [
      "unread on the first visit is written",
      undefined,
      { type: "Ready", status: "Unknown", reason: "Checking", message: "m", unread: true },
      1,
      [ready("Unknown", "Checking", "2026-01-01T00:05:00Z")],
    ],
  ];
  it.each(cases)("%s", (_name, before, update, generation, expected) => {
    const frozen = structuredClone(before);
    expect(setCondition(before, update, { generation, now: t1 })).toEqual(expected);
    expect(before).toEqual(frozen); // pure: the input is not modified
  });

  it.each(["", "secretNotFound", "Secret Not Found", "Secret-NotFound", "Secret_NotFound", "1Bad"])(
    "rejects the non-CamelCase reason %j with a hint",
    (reason) => {
      expect(() =>
        setCondition([], { type: "Ready", status: "False", reason }, { generation: 1, now: t0 }),
      ).toThrow(/CamelCase.*SecretNotFound/);
    },
  );

  it.each(["SecretNotFound", "Configured", "NVENCCapExceeded", "Http2"])(
    "accepts the reason %s",
    (reason) => {
      expect(() => validateReason(reason)).not.toThrow();
    },
  );

  it("writes times at second precision, like the API server returns them", () => {
    expect(conditionTime(new Date("2026-01-01T00:00:00.999Z"))).toBe("2026-01-01T00:00:00Z");
  });
});

describe("ensureConditions", () => {
  it("adds missing types as Unknown on the first visit and keeps existing ones", () => {
    const out = ensureConditions([ready("True", "Configured")], ["Ready", "Scheduled"], {
      generation: 2,
      now: t0,
    });
    expect(out).toEqual([
      ready("True", "Configured"),
      {
        type: "Scheduled",
        status: "Unknown",
        reason: "Reconciling",
        message: "the controller has not finished checking this resource yet",
        observedGeneration: 2,
        lastTransitionTime: "2026-01-01T00:00:00Z",
      },
    ]);
  });
});

describe("statusChanged", () => {
  it.each<[string, unknown, unknown, boolean]>([
    [
      "same content, different key order",
      { a: 1, b: { c: 2, d: [1, 2] } },
      { b: { d: [1, 2], c: 2 }, a: 1 },
      false,
    ],
    ["an undefined field equals an absent one", { a: 1, b: undefined }, { a: 1 }, false],
    ["a changed value", { a: 1 }, { a: 2 }, true],
    ["a reordered list (conditions order matters to readers)", { l: [1, 2] }, { l: [2, 1] }, true],
    ["no status yet", undefined, { conditions: [] }, true],
  ])("%s", (_name, before, after, changed) => {
    expect(statusChanged(before, after)).toBe(changed);
  });

  it("does not see a change when a condition is set again to what it was", () => {
    const before = { observedGeneration: 1, conditions: [ready("True", "Configured")] };
    const after = {
      observedGeneration: 1,
      conditions: setCondition(
        before.conditions,
        { type: "Ready", status: "True", reason: "Configured", message: "m" },
        { generation: 1, now: t1 },
      ),
    };
    expect(statusChanged(before, after)).toBe(false);
  });
});
