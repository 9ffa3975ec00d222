// Which status changes become Events, for every reconciler alike: one per new warning/error
// finding, one per transition of a named condition type, none for Unknown, and no second Event
// for a Ready=False that a finding's Event just explained.
import { describe, expect, it } from "vitest";
import type { Condition } from "./conditions.ts";
import { type StatusNews, type StatusWithNews, statusNews } from "./status-events.ts";

const c = (
  type: string,
  status: Condition["status"],
  reason: string,
  message = `${reason} message`,
): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: "2026-01-01T00:00:00Z",
});
const finding = (id: string, severity: "normal" | "warning" | "error") => ({
  id,
  severity,
  message: `${id} seen`,
});

const news: StatusNews = { conditions: { Scheduled: "Schedule", Ready: "Reconcile" } };

/** Each item as `log` or `Type Reason/action`, to compare whole lists. */
const told = (before: StatusWithNews, after: StatusWithNews, n: StatusNews = news) =>
  statusNews(before, after, n).map((i) =>
    i.event
      ? `${i.event.type} ${i.event.reason}/${i.event.action}: ${i.event.message}`
      : `log only: ${i.log}`,
  );

describe("statusNews", () => {
  it.each<[string, StatusWithNews, StatusWithNews, string[]]>([
    [
      "first visit, Ready Unknown: logged, no Event",
      {},
      { conditions: [c("Ready", "Unknown", "Reconciling")] },
      ["log only: Ready (none) -> Unknown (first visit -> Reconciling): Reconciling message"],
    ],
    [
      "Ready becomes True: a Normal Event",
      { conditions: [c("Ready", "Unknown", "Reconciling")] },
      { conditions: [c("Ready", "True", "Serving")] },
      ["Normal Serving/Reconcile: Serving message"],
    ],
    [
      "Ready becomes False: a Warning Event",
      { conditions: [c("Ready", "True", "Serving")] },
      { conditions: [c("Ready", "False", "NodeUnreachable")] },
      ["Warning NodeUnreachable/Reconcile: NodeUnreachable message"],
    ],
    [
      "same status, new reason: news",
      { conditions: [c("Ready", "False", "PodsNotReady")] },
      { conditions: [c("Ready", "False", "NodeUnreachable")] },
      ["Warning NodeUnreachable/Reconcile: NodeUnreachable message"],
    ],
    [
      "same status and reason, new message: not news",
      { conditions: [c("Ready", "False", "PodsNotReady", "1 of 2")] },
      { conditions: [c("Ready", "False", "PodsNotReady", "2 of 2")] },
      [],
    ],
    [
      "a condition type the reconciler does not name: not news",
      { conditions: [c("NodeReachable", "True", "EndpointsAnswering")] },
      { conditions: [c("NodeReachable", "False", "EndpointError")] },
      [],
    ],
    [
      "two named types change: one Event each, in the order named",
      { conditions: [c("Ready", "Unknown", "Reconciling"), c("Scheduled", "Unknown", "PodPending")] },
      { conditions: [c("Ready", "True", "Serving"), c("Scheduled", "True", "Scheduled")] },
      ["Normal Scheduled/Schedule: Scheduled message", "Normal Serving/Reconcile: Serving message"],
    ],
    [
      "a new warning finding: one Warning Event with its id",
      { findings: [] },
      { findings: [finding("OrchestratorCapped", "warning")] },
      ["Warning OrchestratorCapped/Diagnose: OrchestratorCapped seen"],
    ],
    [
      "a finding already announced: not news",
      { findings: [finding("OrchestratorCapped", "warning")] },
      { findings: [finding("OrchestratorCapped", "warning")] },
      [],
    ],
    [
      "a normal finding: never alarmed on",
      {},
      { findings: [finding("TranscodeLoopTimedOut", "normal")] },
      [],
    ],
    [
      "an error finding that makes Ready False: one Event, the transition logged",
      { conditions: [c("Ready", "True", "Serving")], findings: [] },
      {
        conditions: [c("Ready", "False", "InsufficientGasFunds")],
        findings: [finding("InsufficientGasFunds", "error")],
      },
      [
        "Warning InsufficientGasFunds/Diagnose: InsufficientGasFunds seen",
        "log only: Ready True -> False (Serving -> InsufficientGasFunds): InsufficientGasFunds message",
      ],
    ],
    [
      "Ready False for a finding announced earlier: the transition is news",
      {
        conditions: [c("Ready", "Unknown", "CheckingNode")],
        findings: [finding("InsufficientGasFunds", "error")],
      },
      {
        conditions: [c("Ready", "False", "InsufficientGasFunds")],
        findings: [finding("InsufficientGasFunds", "error")],
      },
      ["Warning InsufficientGasFunds/Reconcile: InsufficientGasFunds message"],
    ],
  ])("%s", (_, before, after, want) => expect(told(before, after)).toEqual(want));

  it("uses the reconciler's actions", () => {
    expect(
      told(
        {},
        { conditions: [c("Ready", "False", "SecretNotFound")], findings: [finding("X", "warning")] },
        {
          conditions: { Ready: "CheckDeliveryConfiguration" },
          findingAction: "Inspect",
        },
      ),
    ).toEqual([
      "Warning X/Inspect: X seen",
      "Warning SecretNotFound/CheckDeliveryConfiguration: SecretNotFound message",
    ]);
  });
});
