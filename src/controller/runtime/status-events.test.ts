// Which status changes become Events, for every reconciler alike: one per new warning/error
// finding, one per transition of a named condition type, none for Unknown, none for a condition's
// first healthy value but Ready's, and no second Event for a Ready=False that a finding's Event
// just explained.
import { describe, expect, it } from "vitest";
import type { Condition } from "../../schema/condition.ts";
import { numericStatusFacts, type StatusNews, type StatusWithNews, statusNews } from "./status-events.ts";

/** `Type=Status/Reason`, e.g. `Ready=True/Serving`. */
const cond = (text: string): Condition => {
  const [, type, status, reason] = /^(\w+)=(\w+)\/(\w+)$/.exec(text)!;
  return {
    type: type!,
    status: status as Condition["status"],
    reason: reason!,
    message: `${reason} message`,
    lastTransitionTime: "2026-01-01T00:00:00Z",
  };
};
const conds = (...texts: string[]): StatusWithNews => ({ conditions: texts.map(cond) });
const finding = (id: string, severity: "normal" | "warning" | "error") => ({
  id,
  severity,
  message: `${id} seen`,
});

const news: StatusNews = {
  conditions: { Scheduled: "Schedule", RolloutPending: "Rollout", Ready: "Reconcile" },
  trueIsUnhealthy: ["RolloutPending"],
};

/** Each item as `Type Reason/action`, or `log` when it makes no Event. */
const told = (before: StatusWithNews, after: StatusWithNews, n: StatusNews = news) =>
  statusNews(before, after, n).map((i) =>
    i.event ? `${i.event.type} ${i.event.reason}/${i.event.action}` : "log",
  );

describe("statusNews: condition transitions", () => {
  it.each<[string, string[], string[], string[]]>([
    ["first visit, Ready Unknown: logged, no Event", [], ["Ready=Unknown/Reconciling"], ["log"]],
    [
      "Ready becomes True: a Normal Event",
      ["Ready=Unknown/Reconciling"],
      ["Ready=True/Serving"],
      ["Normal Serving/Reconcile"],
    ],
    [
      "Ready becomes False: a Warning Event",
      ["Ready=True/Serving"],
      ["Ready=False/Unreachable"],
      ["Warning Unreachable/Reconcile"],
    ],
    ["back to Unknown: logged, no Event", ["Ready=True/Serving"], ["Ready=Unknown/CheckingNode"], ["log"]],
    [
      "same status, new reason: news",
      ["Ready=False/PodsNotReady"],
      ["Ready=False/Unreachable"],
      ["Warning Unreachable/Reconcile"],
    ],
    ["same status and reason: not news", ["Ready=False/PodsNotReady"], ["Ready=False/PodsNotReady"], []],
    [
      "a type the reconciler does not name: not news",
      ["NodeReachable=True/A"],
      ["NodeReachable=False/B"],
      [],
    ],
    ["a named type disappearing: not news", ["Ready=True/Serving"], [], []],
    ["Ready healthy at the first visit: news", [], ["Ready=True/Serving"], ["Normal Serving/Reconcile"]],
    [
      "another type's first healthy value (settling after a creation): logged, no Event",
      ["Scheduled=Unknown/PodPending"],
      ["Scheduled=True/Scheduled"],
      ["log"],
    ],
    ["another type healthy at the first visit: logged, no Event", [], ["Scheduled=True/Scheduled"], ["log"]],
    [
      "another type unhealthy at the first visit: a Warning Event",
      [],
      ["Scheduled=False/Unschedulable"],
      ["Warning Unschedulable/Schedule"],
    ],
    [
      "healthy after unhealthy (a recovery): a Normal Event",
      ["Scheduled=False/Unschedulable"],
      ["Scheduled=True/Scheduled"],
      ["Normal Scheduled/Schedule"],
    ],
    [
      "a type whose True is unhealthy, first False: logged, no Event",
      [],
      ["RolloutPending=False/UpToDate"],
      ["log"],
    ],
    [
      "a type whose True is unhealthy, becoming True: a Warning Event",
      ["RolloutPending=False/UpToDate"],
      ["RolloutPending=True/WaitingForSessions"],
      ["Warning WaitingForSessions/Rollout"],
    ],
    [
      "a type whose True is unhealthy, back to False: a Normal Event",
      ["RolloutPending=True/WaitingForSessions"],
      ["RolloutPending=False/UpToDate"],
      ["Normal UpToDate/Rollout"],
    ],
    [
      "two named types change: one Event each, in the order named",
      ["Ready=False/PodPending", "Scheduled=False/Unschedulable"],
      ["Ready=True/Serving", "Scheduled=True/Scheduled"],
      ["Normal Scheduled/Schedule", "Normal Serving/Reconcile"],
    ],
  ])("%s", (_, before, after, want) => expect(told(conds(...before), conds(...after))).toEqual(want));

  it("a new message alone is not news", () => {
    const after = conds("Ready=False/PodsNotReady");
    after.conditions = after.conditions?.map((c) => ({ ...c, message: "2 of 2 pods not Ready" }));
    expect(told(conds("Ready=False/PodsNotReady"), after)).toEqual([]);
  });

  it("the Event carries the condition's message; the log line says the transition", () => {
    const [item] = statusNews(conds("Ready=True/Serving"), conds("Ready=False/Unreachable"), news);
    expect(item?.event?.message).toBe("Unreachable message");
    expect(item?.log).toBe("Ready True -> False (Serving -> Unreachable): Unreachable message");
  });
});

describe("statusNews: findings", () => {
  const capped = finding("OrchestratorCapped", "warning");
  const gas = finding("InsufficientGasFunds", "error");

  it.each<[string, StatusWithNews, StatusWithNews, string[]]>([
    [
      "a new warning finding: one Warning Event",
      { findings: [] },
      { findings: [capped] },
      ["Warning OrchestratorCapped/Diagnose"],
    ],
    ["a finding already announced: not news", { findings: [capped] }, { findings: [capped] }, []],
    ["a normal finding: never alarmed on", {}, { findings: [finding("LoopTimedOut", "normal")] }, []],
    [
      "an error finding that makes Ready False: one Event, the transition logged",
      { ...conds("Ready=True/Serving"), findings: [] },
      { ...conds("Ready=False/InsufficientGasFunds"), findings: [gas] },
      ["Warning InsufficientGasFunds/Diagnose", "log"],
    ],
    [
      "Ready False for a finding announced earlier: the transition is news",
      { ...conds("Ready=Unknown/CheckingNode"), findings: [gas] },
      { ...conds("Ready=False/InsufficientGasFunds"), findings: [gas] },
      ["Warning InsufficientGasFunds/Reconcile"],
    ],
  ])("%s", (_, before, after, want) => expect(told(before, after)).toEqual(want));

  it("the Event says the finding's message under its id", () => {
    const [item] = statusNews({}, { findings: [capped] }, news);
    expect(item?.event).toEqual({
      type: "Warning",
      reason: "OrchestratorCapped",
      message: "OrchestratorCapped seen",
      action: "Diagnose",
    });
    expect(item?.log).toBe("finding OrchestratorCapped (warning): OrchestratorCapped seen");
  });
});

it("each reconciler names its own actions", () => {
  const webhookNews: StatusNews = {
    conditions: { Ready: "CheckDeliveryConfiguration" },
    findingAction: "Inspect",
  };
  const after = { ...conds("Ready=False/SecretNotFound"), findings: [finding("X", "warning")] };
  expect(told({}, after, webhookNews)).toEqual([
    "Warning X/Inspect",
    "Warning SecretNotFound/CheckDeliveryConfiguration",
  ]);
});

describe("numericStatusFacts: the status facts exported as gauges", () => {
  it.each([
    [
      "ETH amounts as numbers",
      { deposit: "0.25", reserve: "0", balance: "1.5" },
      { deposit: 0.25, reserve: 0, balance: 1.5 },
    ],
    ["activeSet as 0/1", { activeSet: true }, { activeSet: 1 }],
    [
      "live apps summed: runners wanted, healthy (capacity) and in session",
      {
        ai: {
          models: [],
          live: [
            { desired: 2, healthy: 2, inSession: 1 },
            { desired: 3, healthy: 1, inSession: 1 },
          ],
        },
      },
      { liveRunnersDesired: 5, liveCapacity: 3, liveSessions: 2 },
    ],
    ["no live apps, no live facts", { ai: { models: [] } }, {}],
    ["activeSet false is 0, not absent", { activeSet: false }, { activeSet: 0 }],
    [
      "integers as they are",
      { maxSessions: 8, lastRewardRound: 42 },
      { maxSessions: 8, lastRewardRound: 42 },
    ],
    ["absent, empty and non-numeric facts left out", { deposit: "", reserve: "n/a" }, {}],
    ["fields that are not facts ignored", { serviceURI: "https://o:8935", observedGeneration: 3 }, {}],
  ] as const)("%s", (_name, status, facts) => {
    expect(numericStatusFacts(status)).toEqual(facts);
  });
});
