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
      restamped: ["NodeReachable"],
    });
  });
});

describe("ConditionTimeline", () => {
  const at = (s: number) => new Date(Date.UTC(2026, 10, 28, 8, 0, s));
  const reach = (status: string, reason: string) => [{ type: "NodeReachable", status, reason }];

  it("records each type's status and reason changes in order, not the versions that repeat", () => {
    const t = new ConditionTimeline();
    t.observe("gw", reach("True", "EndpointsAnswering"), at(1));
    t.observe("gw", reach("True", "EndpointsAnswering"), at(2));
    t.observe("gw", reach("Unknown", "NotChecked"), at(3));
    t.observe("gw", reach("True", "EndpointsAnswering"), at(4));
    expect(t.changes("gw")).toEqual([
      "08:00:01.000 NodeReachable=True EndpointsAnswering",
      "08:00:03.000 NodeReachable=Unknown NotChecked",
      "08:00:04.000 NodeReachable=True EndpointsAnswering",
    ]);
    expect(t.changes("other")).toEqual([]);
  });

  it("a known answer that went back to 'not read yet' is a restart artifact; a real change is not", () => {
    const t = new ConditionTimeline();
    t.observe("o", reach("True", "EndpointsAnswering"), at(1));
    t.observe("o", reach("False", "EndpointUnreachable"), at(2));
    t.observe("o", reach("True", "EndpointsAnswering"), at(3));
    expect(t.backToUnread("o")).toEqual([]);
    t.observe("o", reach("Unknown", "Checking"), at(4));
    expect(t.backToUnread("o")).toEqual(["08:00:04.000 NodeReachable=Unknown Checking"]);
    // Unknown before anything was known (a first visit) is no artifact.
    const first = new ConditionTimeline();
    first.observe("n", reach("Unknown", "Reconciling"), at(1));
    first.observe("n", reach("True", "EndpointsAnswering"), at(2));
    expect(first.backToUnread("n")).toEqual([]);
  });

  it("a re-stamp is explained only by another status seen in between, a disappearance included", () => {
    const t = new ConditionTimeline();
    const both = [
      { type: "Ready", status: "True", reason: "Serving" },
      { type: "Funded", status: "True", reason: "Funded" },
      { type: "Scheduled", status: "True", reason: "Scheduled" },
    ];
    t.observe("g", both, at(1));
    t.observe("g", [{ ...both[0]!, status: "False", reason: "NoOrchestratorsReady" }, both[2]!], at(2));
    t.observe("g", [{ ...both[0]!, reason: "Serving again" }, both[1]!, both[2]!], at(3));
    expect(t.changes("g")).toContain("08:00:02.000 Funded=absent");
    const restamped = ["Ready", "Funded", "Scheduled"].map((type) => ({ type, status: "True" }));
    expect(t.unexplained("g", restamped)).toEqual(["Scheduled"]);
  });

  it("judged from an instant: what came before (the old controller's term) is the baseline, not judged", () => {
    const t = new ConditionTimeline();
    t.observe("o", reach("True", "EndpointsAnswering"), at(1));
    t.observe("o", reach("Unknown", "Checking"), at(2)); // the previous release's own flap
    t.observe("o", [{ ...reach("True", "EndpointsAnswering")[0]!, lastTransitionTime: "t3" }], at(3));
    t.observe("o", [{ ...reach("True", "EndpointsAnswering")[0]!, lastTransitionTime: "t3" }], at(5));
    expect(t.backToUnread("o")).toHaveLength(1);
    expect(t.backToUnread("o", at(4))).toEqual([]);
    expect(t.at("o", at(4))[0]?.lastTransitionTime).toBe("t3");
    expect(t.at("o", at(0))).toEqual(reach("True", "EndpointsAnswering"));
    expect(t.changes("o", at(4))).toEqual(["08:00:03.000 NodeReachable=True EndpointsAnswering"]);
    expect(t.unexplained("o", [{ type: "NodeReachable", status: "True" }], at(4))).toEqual(["NodeReachable"]);
  });
});
