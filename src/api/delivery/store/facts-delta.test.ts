import { describe, expect, it } from "vitest";
import type { LogEntry } from "../model.ts";
import { factsDeltas } from "./facts-delta.ts";
import type { Settlement } from "./types.ts";

function attempt(
  webhookId: string,
  at: number,
  ok: boolean,
  extra: Partial<Settlement & { kind: "attempted" }> = {},
): Settlement {
  const log: LogEntry = {
    id: `log-${webhookId}-${at}`,
    webhookId,
    eventId: "e",
    event: "stream.started",
    createdAt: at,
    durationMs: 5,
    success: ok,
    request: { url: "http://x", method: "POST", headers: {}, body: "{}" },
    response: { status: ok ? 200 : 503, statusText: "", body: ok ? "ok" : "busy" },
    error: ok ? undefined : "HTTP 503",
  };
  return { kind: "attempted", next: { state: ok ? "delivered" : "failed" }, log, ...extra };
}

describe("factsDeltas", () => {
  it("keeps, per webhook, the newest trigger, the newest failure and the newest attempt's result, in any input order", () => {
    const deltas = factsDeltas([
      attempt("b", 30, true),
      attempt("b", 10, false),
      attempt("a", 5, false),
      attempt("b", 20, false),
    ]);
    expect(deltas).toEqual([
      {
        webhookId: "a",
        lastTriggeredAt: 5,
        delivering: { value: false, at: 5 },
        lastFailure: { at: 5, error: "HTTP 503", response: "busy", statusCode: 503 },
      },
      {
        webhookId: "b",
        lastTriggeredAt: 30,
        delivering: { value: true, at: 30 },
        lastFailure: { at: 20, error: "HTTP 503", response: "busy", statusCode: 503 },
      },
    ]);
  });

  it("records a 410 with the webhook revision it applies to", () => {
    const [d] = factsDeltas([attempt("a", 7, false, { goneRevision: "3" })]);
    expect(d?.gone).toEqual({ revision: "3", at: 7 });
  });

  it("ignores deliveries that were released or dropped without an attempt", () => {
    expect(
      factsDeltas([
        { kind: "released", deliveryId: 1, claimToken: "t", at: 5 },
        { kind: "dropped", deliveryId: 2, claimToken: "t", webhookId: "a", reason: "deleted" },
      ]),
    ).toEqual([]);
  });
});
