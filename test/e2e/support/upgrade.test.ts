import { describe, expect, it } from "vitest";
import { ConditionTimeline, changedConditions, podFate } from "./upgrade.ts";

const before = { name: "o-0", uid: "u1", restarts: 0, revision: "o-abc", statefulSet: "o" };

describe("podFate", () => {
  it.each([
    [
      "same rendering, same pod",
      { uid: "u1", restarts: 0 },
      "o-abc",
      { renderingChanged: false, kept: true, restarted: false },
    ],
    [
      "same rendering, restarted in place",
      { uid: "u1", restarts: 1 },
      "o-abc",
      { renderingChanged: false, kept: true, restarted: true },
    ],
    [
      "same rendering, replaced",
      { uid: "u2", restarts: 0 },
      "o-abc",
      { renderingChanged: false, kept: false, restarted: false },
    ],
    [
      "new rendering, kept (busy)",
      { uid: "u1", restarts: 0 },
      "o-def",
      { renderingChanged: true, kept: true, restarted: false },
    ],
    ["new rendering, gone", undefined, "o-def", { renderingChanged: true, kept: false, restarted: false }],
  ] as const)("%s", (_, after, revision, want) => {
    expect(podFate(before, after, revision)).toEqual({ name: "o-0", ...want });
  });
});

describe("changedConditions", () => {
  const t1 = "2026-01-01T00:00:00Z";
  const t2 = "2026-01-01T00:05:00Z";
  it("a status change with a new time is a change; a kept status with a new time is a restamp; new types are ignored", () => {
    const r = changedConditions(
      [
        { type: "Ready", status: "True", lastTransitionTime: t1 },
        { type: "NodeReachable", status: "True", lastTransitionTime: t1 },
        { type: "Scheduled", status: "True", lastTransitionTime: t1 },
      ],
      [
        { type: "Ready", status: "False", lastTransitionTime: t2 },
        { type: "NodeReachable", status: "True", lastTransitionTime: t2 },
        { type: "Scheduled", status: "True", lastTransitionTime: t1 },
        { type: "RolloutPending", status: "True", lastTransitionTime: t2 },
      ],
    );
    expect(r).toEqual({
      changed: ["Ready: True -> False"],
      unchangedButRestamped: [`NodeReachable True: ${t1} -> ${t2}`],
    });
  });
});

describe("ConditionTimeline", () => {
  it("records each type's status and reason changes in order, not the samples that repeat", () => {
    const t = new ConditionTimeline();
    const at = (s: number) => new Date(Date.UTC(2026, 10, 28, 8, 0, s));
    t.observe("gw", [{ type: "NodeReachable", status: "True", reason: "EndpointsAnswering" }], at(1));
    t.observe("gw", [{ type: "NodeReachable", status: "True", reason: "EndpointsAnswering" }], at(2));
    t.observe("gw", [{ type: "NodeReachable", status: "Unknown", reason: "NotChecked" }], at(3));
    t.observe("gw", [{ type: "NodeReachable", status: "True", reason: "EndpointsAnswering" }], at(4));
    expect(t.changes("gw")).toEqual([
      "08:00:01 NodeReachable=True EndpointsAnswering",
      "08:00:03 NodeReachable=Unknown NotChecked",
      "08:00:04 NodeReachable=True EndpointsAnswering",
    ]);
    expect(t.changes("other")).toEqual([]);
  });
});
